package namespace

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "5"}}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, status, finalize, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.store, g, testutil.StoreWant{
		Resource: resource, Singular: "namespace", Namespaced: false, ShortNames: []string{"ns"},
		New: &corev1.Namespace{}, NewList: &corev1.NamespaceList{},
	})
	gc, ok := r.store.DeleteStrategy.(rest.GarbageCollectionDeleteStrategy)
	if !ok || gc.DefaultGarbageCollectionPolicy(context.Background()) != rest.Unsupported {
		t.Errorf("namespace deletion must not wait on garbage collection finalizers")
	}
	if _, ok := any(r).(rest.CollectionDeleter); ok {
		t.Errorf("namespaces must not serve deletecollection: it would skip termination")
	}
	if !r.store.ReturnDeletedObject || r.store.ShouldDeleteDuringUpdate == nil {
		t.Errorf("store must return the deleted object and check spec.finalizers before deleting on update")
	}
	// The subresources update through copies of the store with their own strategies; the
	// main store keeps its own.
	if status.store == r.store || finalize.store == r.store {
		t.Errorf("status and finalize must use copies of the namespaces store")
	}
	if _, ok := r.store.UpdateStrategy.(strategy); !ok {
		t.Errorf("namespaces update strategy = %T", r.store.UpdateStrategy)
	}
	if _, ok := status.store.UpdateStrategy.(statusStrategy); !ok {
		t.Errorf("status update strategy = %T", status.store.UpdateStrategy)
	}
	if _, ok := finalize.store.UpdateStrategy.(finalizeStrategy); !ok {
		t.Errorf("finalize update strategy = %T", finalize.store.UpdateStrategy)
	}
	for name, s := range map[string]any{"status": status, "finalize": finalize} {
		if _, ok := s.(rest.Creater); ok {
			t.Errorf("%s must not serve create", name)
		}
	}
}

func TestPrepareForCreate(t *testing.T) {
	tests := []struct {
		name string
		in   []corev1.FinalizerName
		want []corev1.FinalizerName
	}{
		{"none", nil, []corev1.FinalizerName{"kubernetes"}},
		{"other kept", []corev1.FinalizerName{"example.com/x"}, []corev1.FinalizerName{"example.com/x", "kubernetes"}},
		{"already there", []corev1.FinalizerName{"kubernetes"}, []corev1.FinalizerName{"kubernetes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ns := namespace("team-a")
			ns.Status.Phase = corev1.NamespaceTerminating
			ns.Spec.Finalizers = tc.in
			s := newStrategy(testutil.Scheme(t))
			s.PrepareForCreate(context.Background(), ns)
			s.Canonicalize(ns)
			if ns.Status.Phase != corev1.NamespaceActive {
				t.Errorf("phase = %q, want Active", ns.Status.Phase)
			}
			if ns.Labels[corev1.LabelMetadataName] != "team-a" {
				t.Errorf("labels = %v, want the name label", ns.Labels)
			}
			if !slices.Equal(ns.Spec.Finalizers, tc.want) {
				t.Errorf("spec.finalizers = %v, want %v", ns.Spec.Finalizers, tc.want)
			}
		})
	}
}

