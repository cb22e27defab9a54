package apis

import (
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decode decodes a JSON body the way the genericapiserver decodes a request: with the scheme's
// codecs, to the hub (internal) version of obj's group, defaulting on the way.
func decode(t *testing.T, body string, into runtime.Object) {
	t.Helper()
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	hub := schema.GroupVersion{Group: RBACV1.Group, Version: runtime.APIVersionInternal}
	obj, _, err := s.Codecs.DecoderToVersion(s.Codecs.UniversalDeserializer(), hub).Decode([]byte(body), nil, into)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if obj != into {
		t.Fatalf("decoded into a new %T", obj)
	}
}

func TestRBACDefaultsAtDecode(t *testing.T) {
	const subjects = `"subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g"},` +
		`{"kind":"ServiceAccount","name":"sa","namespace":"ns"},{"kind":"User","apiGroup":"example.com","name":"other"},` +
		`{"kind":"Robot","name":"r2"}]`
	wantSubjects := []rbacv1.Subject{
		{Kind: "User", APIGroup: rbacv1.GroupName, Name: "u"},
		{Kind: "Group", APIGroup: rbacv1.GroupName, Name: "g"},
		{Kind: "ServiceAccount", Name: "sa", Namespace: "ns"},
		{Kind: "User", APIGroup: "example.com", Name: "other"},
		{Kind: "Robot", Name: "r2"},
	}
	checkSubjects := func(t *testing.T, got []rbacv1.Subject) {
		t.Helper()
		if len(got) != len(wantSubjects) {
			t.Fatalf("subjects = %+v", got)
		}
		for i := range got {
			if got[i] != wantSubjects[i] {
				t.Errorf("subject %d = %+v, want %+v", i, got[i], wantSubjects[i])
			}
		}
	}
	tests := []struct {
		name      string
		roleRef   string
		wantGroup string
	}{
		{"empty apiGroup", `{"apiGroup":"","kind":"ClusterRole","name":"cluster-admin"}`, rbacv1.GroupName},
		{"no apiGroup", `{"kind":"ClusterRole","name":"cluster-admin"}`, rbacv1.GroupName},
		{"rbac apiGroup", `{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}`, rbacv1.GroupName},
		{"other apiGroup kept for validation to refuse", `{"apiGroup":"example.com","kind":"Role","name":"r"}`, "example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := &rbacv1.RoleBinding{}
			decode(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"b","namespace":"ns"},`+
				`"roleRef":`+tt.roleRef+`,`+subjects+`}`, rb)
			if rb.RoleRef.APIGroup != tt.wantGroup {
				t.Errorf("RoleBinding roleRef.apiGroup = %q, want %q", rb.RoleRef.APIGroup, tt.wantGroup)
			}
			checkSubjects(t, rb.Subjects)

			crb := &rbacv1.ClusterRoleBinding{}
			decode(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"b"},`+
				`"roleRef":`+tt.roleRef+`,`+subjects+`}`, crb)
			if crb.RoleRef.APIGroup != tt.wantGroup {
				t.Errorf("ClusterRoleBinding roleRef.apiGroup = %q, want %q", crb.RoleRef.APIGroup, tt.wantGroup)
			}
			checkSubjects(t, crb.Subjects)
		})
	}

	t.Run("lists", func(t *testing.T) {
		item := `{"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"view"},` + subjects + `}`
		rbl := &rbacv1.RoleBindingList{}
		decode(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBindingList","items":[`+item+`]}`, rbl)
		crbl := &rbacv1.ClusterRoleBindingList{}
		decode(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBindingList","items":[`+item+`]}`, crbl)
		if len(rbl.Items) != 1 || len(crbl.Items) != 1 {
			t.Fatalf("items: %d, %d", len(rbl.Items), len(crbl.Items))
		}
		if rbl.Items[0].RoleRef.APIGroup != rbacv1.GroupName || crbl.Items[0].RoleRef.APIGroup != rbacv1.GroupName {
			t.Errorf("list items not defaulted: %+v, %+v", rbl.Items[0].RoleRef, crbl.Items[0].RoleRef)
		}
		checkSubjects(t, rbl.Items[0].Subjects)
		checkSubjects(t, crbl.Items[0].Subjects)
	})

	t.Run("roles have no defaults", func(t *testing.T) {
		r := &rbacv1.Role{}
		decode(t, `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},"rules":[{"verbs":["get"],"resources":["pods"]}]}`, r)
		if len(r.Rules) != 1 || r.Rules[0].APIGroups != nil {
			t.Errorf("rules = %+v", r.Rules)
		}
	})
}
