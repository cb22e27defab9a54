package role

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

func object() *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "ci", ResourceVersion: "3", Labels: map[string]string{"team": "a"},
			CreationTimestamp: metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))},
		Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: rbacv1.Resource("roles"), Singular: "role", Namespaced: true,
		New: &rbacv1.Role{}, NewList: &rbacv1.RoleList{},
	})
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	if errs := s.Validate(context.Background(), object()); len(errs) != 0 {
		t.Errorf("valid object rejected: %v", errs)
	}
	bad := object()
	bad.Rules = append(bad.Rules, rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}})
	if got, want := testutil.ErrorFields(s.Validate(context.Background(), bad)), []string{"rules[1].nonResourceURLs: Invalid value"}; !slices.Equal(got, want) {
		t.Errorf("errors = %q, want %q", got, want)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, object(), "Role", true, fields.Set{"metadata.name": "x", "metadata.namespace": "ci"})
}

func TestTable(t *testing.T) {
	o := object()
	list := &rbacv1.RoleList{ListMeta: metav1.ListMeta{ResourceVersion: "4"}, Items: []rbacv1.Role{*o}}
	testutil.CheckTable(t, tableConvertor, o, list, []string{"Name", "Created At"}, []any{o.Name, o.CreationTimestamp.UTC().Format(time.RFC3339)})
}
