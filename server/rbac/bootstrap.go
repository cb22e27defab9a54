package rbac

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes"
	"k8s.io/component-helpers/auth/rbac/reconciliation"
)

// Identities known to kubewalk. The server's authenticator and the tests use these names so
// that they agree with the bootstrap policy.
const (
	// UserAdmin is the administrator. It is a member of GroupAdmin, which is bound to
	// cluster-admin.
	UserAdmin = "kubewalk-admin"
	// GroupAdmin is the privileged group, bound to cluster-admin. The escalation checks also
	// let its members grant anything.
	GroupAdmin = user.SystemPrivilegedGroup
	// UserAlice may do anything with configmaps in NamespaceDefault, through RoleBinding
	// RoleBindingAliceConfigMaps of Role RoleConfigMapEditor.
	UserAlice = "alice"
	// UserBob holds nothing beyond what every authenticated user holds.
	UserBob = "bob"

	// NamespaceDefault is the namespace of kubewalk's own Role and RoleBinding.
	NamespaceDefault = metav1.NamespaceDefault
	// RoleConfigMapEditor is a Role in NamespaceDefault granting every verb on configmaps.
	RoleConfigMapEditor = "configmap-editor"
	// RoleBindingAliceConfigMaps binds RoleConfigMapEditor to UserAlice.
	RoleBindingAliceConfigMaps = "alice-configmaps"
)

// Names of the bootstrap ClusterRoles, and of the ClusterRoleBindings that bind them, as in
// kube-apiserver.
const (
	ClusterRoleClusterAdmin     = "cluster-admin"
	ClusterRoleDiscovery        = "system:discovery"
	ClusterRoleBasicUser        = "system:basic-user"
	ClusterRolePublicInfoViewer = "system:public-info-viewer"
)

// Label and annotation that kube-apiserver puts on its bootstrap ClusterRoles and
// ClusterRoleBindings.
const (
	BootstrappingLabelKey   = "kubernetes.io/bootstrapping"
	BootstrappingLabelValue = "rbac-defaults"
)

// Policy is a set of RBAC objects.
type Policy struct {
	ClusterRoles        []rbacv1.ClusterRole
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	Roles               []rbacv1.Role
	RoleBindings        []rbacv1.RoleBinding
}

