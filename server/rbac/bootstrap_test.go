package rbac

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestBootstrapPolicy(t *testing.T) {
	p := BootstrapPolicy()

	wantClusterRoles := map[string]int{
		ClusterRoleClusterAdmin: 2, ClusterRoleDiscovery: 1, ClusterRoleBasicUser: 2, ClusterRolePublicInfoViewer: 1,
	}
	if len(p.ClusterRoles) != len(wantClusterRoles) {
		t.Errorf("%d ClusterRoles, want %d", len(p.ClusterRoles), len(wantClusterRoles))
	}
	for _, cr := range p.ClusterRoles {
		if n, ok := wantClusterRoles[cr.Name]; !ok || len(cr.Rules) != n {
			t.Errorf("ClusterRole %q has %d rules, want %d", cr.Name, len(cr.Rules), n)
		}
		checkBootstrapMeta(t, "ClusterRole "+cr.Name, cr.ObjectMeta)
	}

	wantGroups := map[string]string{
		ClusterRoleClusterAdmin:     user.SystemPrivilegedGroup,
		ClusterRoleDiscovery:        user.AllAuthenticated,
		ClusterRoleBasicUser:        user.AllAuthenticated,
		ClusterRolePublicInfoViewer: user.AllAuthenticated + "," + user.AllUnauthenticated,
	}
	for _, b := range p.ClusterRoleBindings {
		checkBootstrapMeta(t, "ClusterRoleBinding "+b.Name, b.ObjectMeta)
		if b.RoleRef != (rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: b.Name}) {
			t.Errorf("ClusterRoleBinding %q has roleRef %+v", b.Name, b.RoleRef)
		}
		var groups []string
		for _, s := range b.Subjects {
			if s.Kind != rbacv1.GroupKind || s.APIGroup != rbacv1.GroupName {
				t.Errorf("ClusterRoleBinding %q has subject %+v", b.Name, s)
			}
			groups = append(groups, s.Name)
		}
		if got := strings.Join(groups, ","); got != wantGroups[b.Name] {
			t.Errorf("ClusterRoleBinding %q binds %q, want %q", b.Name, got, wantGroups[b.Name])
		}
		delete(wantGroups, b.Name)
	}
	if len(wantGroups) > 0 {
		t.Errorf("missing ClusterRoleBindings %v", wantGroups)
	}

	if len(p.Roles) != 1 || p.Roles[0].Namespace != NamespaceDefault || p.Roles[0].Name != RoleConfigMapEditor {
		t.Fatalf("Roles = %+v", p.Roles)
	}
	if len(p.RoleBindings) != 1 || p.RoleBindings[0].Namespace != NamespaceDefault || p.RoleBindings[0].Name != RoleBindingAliceConfigMaps ||
		p.RoleBindings[0].RoleRef.Name != RoleConfigMapEditor || p.RoleBindings[0].Subjects[0] != userSubject(UserAlice) {
		t.Fatalf("RoleBindings = %+v", p.RoleBindings)
	}

	// Each call returns objects of its own.
	p.ClusterRoles[0].Rules[0].Verbs[0] = "changed"
	p.ClusterRoles[0].Labels["x"] = "y"
	q := BootstrapPolicy()
	if q.ClusterRoles[0].Rules[0].Verbs[0] != rbacv1.VerbAll || len(q.ClusterRoles[0].Labels) != 1 {
		t.Errorf("BootstrapPolicy shares data between calls")
	}
}

func checkBootstrapMeta(t *testing.T, what string, m metav1.ObjectMeta) {
	t.Helper()
	if m.Labels[BootstrappingLabelKey] != BootstrappingLabelValue {
		t.Errorf("%s labels = %v", what, m.Labels)
	}
	if m.Annotations[rbacv1.AutoUpdateAnnotationKey] != "true" {
		t.Errorf("%s annotations = %v", what, m.Annotations)
	}
}