// TestPrepareForUpdate checks what each of the three update paths may change: the main
// resource neither status nor spec.finalizers, status only the status, finalize only the spec.
func TestPrepareForUpdate(t *testing.T) {
	scheme := testutil.Scheme(t)
	main := newStrategy(scheme)
	tests := []struct {
		name           string
		strategy       rest.RESTUpdateStrategy
		wantPhase      corev1.NamespacePhase
		wantFinalizers []corev1.FinalizerName
		wantLabel      string
	}{
		{"namespaces", main, corev1.NamespaceActive, []corev1.FinalizerName{"kubernetes"}, "new"},
		{"namespaces/status", statusStrategy{main}, corev1.NamespaceTerminating, []corev1.FinalizerName{"kubernetes"}, "new"},
		{"namespaces/finalize", finalizeStrategy{main}, corev1.NamespaceActive, []corev1.FinalizerName{"example.com/x"}, "new"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := namespace("a")
			old.Status.Phase = corev1.NamespaceActive
			old.Spec.Finalizers = []corev1.FinalizerName{"kubernetes"}
			old.Labels = map[string]string{"l": "old"}
			ns := namespace("a")
			ns.Status.Phase = corev1.NamespaceTerminating
			ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/x"}
			ns.Labels = map[string]string{"l": "new"}
			tc.strategy.PrepareForUpdate(context.Background(), ns, old)
			if ns.Status.Phase != tc.wantPhase || !slices.Equal(ns.Spec.Finalizers, tc.wantFinalizers) || ns.Labels["l"] != tc.wantLabel {
				t.Errorf("after update phase=%q finalizers=%v label=%q, want %q %v %q",
					ns.Status.Phase, ns.Spec.Finalizers, ns.Labels["l"], tc.wantPhase, tc.wantFinalizers, tc.wantLabel)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	withFinalizers := func(f ...corev1.FinalizerName) *corev1.Namespace {
		ns := namespace("a")
		ns.Spec.Finalizers = f
		return ns
	}
	tests := []struct {
		name string
		ns   *corev1.Namespace
		want []string
	}{
		{"valid", namespace("team-a"), []string{}},
		{"dots are not a DNS label", namespace("team.a"), []string{"metadata.name: Invalid value"}},
		{"namespace set", func() *corev1.Namespace { ns := namespace("a"); ns.Namespace = "b"; return ns }(),
			[]string{"metadata.namespace: Forbidden"}},
		{"bad finalizer", withFinalizers("bad finalizer"), []string{"spec.finalizers[0]: Invalid value", "spec.finalizers[0]: Invalid value"}},
		{"standard finalizers", withFinalizers("kubernetes", "orphan", "foregroundDeletion", "example.com/x"), []string{}},
		{"unqualified non-standard finalizer", withFinalizers("kubernetes", "mine"), []string{"spec.finalizers[1]: Invalid value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(s.Validate(context.Background(), tc.ns))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestValidateUpdate checks the status rule (phase follows the deletion timestamp) and that
// finalize validates the new finalizer names.
func TestValidateUpdate(t *testing.T) {
	main := newStrategy(testutil.Scheme(t))
	now := metav1.Now()
	ns := func(phase corev1.NamespacePhase, deleted bool, finalizers ...corev1.FinalizerName) *corev1.Namespace {
		n := namespace("a")
		n.Status.Phase = phase
		n.Spec.Finalizers = finalizers
		if deleted {
			n.DeletionTimestamp = &now
		}
		return n
	}
	tests := []struct {
		name     string
		strategy rest.RESTUpdateStrategy
		old, new *corev1.Namespace
		want     []string
	}{
		{"status Active", statusStrategy{main}, ns(corev1.NamespaceActive, false), ns(corev1.NamespaceActive, false), []string{}},
		{"status Terminating without deletion", statusStrategy{main}, ns(corev1.NamespaceActive, false), ns(corev1.NamespaceTerminating, false),
			[]string{"status.Phase: Invalid value"}},
		{"status Terminating when deleted", statusStrategy{main}, ns(corev1.NamespaceActive, true), ns(corev1.NamespaceTerminating, true), []string{}},
		{"status Active when deleted", statusStrategy{main}, ns(corev1.NamespaceTerminating, true), ns(corev1.NamespaceActive, true),
			[]string{"status.Phase: Invalid value"}},
		{"finalize removes kubernetes", finalizeStrategy{main}, ns(corev1.NamespaceTerminating, true, "kubernetes"), ns(corev1.NamespaceTerminating, true), []string{}},
		{"finalize adds a bad name", finalizeStrategy{main}, ns(corev1.NamespaceActive, false), ns(corev1.NamespaceActive, false, "mine"),
			[]string{"spec.finalizers[0]: Invalid value"}},
		{"update renames", main, ns(corev1.NamespaceActive, false), func() *corev1.Namespace {
			n := ns(corev1.NamespaceActive, false)
			n.Name = "b"
			return n
		}(), []string{"metadata.name: Invalid value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(tc.strategy.ValidateUpdate(context.Background(), tc.new, tc.old))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMarkTerminating(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	earlier := metav1.NewTime(now.Add(-time.Hour))
	ns := namespace("a")
	ns.Status.Phase = corev1.NamespaceActive
	ns.Spec.Finalizers = []corev1.FinalizerName{"kubernetes"}
	markTerminating(ns, now)
	if !ns.DeletionTimestamp.Equal(&now) || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("first delete: deletionTimestamp=%v phase=%q, want %v Terminating", ns.DeletionTimestamp, ns.Status.Phase, now)
	}
	if !slices.Equal(ns.Spec.Finalizers, []corev1.FinalizerName{"kubernetes"}) || len(ns.Finalizers) != 0 {
		t.Errorf("delete changed finalizers: spec %v, metadata %v", ns.Spec.Finalizers, ns.Finalizers)
	}
	ns.DeletionTimestamp = &earlier
	markTerminating(ns, now)
	if !ns.DeletionTimestamp.Equal(&earlier) {
		t.Errorf("second delete moved deletionTimestamp to %v, want it kept at %v", ns.DeletionTimestamp, earlier)
	}
}

func TestShouldDeleteDuringUpdate(t *testing.T) {
	tests := []struct {
		name       string
		finalizers []corev1.FinalizerName
		obj        runtime.Object
		want       bool
	}{
		{"spec finalizers empty", nil, nil, true},
		{"kubernetes left", []corev1.FinalizerName{"kubernetes"}, nil, false},
		{"other left", []corev1.FinalizerName{"example.com/x"}, nil, false},
		{"not a namespace", nil, &corev1.ConfigMap{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj := tc.obj
			if obj == nil {
				ns := namespace("a")
				ns.Spec.Finalizers = tc.finalizers
				obj = ns
			}
			if got := shouldDeleteDuringUpdate(context.Background(), "/namespaces/a", obj, namespace("a")); got != tc.want {
				t.Errorf("shouldDeleteDuringUpdate = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestResetFields(t *testing.T) {
	main := newStrategy(testutil.Scheme(t))
	tests := []struct {
		name     string
		strategy rest.ResetFieldsStrategy
		want     string
	}{
		{"namespaces", main, ".status"},
		{"namespaces/status", statusStrategy{main}, ".spec"},
		{"namespaces/finalize", finalizeStrategy{main}, ".status"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := tc.strategy.GetResetFields()["v1"]
			if set == nil || set.String() != tc.want {
				t.Errorf("reset fields = %v, want %s", set, tc.want)
			}
		})
	}
}

func TestGetAttrs(t *testing.T) {
	ns := namespace("a")
	ns.Status.Phase = corev1.NamespaceActive
	testutil.CheckAttrs(t, GetAttrs, ns, "Namespace", false,
		fields.Set{"metadata.name": "a", "status.phase": "Active"})
}

func TestTable(t *testing.T) {
	ns := namespace("a")
	ns.Status.Phase = corev1.NamespaceActive
	ns.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	list := &corev1.NamespaceList{ListMeta: metav1.ListMeta{ResourceVersion: "6"}, Items: []corev1.Namespace{*ns}}
	testutil.CheckTable(t, tableConvertor, ns, list, []string{"Name", "Status", "Age"}, []any{"a", "Active", "10d"})
}
