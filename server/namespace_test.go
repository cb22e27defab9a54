package server_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/kubewalk/kubewalk/server"
)

// nsWait bounds every wait in the namespace tests: the namespace controller waits a grace
// period, then deletes content and finalizes; on a loaded 2-core machine that stays well
// below it.
const nsWait = time.Minute

// TestNamespaceDeletion deletes a namespace holding a configmap and a RoleBinding that grants
// bob access: the namespace goes Terminating, refuses new objects, loses its contents, is
// gone once the last finalizer is removed, and a namespace of the same name created again
// does not give bob his old grant back.
func TestNamespaceDeletion(t *testing.T) {
	s := startServer(t)
	admin, bob := clientFor(t, s, "admin"), clientFor(t, s, "bob")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	const name = "x"
	ns, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		t.Fatalf("new namespace spec.finalizers = %v, want %q", ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
	fillNamespace(ctx, t, admin, name)
	waitBobAccess(ctx, t, bob, name, true)

	// A second finalizer that no controller owns keeps the namespace Terminating after the
	// controller is done, so every stage can be observed without racing it.
	const hold = corev1.FinalizerName("example.com/hold")
	ns.Spec.Finalizers = append(ns.Spec.Finalizers, hold)
	if ns, err = admin.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("add finalizer through namespaces/finalize: %v", err)
	}
	if !slices.Contains(ns.Spec.Finalizers, hold) {
		t.Fatalf("after finalize spec.finalizers = %v, want %q", ns.Spec.Finalizers, hold)
	}

	if err := admin.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	ns, err = admin.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("namespace gone at once, want it Terminating: %v", err)
	}
	if ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("after delete: deletionTimestamp=%v phase=%q, want set and Terminating", ns.DeletionTimestamp, ns.Status.Phase)
	}

	// NamespaceLifecycle refuses new objects in a Terminating namespace.
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, nsWait, true, func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().ConfigMaps(name).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "late-"}}, metav1.CreateOptions{})
		return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "being terminated"), nil
	})
	if err != nil {
		t.Fatalf("create in a Terminating namespace was never refused as being terminated: %v", err)
	}

	// The controller deletes the contents, then removes its own finalizer only.
	var last string
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, nsWait, true, func(ctx context.Context) (bool, error) {
		ns, err := admin.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		n := contentCount(ctx, t, admin, name)
		last = strings.Join([]string{string(ns.Status.Phase), strings.Join(finalizerNames(ns), ","), n}, " ")
		return n == "0/0/0" && slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{hold}), nil
	})
	if err != nil {
		t.Fatalf("contents not deleted or kubernetes finalizer not removed (phase, finalizers, configmaps/roles/rolebindings: %s): %v", last, err)
	}

	// Removing the last finalizer removes the namespace.
	ns, err = admin.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Spec.Finalizers = nil
	if _, err := admin.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("remove last finalizer: %v", err)
	}
	waitNamespaceGone(ctx, t, admin, name)

	// Recreated, the namespace is empty and bob's old grant does not come back.
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("recreate: %v", err)
	}
	if n := contentCount(ctx, t, admin, name); n != "0/0/0" {
		t.Fatalf("recreated namespace holds configmaps/roles/rolebindings %s, want none", n)
	}
	waitBobAccess(ctx, t, bob, name, false)
	sar, err := admin.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{
			User:               server.BobUser,
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: name, Verb: "get", Resource: "configmaps"},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sar.Status.Allowed {
		t.Fatalf("bob may still get configmaps in the recreated namespace: %+v", sar.Status)
	}
}

// TestNamespaceDeletionWithoutHold is the common path: delete, and the namespace with its
// contents is gone without anyone touching a finalizer.
func TestNamespaceDeletionWithoutHold(t *testing.T) {
	s := startServer(t)
	admin := clientFor(t, s, "admin")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	const name = "y"
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	fillNamespace(ctx, t, admin, name)
	if err := admin.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	waitNamespaceGone(ctx, t, admin, name)
	if n := contentCount(ctx, t, admin, name); n != "0/0/0" {
		t.Fatalf("deleted namespace left configmaps/roles/rolebindings %s", n)
	}
}