func TestEnsurePolicyCreatesMissingObjects(t *testing.T) {
	client := fake.NewClientset()
	ctx := context.Background()
	if err := EnsurePolicy(ctx, client, BootstrapPolicy()); err != nil {
		t.Fatalf("EnsurePolicy: %v", err)
	}
	p := BootstrapPolicy()
	for _, want := range p.ClusterRoles {
		got, err := client.RbacV1().ClusterRoles().Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("ClusterRole %q: %v", want.Name, err)
		}
		if !apiequality.Semantic.DeepEqual(got.Rules, want.Rules) || !maps.Equal(got.Labels, want.Labels) || !maps.Equal(got.Annotations, want.Annotations) {
			t.Errorf("ClusterRole %q = %+v, want %+v", want.Name, got, want)
		}
	}
	for _, want := range p.ClusterRoleBindings {
		got, err := client.RbacV1().ClusterRoleBindings().Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("ClusterRoleBinding %q: %v", want.Name, err)
		}
		if got.RoleRef != want.RoleRef || !slices.Equal(got.Subjects, want.Subjects) {
			t.Errorf("ClusterRoleBinding %q = %+v, want %+v", want.Name, got, want)
		}
	}
	if _, err := client.RbacV1().Roles(NamespaceDefault).Get(ctx, RoleConfigMapEditor, metav1.GetOptions{}); err != nil {
		t.Errorf("Role: %v", err)
	}
	if _, err := client.RbacV1().RoleBindings(NamespaceDefault).Get(ctx, RoleBindingAliceConfigMaps, metav1.GetOptions{}); err != nil {
		t.Errorf("RoleBinding: %v", err)
	}
	// As upstream's reconciliation, a Role's missing namespace is created with it.
	if _, err := client.CoreV1().Namespaces().Get(ctx, NamespaceDefault, metav1.GetOptions{}); err != nil {
		t.Errorf("namespace: %v", err)
	}

	// A second run finds everything in place and writes nothing.
	client.ClearActions()
	if err := EnsurePolicy(ctx, client, BootstrapPolicy()); err != nil {
		t.Errorf("second EnsurePolicy: %v", err)
	}
	for _, a := range client.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("second EnsurePolicy wrote: %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}
}

