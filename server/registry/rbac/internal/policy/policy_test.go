package policy

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

var (
	readPods   = rbacv1.PolicyRule{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	healthz    = rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}
	user       = rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}
	group      = rbacv1.Subject{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "devs"}
	sa         = rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "ci", Name: "builder"}
	clusterRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	roleRef    = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "pod-reader"}
)

func TestRoleValidate(t *testing.T) {
	typer := testutil.Scheme(t)
	roles, clusterRoles := NewRoleStrategy(typer, true), NewRoleStrategy(typer, false)
	role := func(rules ...rbacv1.PolicyRule) *rbacv1.Role {
		return &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pod-reader", Namespace: "ci"}, Rules: rules}
	}
	clusterRole := func(rules ...rbacv1.PolicyRule) *rbacv1.ClusterRole {
		return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "system:view"}, Rules: rules}
	}
	tests := []struct {
		name string
		s    RoleStrategy
		obj  runtime.Object
		want []string
	}{
		{"role", roles, role(readPods), []string{}},
		{"role without rules", roles, role(), []string{}},
		{"no verbs", roles, role(rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}}),
			[]string{"rules[0].verbs: Required value"}},
		{"no groups or resources", roles, role(rbacv1.PolicyRule{Verbs: []string{"get"}}),
			[]string{"rules[0].apiGroups: Required value", "rules[0].resources: Required value"}},
		{"non-resource URL in role", roles, role(readPods, healthz), []string{"rules[1].nonResourceURLs: Invalid value"}},
		{"role name with slash", roles, func() runtime.Object { r := role(); r.Name = "a/b"; return r }(),
			[]string{"metadata.name: Invalid value"}},
		{"cluster role", clusterRoles, clusterRole(readPods, healthz), []string{}},
		{"both resources and URLs", clusterRoles, clusterRole(rbacv1.PolicyRule{Verbs: []string{"get"},
			Resources: []string{"pods"}, NonResourceURLs: []string{"/metrics"}}),
			[]string{"rules[0].nonResourceURLs: Invalid value"}},
		{"empty aggregation rule", clusterRoles, func() runtime.Object {
			r := clusterRole()
			r.AggregationRule = &rbacv1.AggregationRule{}
			return r
		}(), []string{"aggregationRule.clusterRoleSelectors: Required value"}},
		{"cluster role with namespace", clusterRoles, func() runtime.Object {
			r := clusterRole()
			r.Namespace = "ci"
			return r
		}(), []string{"metadata.namespace: Forbidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(tc.s.Validate(context.Background(), tc.obj))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBindingValidate(t *testing.T) {
	typer := testutil.Scheme(t)
	bindings, clusterBindings := NewBindingStrategy(typer, true, "Role", "ClusterRole"), NewBindingStrategy(typer, false, "ClusterRole")
	rb := func(ref rbacv1.RoleRef, subjects ...rbacv1.Subject) *rbacv1.RoleBinding {
		return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read", Namespace: "ci"}, RoleRef: ref, Subjects: subjects}
	}
	crb := func(ref rbacv1.RoleRef, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
		return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "read"}, RoleRef: ref, Subjects: subjects}
	}
	tests := []struct {
		name string
		s    BindingStrategy
		obj  runtime.Object
		want []string
	}{
		{"role binding", bindings, rb(roleRef, user, group, sa), []string{}},
		{"role binding to cluster role", bindings, rb(clusterRef, rbacv1.Subject{Kind: "ServiceAccount", Name: "default"}), []string{}},
		{"no role ref", bindings, rb(rbacv1.RoleRef{}),
			[]string{"roleRef.apiGroup: Unsupported value", "roleRef.kind: Unsupported value", "roleRef.name: Required value"}},
		{"wrong ref group", bindings, rb(rbacv1.RoleRef{APIGroup: "example.com", Kind: "Role", Name: "r"}),
			[]string{"roleRef.apiGroup: Unsupported value"}},
		{"bad subject kind", bindings, rb(roleRef, rbacv1.Subject{Kind: "Robot", Name: "r2d2"}),
			[]string{"subjects[0].kind: Unsupported value"}},
		{"subject without name", bindings, rb(roleRef, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName}),
			[]string{"subjects[0].name: Required value"}},
		{"service account with api group", bindings, rb(roleRef, rbacv1.Subject{Kind: "ServiceAccount", APIGroup: "rbac.authorization.k8s.io", Name: "x"}),
			[]string{"subjects[0].apiGroup: Unsupported value"}},
		{"cluster binding", clusterBindings, crb(clusterRef, user, sa), []string{}},
		{"cluster binding to role", clusterBindings, crb(roleRef), []string{"roleRef.kind: Unsupported value"}},
		{"cluster binding service account without namespace", clusterBindings, crb(clusterRef, rbacv1.Subject{Kind: "ServiceAccount", Name: "x"}),
			[]string{"subjects[0].namespace: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(tc.s.Validate(context.Background(), tc.obj))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBindingDefaultsAndImmutableRoleRef(t *testing.T) {
	s := NewBindingStrategy(testutil.Scheme(t), true, "Role", "ClusterRole")
	b := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read", Namespace: "ci", ResourceVersion: "1"},
		RoleRef:    rbacv1.RoleRef{Kind: "Role", Name: "pod-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "User", Name: "alice"}, {Kind: "ServiceAccount", Name: "builder"}},
	}
	s.PrepareForCreate(context.Background(), b)
	if b.RoleRef.APIGroup != rbacv1.GroupName || b.Subjects[0].APIGroup != rbacv1.GroupName || b.Subjects[1].APIGroup != "" {
		t.Errorf("after PrepareForCreate roleRef=%+v subjects=%+v", b.RoleRef, b.Subjects)
	}
	if errs := s.Validate(context.Background(), b); len(errs) != 0 {
		t.Errorf("defaulted binding invalid: %v", errs)
	}

	changed := b.DeepCopy()
	changed.RoleRef.Name = "admin"
	changed.Subjects = append(changed.Subjects, group)
	if got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), changed, b)); !slices.Equal(got, []string{"roleRef: Invalid value"}) {
		t.Errorf("errors = %q, want roleRef immutable", got)
	}
	subjectsOnly := b.DeepCopy()
	subjectsOnly.Subjects = append(subjectsOnly.Subjects, group)
	if errs := s.ValidateUpdate(context.Background(), subjectsOnly, b); len(errs) != 0 {
		t.Errorf("subject change rejected: %v", errs)
	}
}

