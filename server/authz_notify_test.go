package server_test

import (
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestOnAuthorizationChange: before the authz phase there is nothing to follow; once serving,
// each RBAC change calls the function after the authorizer's caches hold it, so a
// SubjectAccessReview asked on the call sees the new binding — with no polling.
func TestOnAuthorizationChange(t *testing.T) {
	if _, err := newServer(t).OnAuthorizationChange(func() {}); err == nil {
		t.Error("a server that ran no phase offered RBAC changes")
	}
	s := startServer(t)
	changed := make(chan struct{}, 1)
	remove, err := s.OnAuthorizationChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	admin := clientFor(t, s, "admin")
	ctx := t.Context()
	allowed := func() bool {
		sar := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{User: "carol",
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps", Namespace: "default"}}}
		got, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return got.Status.Allowed
	}
	if allowed() {
		t.Fatal("carol may list configmaps before any binding")
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "carol-cm"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}}}
	if _, err := admin.RbacV1().Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "carol-cm"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "carol-cm"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "carol"}}}
	if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Each call may follow the Role or the binding (or replay what was cached): ask on each
	// until the authorizer allows, within a bound.
	timeout := time.After(30 * time.Second)
	for {
		select {
		case <-changed:
			if allowed() {
				return
			}
		case <-timeout:
			t.Fatal("no call after which the authorizer sees carol's binding")
		}
	}
}