// BootstrapPolicy returns the policy kubewalk creates at start-up:
//
//   - ClusterRole cluster-admin: every verb on every resource of every group, and every verb
//     on every non-resource URL; bound to group system:masters.
//   - ClusterRole system:discovery: get on /api, /api/*, /apis, /apis/*, /healthz, /livez,
//     /openapi, /openapi/*, /readyz, /version, /version/; bound to system:authenticated.
//   - ClusterRole system:basic-user: create selfsubjectaccessreviews and
//     selfsubjectrulesreviews (authorization.k8s.io) and selfsubjectreviews
//     (authentication.k8s.io); bound to system:authenticated.
//   - ClusterRole system:public-info-viewer: get on /healthz, /livez, /readyz, /version,
//     /version/; bound to system:authenticated and system:unauthenticated.
//   - Role configmap-editor in namespace default: every verb on configmaps; bound by
//     RoleBinding alice-configmaps to user alice.
//
// The ClusterRoles and ClusterRoleBindings match kube-apiserver's defaults of the same names,
// including the label kubernetes.io/bootstrapping=rbac-defaults and the annotation
// rbac.authorization.kubernetes.io/autoupdate=true. Each call returns fresh objects.
func BootstrapPolicy() Policy {
	return Policy{
		ClusterRoles: []rbacv1.ClusterRole{
			{
				ObjectMeta: bootstrapMeta(ClusterRoleClusterAdmin),
				Rules: []rbacv1.PolicyRule{
					{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{rbacv1.APIGroupAll}, Resources: []string{rbacv1.ResourceAll}},
					{Verbs: []string{rbacv1.VerbAll}, NonResourceURLs: []string{rbacv1.NonResourceAll}},
				},
			},
			{
				ObjectMeta: bootstrapMeta(ClusterRoleDiscovery),
				Rules: []rbacv1.PolicyRule{{
					Verbs: []string{"get"},
					NonResourceURLs: []string{
						"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
						"/openapi", "/openapi/*", "/readyz", "/version", "/version/",
					},
				}},
			},
			{
				ObjectMeta: bootstrapMeta(ClusterRoleBasicUser),
				Rules: []rbacv1.PolicyRule{
					{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"selfsubjectaccessreviews", "selfsubjectrulesreviews"}},
					{Verbs: []string{"create"}, APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"selfsubjectreviews"}},
				},
			},
			{
				ObjectMeta: bootstrapMeta(ClusterRolePublicInfoViewer),
				Rules: []rbacv1.PolicyRule{{
					Verbs:           []string{"get"},
					NonResourceURLs: []string{"/healthz", "/livez", "/readyz", "/version", "/version/"},
				}},
			},
		},
		ClusterRoleBindings: []rbacv1.ClusterRoleBinding{
			clusterRoleBindingToGroups(ClusterRoleClusterAdmin, user.SystemPrivilegedGroup),
			clusterRoleBindingToGroups(ClusterRoleDiscovery, user.AllAuthenticated),
			clusterRoleBindingToGroups(ClusterRoleBasicUser, user.AllAuthenticated),
			clusterRoleBindingToGroups(ClusterRolePublicInfoViewer, user.AllAuthenticated, user.AllUnauthenticated),
		},
		Roles: []rbacv1.Role{{
			ObjectMeta: metav1.ObjectMeta{Name: RoleConfigMapEditor, Namespace: NamespaceDefault},
			Rules: []rbacv1.PolicyRule{
				{Verbs: []string{rbacv1.VerbAll}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
			},
		}},
		RoleBindings: []rbacv1.RoleBinding{{
			ObjectMeta: metav1.ObjectMeta{Name: RoleBindingAliceConfigMaps, Namespace: NamespaceDefault},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: RoleConfigMapEditor},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: UserAlice}},
		}},
	}
}

func bootstrapMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        name,
		Labels:      map[string]string{BootstrappingLabelKey: BootstrappingLabelValue},
		Annotations: map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"},
	}
}

// clusterRoleBindingToGroups binds the ClusterRole name to groups, in a ClusterRoleBinding of
// the same name.
func clusterRoleBindingToGroups(name string, groups ...string) rbacv1.ClusterRoleBinding {
	b := rbacv1.ClusterRoleBinding{
		ObjectMeta: bootstrapMeta(name),
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
	}
	for _, g := range groups {
		b.Subjects = append(b.Subjects, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: g})
	}
	return b
}

// Retry delays of EnsurePolicy: the first retry waits ensureMinDelay, each later one twice as
// long, up to ensureMaxDelay.
const (
	ensureMinDelay = 100 * time.Millisecond
	ensureMaxDelay = 2 * time.Second
)

