package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
	"k8s.io/component-helpers/auth/rbac/validation"

	"github.com/kubewalk/kubewalk/server"
	"github.com/kubewalk/kubewalk/server/admit"
)

// The tests in this file attack the server's RBAC and admission as an unprivileged user would,
// through client-go against the real server and embedded etcd. Users other than the kubewalk
// identities (alice, bob) are reached by impersonation from the admin, which the generic
// handler chain supports: the request then carries that user and system:authenticated.

// impersonating returns a clientset acting as user name (in system:authenticated only).
func impersonating(t *testing.T, s *server.Server, name string) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(restConfig(t, s, "admin"))
	cfg.Impersonate = rest.ImpersonationConfig{UserName: name}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitAllowed waits (bounded) until c's user may do verb on resource of group in namespace,
// as the server's authorizer sees it: RBAC objects reach it by watch.
func waitAllowed(t *testing.T, c kubernetes.Interface, namespace, verb, group, resource string) {
	t.Helper()
	attrs := &authorizationv1.ResourceAttributes{Namespace: namespace, Verb: verb, Group: group, Resource: resource}
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		r, err := c.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: attrs},
		}, metav1.CreateOptions{})
		return err == nil && r.Status.Allowed, nil
	})
	if err != nil {
		t.Fatalf("never allowed to %s %s.%s in %q: %v", verb, resource, group, namespace, err)
	}
}

func mustCreate[T any](t *testing.T, what string, create func(context.Context, T, metav1.CreateOptions) (T, error), obj T) T {
	t.Helper()
	got, err := create(context.Background(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create %s: %v", what, err)
	}
	return got
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

// wantForbidden fails unless err is a Forbidden error containing every string of msg.
func wantForbidden(t *testing.T, what string, err error, msg ...string) {
	t.Helper()
	if !apierrors.IsForbidden(err) {
		t.Fatalf("%s: want Forbidden, got %v", what, err)
	}
	for _, m := range msg {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("%s: error %q does not contain %q", what, err, m)
		}
	}
}

// TestSecurityEmptyRoleRefAPIGroup: a user who holds every verb on the core group's resources
// and may create bindings must not bind cluster-admin by leaving roleRef.apiGroup empty. The
// API group is defaulted at decode time, as kube-apiserver does, so the bind check sees
// rbac.authorization.k8s.io; bindings the user may make still work and are stored defaulted.
func TestSecurityEmptyRoleRefAPIGroup(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin := clientFor(t, s, "admin")
	coreAll := rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"*"}, Verbs: []string{"*"}}
	bindRule := func(resource string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{rbacv1.GroupName}, Resources: []string{resource}, Verbs: []string{"create", "get"}}
	}
	clusterAdminRef := func(group string) rbacv1.RoleRef {
		return rbacv1.RoleRef{APIGroup: group, Kind: "ClusterRole", Name: "cluster-admin"}
	}

	t.Run("RoleBinding", func(t *testing.T) {
		rbac := admin.RbacV1()
		mustCreate(t, "role", rbac.Roles("default").Create, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "core-all"},
			Rules:      []rbacv1.PolicyRule{coreAll, bindRule("rolebindings")},
		})
		mustCreate(t, "binding", rbac.RoleBindings("default").Create, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "bob-core-all"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "core-all"},
			Subjects:   []rbacv1.Subject{userSubject(server.BobUser)},
		})
		bob := clientFor(t, s, "bob")
		waitAllowed(t, bob, "default", "create", rbacv1.GroupName, "rolebindings")
		bindings := bob.RbacV1().RoleBindings("default")

		for _, group := range []string{"", rbacv1.GroupName} {
			_, err := bindings.Create(ctx, &rbacv1.RoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "bob-cluster-admin"},
				RoleRef:    clusterAdminRef(group),
				Subjects:   []rbacv1.Subject{userSubject(server.BobUser)},
			}, metav1.CreateOptions{})
			wantForbidden(t, fmt.Sprintf("binding cluster-admin with roleRef.apiGroup %q", group), err,
				`rolebindings.rbac.authorization.k8s.io "bob-cluster-admin" is forbidden`, `Resources:["*"]`)
		}
		if _, err := admin.RbacV1().RoleBindings("default").Get(ctx, "bob-cluster-admin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("the refused binding exists: %v", err)
		}
		if _, err := bob.RbacV1().Roles("default").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
			t.Fatalf("bob lists roles: want Forbidden, got %v", err)
		}

		// Binding what bob holds, with both API groups left empty, is allowed and defaulted.
		got, err := bindings.Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "carol-core-all"},
			RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "core-all"},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.UserKind, Name: "carol"},
				{Kind: rbacv1.ServiceAccountKind, Name: "default"},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("binding a role bob holds: %v", err)
		}
		checkDefaulted(t, got.RoleRef, got.Subjects)
	})

	t.Run("ClusterRoleBinding", func(t *testing.T) {
		rbac := admin.RbacV1()
		mustCreate(t, "clusterrole", rbac.ClusterRoles().Create, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "core-all"},
			Rules:      []rbacv1.PolicyRule{coreAll, bindRule("clusterrolebindings")},
		})
		mustCreate(t, "clusterrolebinding", rbac.ClusterRoleBindings().Create, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "dave-core-all"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "core-all"},
			Subjects:   []rbacv1.Subject{userSubject("dave")},
		})
		dave := impersonating(t, s, "dave")
		waitAllowed(t, dave, "", "create", rbacv1.GroupName, "clusterrolebindings")
		bindings := dave.RbacV1().ClusterRoleBindings()

		for _, group := range []string{"", rbacv1.GroupName} {
			_, err := bindings.Create(ctx, &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "dave-cluster-admin"},
				RoleRef:    clusterAdminRef(group),
				Subjects:   []rbacv1.Subject{userSubject("dave")},
			}, metav1.CreateOptions{})
			wantForbidden(t, fmt.Sprintf("binding cluster-admin with roleRef.apiGroup %q", group), err,
				`clusterrolebindings.rbac.authorization.k8s.io "dave-cluster-admin" is forbidden`, `Resources:["*"]`)
		}
		if _, err := admin.RbacV1().ClusterRoleBindings().Get(ctx, "dave-cluster-admin", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("the refused binding exists: %v", err)
		}

		got, err := bindings.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "erin-core-all"},
			RoleRef:    rbacv1.RoleRef{Kind: "ClusterRole", Name: "core-all"},
			Subjects: []rbacv1.Subject{
				{Kind: rbacv1.UserKind, Name: "erin"},
				{Kind: rbacv1.ServiceAccountKind, Namespace: "default", Name: "default"},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("binding a cluster role dave holds: %v", err)
		}
		checkDefaulted(t, got.RoleRef, got.Subjects)
	})
}