// TestEnsurePolicyReconciles: existing objects are reconciled as kube-apiserver reconciles its
// bootstrap policy: those annotated autoupdate=false are left alone, the others get back what
// they lack and keep what they have beyond it.
func TestEnsurePolicyReconciles(t *testing.T) {
	protected := map[string]string{rbacv1.AutoUpdateAnnotationKey: "false"}
	podReader := rule([]string{"get"}, []string{""}, []string{"pods"})
	narrowed := func(annotations map[string]string) *rbacv1.ClusterRole {
		r := clusterRole(ClusterRoleClusterAdmin, podReader)
		r.Labels = map[string]string{"team": "a"}
		r.Annotations = annotations
		return &r
	}
	bobOnly := func(annotations map[string]string) *rbacv1.RoleBinding {
		b := roleBinding(NamespaceDefault, RoleBindingAliceConfigMaps, "Role", RoleConfigMapEditor, userSubject(UserBob))
		b.Annotations = annotations
		return &b
	}
	otherRoleRef := clusterRoleBinding(ClusterRoleDiscovery, ClusterRoleBasicUser, groupSubject("someone"))
	admin := BootstrapPolicy().ClusterRoles[0]
	adminRules := admin.Rules

	tests := []struct {
		name     string
		existing runtime.Object
		check    func(t *testing.T, client *fake.Clientset)
	}{
		{"protected ClusterRole is left alone", narrowed(protected), func(t *testing.T, c *fake.Clientset) {
			got, _ := c.RbacV1().ClusterRoles().Get(context.Background(), ClusterRoleClusterAdmin, metav1.GetOptions{})
			if !apiequality.Semantic.DeepEqual(got, narrowed(protected)) {
				t.Errorf("ClusterRole = %+v", got)
			}
		}},
		{"other ClusterRole gets its rules, labels and annotation back", narrowed(nil), func(t *testing.T, c *fake.Clientset) {
			got, _ := c.RbacV1().ClusterRoles().Get(context.Background(), ClusterRoleClusterAdmin, metav1.GetOptions{})
			wantRules := append([]rbacv1.PolicyRule{podReader}, adminRules...)
			wantLabels := map[string]string{"team": "a", BootstrappingLabelKey: BootstrappingLabelValue}
			if !apiequality.Semantic.DeepEqual(got.Rules, wantRules) || !maps.Equal(got.Labels, wantLabels) ||
				!maps.Equal(got.Annotations, admin.Annotations) {
				t.Errorf("ClusterRole = %+v", got)
			}
		}},
		{"protected RoleBinding is left alone", bobOnly(protected), func(t *testing.T, c *fake.Clientset) {
			got, _ := c.RbacV1().RoleBindings(NamespaceDefault).Get(context.Background(), RoleBindingAliceConfigMaps, metav1.GetOptions{})
			if !apiequality.Semantic.DeepEqual(got, bobOnly(protected)) {
				t.Errorf("RoleBinding = %+v", got)
			}
		}},
		{"other RoleBinding gets its subject back", bobOnly(nil), func(t *testing.T, c *fake.Clientset) {
			got, _ := c.RbacV1().RoleBindings(NamespaceDefault).Get(context.Background(), RoleBindingAliceConfigMaps, metav1.GetOptions{})
			if want := []rbacv1.Subject{userSubject(UserBob), userSubject(UserAlice)}; !slices.Equal(got.Subjects, want) {
				t.Errorf("subjects = %+v, want %+v", got.Subjects, want)
			}
		}},
		{"binding to another role is recreated", &otherRoleRef, func(t *testing.T, c *fake.Clientset) {
			got, _ := c.RbacV1().ClusterRoleBindings().Get(context.Background(), ClusterRoleDiscovery, metav1.GetOptions{})
			want := clusterRoleBindingToGroups(ClusterRoleDiscovery, user.AllAuthenticated)
			if got.RoleRef != want.RoleRef || !slices.Equal(got.Subjects, want.Subjects) {
				t.Errorf("ClusterRoleBinding = %+v, want %+v", got, want)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset(tt.existing)
			if err := EnsurePolicy(context.Background(), client, BootstrapPolicy()); err != nil {
				t.Fatalf("EnsurePolicy: %v", err)
			}
			tt.check(t, client)
		})
	}
}

func TestEnsurePolicyErrors(t *testing.T) {
	gr := schema.GroupResource{Group: rbacv1.GroupName, Resource: "rolebindings"}
	tests := []struct {
		name     string
		failures int32 // creates of rolebindings that fail before one succeeds; -1 for always
		err      error
		timeout  time.Duration
		wantErr  string
		minCalls int32
		// cancelAfter ends the context from inside the n-th create call (0: never), so "gives
		// up" does not depend on how fast a loaded machine gets there.
		cancelAfter int32
	}{
		{name: "transient errors are retried", failures: 3, err: apierrors.NewServerTimeout(gr, "create", 1), timeout: 10 * time.Second, minCalls: 4},
		{name: "missing namespace is retried", failures: 1, err: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, NamespaceDefault), timeout: 10 * time.Second, minCalls: 2},
		{name: "invalid objects fail at once", failures: -1, err: apierrors.NewInvalid(schema.GroupKind{Group: rbacv1.GroupName, Kind: "RoleBinding"}, "x", field.ErrorList{field.Required(field.NewPath("roleRef"), "")}), timeout: 10 * time.Second, wantErr: "is invalid", minCalls: 1},
		{name: "gives up when the context ends", failures: -1, err: apierrors.NewServiceUnavailable("etcd is down"), timeout: time.Minute, wantErr: "etcd is down", minCalls: 2, cancelAfter: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client := fake.NewClientset()
			var calls atomic.Int32
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			client.PrependReactor("create", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
				n := calls.Add(1)
				if n == tt.cancelAfter {
					cancel()
				}
				if tt.failures < 0 || n <= tt.failures {
					return true, nil, tt.err
				}
				return false, nil, nil
			})
			err := EnsurePolicy(ctx, client, BootstrapPolicy())
			if tt.wantErr == "" && err != nil {
				t.Fatalf("EnsurePolicy: %v", err)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), RoleBindingAliceConfigMaps) {
					t.Fatalf("EnsurePolicy error = %v, want one naming the binding and %q", err, tt.wantErr)
				}
				if !errors.Is(err, tt.err) {
					t.Errorf("error %v does not wrap %v", err, tt.err)
				}
			}
			if got := calls.Load(); got < tt.minCalls || (tt.failures >= 0 && got != tt.failures+1) {
				t.Errorf("%d create calls, want %d (at least %d)", got, tt.failures+1, tt.minCalls)
			}
		})
	}
}