// EnsurePolicy reconciles every object of p with the server, with
// k8s.io/component-helpers/auth/rbac/reconciliation as kube-apiserver's RBAC bootstrap hook
// does, but every object at once, each in its own goroutine, where kube-apiserver goes through
// them one after another: each reconciliation is a GET and a write through the whole handler
// chain, and a starting server answers the readyz check of the hook only once all of them are
// done. Nothing orders them: RBAC lets a binding name a role that does not exist yet, and a
// Role and its RoleBinding each create their namespace if it is missing. Each object is
// reconciled as kube-apiserver reconciles its own:
//
//   - a missing object is created (Roles and RoleBindings create their namespace first when
//     it is missing);
//   - an existing object annotated rbac.authorization.kubernetes.io/autoupdate=false is left
//     as it is, so an administrator can keep their changes across restarts;
//   - any other existing object gets p's labels and annotations and whatever rules (or
//     subjects) of p it lacks; nothing it has beyond p is removed. A binding whose roleRef
//     differs from p's is deleted and created again, since roleRef is immutable.
//
// Errors that retrying cannot fix (the object is invalid, the request is malformed or not
// supported) end that object's reconciliation at once. Any other error, such as a timeout or a
// namespace that does not exist yet, is retried with backoff until ctx is done. EnsurePolicy
// returns once every object is done, with the errors of those that failed (each object's
// last), so callers should bound ctx (kube-apiserver gives its own RBAC bootstrap 30 seconds).
// It is meant to run in a post-start hook, with a client that may write RBAC objects.
func EnsurePolicy(ctx context.Context, client kubernetes.Interface, p Policy) error {
	c, namespaces := client.RbacV1(), client.CoreV1().Namespaces()
	var wg sync.WaitGroup
	errs := make([]error, len(p.ClusterRoles)+len(p.ClusterRoleBindings)+len(p.Roles)+len(p.RoleBindings))
	n := 0
	do := func(kind, name string, reconcile func() error) {
		i := n
		n++
		wg.Go(func() { errs[i] = ensure(ctx, kind, name, reconcile) })
	}
	for i := range p.ClusterRoles {
		obj := &p.ClusterRoles[i]
		do("ClusterRole", obj.Name, func() error {
			_, err := (&reconciliation.ReconcileRoleOptions{
				Role:    reconciliation.ClusterRoleRuleOwner{ClusterRole: obj.DeepCopy()},
				Client:  reconciliation.ClusterRoleModifier{Client: c.ClusterRoles()},
				Confirm: true,
			}).Run()
			return err
		})
	}
	for i := range p.ClusterRoleBindings {
		obj := &p.ClusterRoleBindings[i]
		do("ClusterRoleBinding", obj.Name, func() error {
			_, err := (&reconciliation.ReconcileRoleBindingOptions{
				RoleBinding: reconciliation.ClusterRoleBindingAdapter{ClusterRoleBinding: obj.DeepCopy()},
				Client:      reconciliation.ClusterRoleBindingClientAdapter{Client: c.ClusterRoleBindings()},
				Confirm:     true,
			}).Run()
			return err
		})
	}
	for i := range p.Roles {
		obj := &p.Roles[i]
		do("Role", obj.Namespace+"/"+obj.Name, func() error {
			_, err := (&reconciliation.ReconcileRoleOptions{
				Role:    reconciliation.RoleRuleOwner{Role: obj.DeepCopy()},
				Client:  reconciliation.RoleModifier{Client: c, NamespaceClient: namespaces},
				Confirm: true,
			}).Run()
			return err
		})
	}
	for i := range p.RoleBindings {
		obj := &p.RoleBindings[i]
		do("RoleBinding", obj.Namespace+"/"+obj.Name, func() error {
			_, err := (&reconciliation.ReconcileRoleBindingOptions{
				RoleBinding: reconciliation.RoleBindingAdapter{RoleBinding: obj.DeepCopy()},
				Client:      reconciliation.RoleBindingClientAdapter{Client: c, NamespaceClient: namespaces},
				Confirm:     true,
			}).Run()
			return err
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// ensure calls reconcile until it succeeds, fails for good, or ctx is done.
func ensure(ctx context.Context, kind, name string, reconcile func() error) error {
	delay := ensureMinDelay
	for {
		err := reconcile()
		switch {
		case err == nil:
			return nil
		case permanent(err):
			return fmt.Errorf("reconciling %s %q: %w", kind, name, err)
		}
		timer := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("reconciling %s %q: %w (gave up: %w)", kind, name, err, context.Cause(ctx))
		case <-timer.C:
		}
		delay = min(2*delay, ensureMaxDelay)
	}
}

// permanent reports whether retrying a create that failed with err cannot succeed.
func permanent(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) ||
		apierrors.IsMethodNotSupported(err) || apierrors.IsNotAcceptable(err) ||
		apierrors.IsUnsupportedMediaType(err) || apierrors.IsRequestEntityTooLargeError(err)
}