// checkDefaulted checks the rbac/v1 defaults of a stored binding: the role ref and User
// subjects are in rbac.authorization.k8s.io, ServiceAccount subjects in no group.
func checkDefaulted(t *testing.T, ref rbacv1.RoleRef, subjects []rbacv1.Subject) {
	t.Helper()
	if ref.APIGroup != rbacv1.GroupName {
		t.Errorf("stored roleRef.apiGroup = %q, want %q", ref.APIGroup, rbacv1.GroupName)
	}
	for _, sub := range subjects {
		want := ""
		if sub.Kind != rbacv1.ServiceAccountKind {
			want = rbacv1.GroupName
		}
		if sub.APIGroup != want {
			t.Errorf("stored subject %s %q has apiGroup %q, want %q", sub.Kind, sub.Name, sub.APIGroup, want)
		}
	}
}

// TestSecurityEscalateByName: `escalate` on roles limited by resourceNames lets a user update
// the named role beyond their own rights, but not create it (a create request has no name, as
// upstream's RoleEscalationAuthorized sees it). Removing a ClusterRole's aggregationRule needs
// cluster-admin, as setting one does.
func TestSecurityEscalateByName(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin := clientFor(t, s, "admin")
	secretsAll := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}}}

	t.Run("CreateIgnoresResourceNames", func(t *testing.T) {
		mustCreate(t, "role", admin.RbacV1().Roles("default").Create, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "escalate-foo"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles"}, Verbs: []string{"create", "get", "update"}},
				{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles"}, Verbs: []string{"escalate"}, ResourceNames: []string{"foo"}},
			},
		})
		mustCreate(t, "binding", admin.RbacV1().RoleBindings("default").Create, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "frank-escalate-foo"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "escalate-foo"},
			Subjects:   []rbacv1.Subject{userSubject("frank")},
		})
		frank := impersonating(t, s, "frank")
		waitAllowed(t, frank, "default", "create", rbacv1.GroupName, "roles")
		roles := frank.RbacV1().Roles("default")

		_, err := roles.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "foo"}, Rules: secretsAll}, metav1.CreateOptions{})
		wantForbidden(t, "creating role foo granting secrets", err, `roles.rbac.authorization.k8s.io "foo" is forbidden`, `Resources:["secrets"]`)

		// Roles that grant only what frank holds may still be created.
		if _, err := roles.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "foo"}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"roles"}, Verbs: []string{"get"}},
		}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating role foo within frank's rights: %v", err)
		}
		// Updating foo, which escalate names, may grant anything, as upstream allows.
		foo, err := roles.Get(ctx, "foo", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		foo.Rules = secretsAll
		if _, err := roles.Update(ctx, foo, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("updating role foo with escalate on it: %v", err)
		}
		// Other names get no such pass, on create or update.
		_, err = roles.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "bar"}, Rules: secretsAll}, metav1.CreateOptions{})
		wantForbidden(t, "creating role bar granting secrets", err, `"bar" is forbidden`)
	})

	t.Run("AggregationRuleRemoval", func(t *testing.T) {
		rbac := admin.RbacV1()
		aggregated := mustCreate(t, "aggregated clusterrole", rbac.ClusterRoles().Create, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "aggregated"},
			AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{
				{MatchLabels: map[string]string{"example.com/aggregate-to-aggregated": "true"}},
			}},
		})
		plain := mustCreate(t, "plain clusterrole", rbac.ClusterRoles().Create, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "plain"}})
		mustCreate(t, "clusterrole", rbac.ClusterRoles().Create, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "clusterrole-editor"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles"}, Verbs: []string{"get", "update", "patch"}}},
		})
		mustCreate(t, "clusterrolebinding", rbac.ClusterRoleBindings().Create, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "grace-clusterrole-editor"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "clusterrole-editor"},
			Subjects:   []rbacv1.Subject{userSubject("grace")},
		})
		grace := impersonating(t, s, "grace")
		waitAllowed(t, grace, "", "update", rbacv1.GroupName, "clusterroles")
		clusterRoles := grace.RbacV1().ClusterRoles()

		removed := aggregated.DeepCopy()
		removed.AggregationRule = nil
		_, err := clusterRoles.Update(ctx, removed, metav1.UpdateOptions{})
		wantForbidden(t, "removing an aggregationRule", err, "must have cluster-admin privileges to use the aggregationRule")
		_, err = clusterRoles.Patch(ctx, "aggregated", types.MergePatchType, []byte(`{"aggregationRule":null}`), metav1.PatchOptions{})
		wantForbidden(t, "patching an aggregationRule away", err, "aggregationRule")
		if got, err := rbac.ClusterRoles().Get(ctx, "aggregated", metav1.GetOptions{}); err != nil || got.AggregationRule == nil {
			t.Fatalf("aggregationRule after refused updates = %v, %v", got.AggregationRule, err)
		}

		// Updates of a role without aggregationRule that grant nothing new still work.
		plain.Labels = map[string]string{"team": "a"}
		if _, err := clusterRoles.Update(ctx, plain, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("labelling a plain clusterrole: %v", err)
		}
	})
}