// TestNamespaceSubresources checks discovery lists namespaces/status and namespaces/finalize,
// namespaces offer no deletecollection, and status updates obey the phase rule.
func TestNamespaceSubresources(t *testing.T) {
	s := startServer(t)
	admin := clientFor(t, s, "admin")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	list, err := admin.Discovery().ServerResourcesForGroupVersion("v1")
	if err != nil {
		t.Fatal(err)
	}
	verbs := map[string][]string{}
	for _, r := range list.APIResources {
		verbs[r.Name] = r.Verbs
	}
	if got := verbs["namespaces/finalize"]; !slices.Equal(got, []string{"update"}) {
		t.Errorf("namespaces/finalize verbs = %v, want [update]", got)
	}
	if got := verbs["namespaces/status"]; !slices.Contains(got, "update") || !slices.Contains(got, "get") {
		t.Errorf("namespaces/status verbs = %v, want get and update", got)
	}
	if got := verbs["namespaces"]; slices.Contains(got, "deletecollection") || !slices.Contains(got, "delete") {
		t.Errorf("namespaces verbs = %v, want delete and no deletecollection", got)
	}

	ns, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "z"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns.Status.Phase = corev1.NamespaceTerminating
	if _, err := admin.CoreV1().Namespaces().UpdateStatus(ctx, ns, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("status Terminating without deletionTimestamp: want Invalid, got %v", err)
	}
	ns.Status.Phase = corev1.NamespaceActive
	ns.Spec.Finalizers = nil
	got, err := admin.CoreV1().Namespaces().UpdateStatus(ctx, ns, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("status update: %v", err)
	}
	if !slices.Equal(got.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) {
		t.Errorf("status update changed spec.finalizers to %v", got.Spec.Finalizers)
	}
	got.Spec.Finalizers = nil
	got, err = admin.CoreV1().Namespaces().Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if !slices.Equal(got.Spec.Finalizers, []corev1.FinalizerName{corev1.FinalizerKubernetes}) {
		t.Errorf("an update of the namespace itself changed spec.finalizers to %v", got.Spec.Finalizers)
	}
}

// fillNamespace creates a configmap, a Role and a RoleBinding granting bob that Role in ns.
func fillNamespace(ctx context.Context, t *testing.T, admin kubernetes.Interface, ns string) {
	t.Helper()
	if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"k": "v"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "configmap-reader"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bob-reads"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "configmap-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: server.BobUser}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// contentCount returns "configmaps/roles/rolebindings" counted in ns.
func contentCount(ctx context.Context, t *testing.T, admin kubernetes.Interface, ns string) string {
	t.Helper()
	cms, err := admin.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	roles, err := admin.RbacV1().Roles(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bindings, err := admin.RbacV1().RoleBindings(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d/%d/%d", len(cms.Items), len(roles.Items), len(bindings.Items))
}

func finalizerNames(ns *corev1.Namespace) []string {
	var out []string
	for _, f := range ns.Spec.Finalizers {
		out = append(out, string(f))
	}
	return out
}

// waitBobAccess waits until bob may (or may no longer) list configmaps in ns: the authorizer
// reads bindings through an informer, so a change arrives by watch.
func waitBobAccess(ctx context.Context, t *testing.T, bob kubernetes.Interface, ns string, want bool) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, nsWait, true, func(ctx context.Context) (bool, error) {
		_, last = bob.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
		if want {
			return last == nil, nil
		}
		return apierrors.IsForbidden(last), nil
	})
	if err != nil {
		t.Fatalf("bob's access to configmaps in %s never became %v (last: %v)", ns, want, last)
	}
}

// waitNamespaceGone waits until getting ns is NotFound.
func waitNamespaceGone(ctx context.Context, t *testing.T, admin kubernetes.Interface, ns string) {
	t.Helper()
	var last *corev1.Namespace
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, nsWait, true, func(ctx context.Context) (bool, error) {
		got, err := admin.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		last = got
		return false, err
	})
	if err != nil {
		t.Fatalf("namespace %s not gone (last seen: %+v): %v", ns, last, err)
	}
}