func TestTables(t *testing.T) {
	created := metav1.NewTime(time.Date(2024, 5, 1, 12, 0, 0, 0, time.FixedZone("x", 3600)))
	r := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view", CreationTimestamp: created}}
	testutil.CheckTable(t, RoleTable[*rbacv1.ClusterRole](rbacv1.Resource("clusterroles")), r,
		&rbacv1.ClusterRoleList{Items: []rbacv1.ClusterRole{*r}},
		[]string{"Name", "Created At"}, []any{"view", "2024-05-01T11:00:00Z"})

	b := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "read", Namespace: "ci", CreationTimestamp: metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))},
		RoleRef:    clusterRef,
		Subjects:   []rbacv1.Subject{user, group, sa, {Kind: rbacv1.UserKind, Name: "bob"}},
	}
	testutil.CheckTable(t, BindingTable[*rbacv1.RoleBinding](rbacv1.Resource("rolebindings")), b,
		&rbacv1.RoleBindingList{Items: []rbacv1.RoleBinding{*b}},
		[]string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"},
		[]any{"read", "ClusterRole/view", "10d", "alice, bob", "devs", "ci/builder"})
}

func TestWrongTypePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !reflect.DeepEqual(r, "policy: *v1.Role is not a RoleBinding or ClusterRoleBinding") {
			t.Errorf("recover() = %v", r)
		}
	}()
	asBinding(&rbacv1.Role{})
}