// TestEnsurePolicyFailureLeavesOthers: the objects are reconciled independently, so one that
// cannot be created is reported by name and every other object is still created.
func TestEnsurePolicyFailureLeavesOthers(t *testing.T) {
	tests := []struct {
		kind     string
		resource string
		failName string
	}{
		{"ClusterRole", "clusterroles", ClusterRoleDiscovery},
		{"ClusterRoleBinding", "clusterrolebindings", ClusterRolePublicInfoViewer},
		{"Role", "roles", RoleConfigMapEditor},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			client := fake.NewClientset()
			invalid := apierrors.NewInvalid(schema.GroupKind{Group: rbacv1.GroupName, Kind: tt.resource}, tt.failName, field.ErrorList{field.Required(field.NewPath("rules"), "")})
			client.PrependReactor("create", tt.resource, func(a k8stesting.Action) (bool, runtime.Object, error) {
				obj := a.(k8stesting.CreateAction).GetObject().(metav1.Object)
				if obj.GetName() == tt.failName {
					return true, nil, invalid
				}
				return false, nil, nil
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err := EnsurePolicy(ctx, client, BootstrapPolicy())
			if err == nil || !errors.Is(err, invalid) || !strings.Contains(err.Error(), "reconciling "+tt.kind+" ") {
				t.Fatalf("EnsurePolicy error = %v, want the invalid %s %q", err, tt.resource, tt.failName)
			}
			p := BootstrapPolicy()
			type object struct{ resource, namespace, name string }
			var want []object
			for _, o := range p.ClusterRoles {
				want = append(want, object{"clusterroles", "", o.Name})
			}
			for _, o := range p.ClusterRoleBindings {
				want = append(want, object{"clusterrolebindings", "", o.Name})
			}
			for _, o := range p.Roles {
				want = append(want, object{"roles", o.Namespace, o.Name})
			}
			for _, o := range p.RoleBindings {
				want = append(want, object{"rolebindings", o.Namespace, o.Name})
			}
			rbac := client.RbacV1()
			for _, o := range want {
				var getErr error
				switch o.resource {
				case "clusterroles":
					_, getErr = rbac.ClusterRoles().Get(ctx, o.name, metav1.GetOptions{})
				case "clusterrolebindings":
					_, getErr = rbac.ClusterRoleBindings().Get(ctx, o.name, metav1.GetOptions{})
				case "roles":
					_, getErr = rbac.Roles(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
				case "rolebindings":
					_, getErr = rbac.RoleBindings(o.namespace).Get(ctx, o.name, metav1.GetOptions{})
				}
				failed := o.resource == tt.resource && o.name == tt.failName
				switch {
				case failed && !apierrors.IsNotFound(getErr):
					t.Errorf("%s %s exists or cannot be read (%v); its create failed", o.resource, o.name, getErr)
				case !failed && getErr != nil:
					t.Errorf("%s %s/%s was not created: %v", o.resource, o.namespace, o.name, getErr)
				}
			}
		})
	}
}
