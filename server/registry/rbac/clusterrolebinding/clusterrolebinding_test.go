package clusterrolebinding

import (
	"context"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func object() *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "x", ResourceVersion: "3", Labels: map[string]string{"team": "a"},
			CreationTimestamp: metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "devs"}, {Kind: "ServiceAccount", Namespace: "ci", Name: "builder"}},
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: rbacv1.Resource("clusterrolebindings"), Singular: "clusterrolebinding", Namespaced: false,
		New: &rbacv1.ClusterRoleBinding{}, NewList: &rbacv1.ClusterRoleBindingList{},
	})
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	if errs := s.Validate(context.Background(), object()); len(errs) != 0 {
		t.Errorf("valid object rejected: %v", errs)
	}
	bad := object()
	bad.RoleRef.Kind = "Role"
	if got, want := testutil.ErrorFields(s.Validate(context.Background(), bad)), []string{"roleRef.kind: Unsupported value"}; !slices.Equal(got, want) {
		t.Errorf("errors = %q, want %q", got, want)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, object(), "ClusterRoleBinding", false, fields.Set{"metadata.name": "x"})
}

func TestTable(t *testing.T) {
	o := object()
	list := &rbacv1.ClusterRoleBindingList{ListMeta: metav1.ListMeta{ResourceVersion: "4"}, Items: []rbacv1.ClusterRoleBinding{*o}}
	testutil.CheckTable(t, tableConvertor, o, list, []string{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}, []any{"x", "ClusterRole/view", "10d", "", "devs", "ci/builder"})
}