// TestSecurityCreatedByCannotBeForged: kubewalk.io/created-by is stamped on create and kept on
// every update, whatever the update sends.
func TestSecurityCreatedByCannotBeForged(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin, alice := clientFor(t, s, "admin"), clientFor(t, s, "alice")
	cms := alice.CoreV1().ConfigMaps("default")

	mine, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "mine", Annotations: map[string]string{admit.CreatedByAnnotation: server.AdminUser}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mine.Annotations[admit.CreatedByAnnotation]; got != server.AliceUser {
		t.Fatalf("created-by on create = %q, want %q", got, server.AliceUser)
	}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "theirs"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		target string
		update func(context.Context, string) (*corev1.ConfigMap, error)
		want   string
	}{
		{"update rewrites it", "mine", func(ctx context.Context, name string) (*corev1.ConfigMap, error) {
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			cm.Annotations[admit.CreatedByAnnotation] = server.AdminUser
			cm.Data = map[string]string{"k": "v"}
			return cms.Update(ctx, cm, metav1.UpdateOptions{})
		}, server.AliceUser},
		{"update removes it", "mine", func(ctx context.Context, name string) (*corev1.ConfigMap, error) {
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			cm.Annotations = map[string]string{"note": "kept"}
			return cms.Update(ctx, cm, metav1.UpdateOptions{})
		}, server.AliceUser},
		{"merge patch rewrites it", "theirs", func(ctx context.Context, name string) (*corev1.ConfigMap, error) {
			patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, admit.CreatedByAnnotation, server.AliceUser)
			return cms.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		}, server.AdminUser},
		{"json patch removes it", "theirs", func(ctx context.Context, name string) (*corev1.ConfigMap, error) {
			patch := `[{"op":"remove","path":"/metadata/annotations/kubewalk.io~1created-by"}]`
			return cms.Patch(ctx, name, types.JSONPatchType, []byte(patch), metav1.PatchOptions{})
		}, server.AdminUser},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.update(ctx, tt.target)
			if err != nil {
				t.Fatalf("update as alice: %v", err)
			}
			if a := got.Annotations[admit.CreatedByAnnotation]; a != tt.want {
				t.Errorf("created-by after update = %q, want %q", a, tt.want)
			}
			stored, err := admin.CoreV1().ConfigMaps("default").Get(ctx, tt.target, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if a := stored.Annotations[admit.CreatedByAnnotation]; a != tt.want {
				t.Errorf("stored created-by = %q, want %q", a, tt.want)
			}
		})
	}
	stored, err := cms.Get(ctx, "mine", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.Data["k"] != "v" || stored.Annotations["note"] != "kept" {
		t.Errorf("the rest of alice's updates was lost: data %v, annotations %v", stored.Data, stored.Annotations)
	}
}

// TestBootstrapPolicyReconciledOnRestart: at start the bootstrap ClusterRoles are reconciled
// as kube-apiserver reconciles its own: a narrowed one gets its rules back unless it is
// annotated rbac.authorization.kubernetes.io/autoupdate=false. A narrowed system:basic-user
// would otherwise stay narrowed in a reused --data-dir.
func TestBootstrapPolicyReconciledOnRestart(t *testing.T) {
	dataDir := t.TempDir() + "/etcd"
	withDataDir := func(o *server.Options) { o.DataDir = dataDir }
	ctx := context.Background()
	narrowed := []rbacv1.PolicyRule{{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}, Verbs: []string{"create"}}}

	first := startServer(t, withDataDir)
	roles := clientFor(t, first, "admin").RbacV1().ClusterRoles()
	// want holds the rules each role must cover after the restart, and whether it must
	// cover nothing more.
	type want struct {
		rules []rbacv1.PolicyRule
		exact bool
	}
	wants := map[string]want{}
	for _, tt := range []struct {
		name      string
		protected bool
	}{{"system:basic-user", false}, {"system:public-info-viewer", true}} {
		r, err := roles.Get(ctx, tt.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		wants[tt.name] = want{rules: r.Rules}
		r.Rules = narrowed
		if tt.protected {
			r.Annotations[rbacv1.AutoUpdateAnnotationKey] = "false"
			wants[tt.name] = want{rules: narrowed, exact: true}
		}
		if _, err := roles.Update(ctx, r, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := first.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	// Start returns once /readyz passes, which waits for the RBAC bootstrap hook.
	second := startServer(t, withDataDir)
	roles = clientFor(t, second, "admin").RbacV1().ClusterRoles()
	for name, w := range wants {
		got, err := roles.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ok := apiequality.Semantic.DeepEqual(got.Rules, w.rules)
		if !w.exact {
			ok, _ = validation.Covers(got.Rules, w.rules)
		}
		if !ok {
			t.Errorf("ClusterRole %s after restart has rules %+v, want (exact=%v) %+v", name, got.Rules, w.exact, w.rules)
		}
	}
}

// TestAdminClientCertificatePEM: the admin's client key and certificate are PEM blocks of the
// types kubectl and client-go expect ("EC PRIVATE KEY", "CERTIFICATE"), belong together, and
// the certificate names the admin in system:masters.
func TestAdminClientCertificatePEM(t *testing.T) {
	s := startServer(t)
	cfg := restConfig(t, s, "admin")
	keyBlock, tail := pem.Decode(cfg.KeyData)
	if keyBlock == nil || keyBlock.Type != keyutil.ECPrivateKeyBlockType || len(bytes.TrimSpace(tail)) != 0 {
		t.Fatalf("key PEM: one %q block wanted, got %v", keyutil.ECPrivateKeyBlockType, keyBlock)
	}
	certBlock, tail := pem.Decode(cfg.CertData)
	if certBlock == nil || certBlock.Type != certutil.CertificateBlockType || len(bytes.TrimSpace(tail)) != 0 {
		t.Fatalf("certificate PEM: one %q block wanted, got %v", certutil.CertificateBlockType, certBlock)
	}
	if _, err := tls.X509KeyPair(cfg.CertData, cfg.KeyData); err != nil {
		t.Fatalf("key and certificate do not belong together: %v", err)
	}
	if _, err := keyutil.ParsePrivateKeyPEM(cfg.KeyData); err != nil {
		t.Fatalf("parse key: %v", err)
	}
	cert, err := x509.ParseCertificate(certBlock.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if cert.Subject.CommonName != server.AdminUser || !slices.Contains(cert.Subject.Organization, "system:masters") {
		t.Errorf("certificate subject = %v", cert.Subject)
	}
	// And the server accepts it without the bearer token.
	cfg = rest.CopyConfig(cfg)
	cfg.BearerToken = ""
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoles().Get(context.Background(), "cluster-admin", metav1.GetOptions{}); err != nil {
		t.Errorf("request with the client certificate only: %v", err)
	}
}
