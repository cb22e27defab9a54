package namespace

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func namespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "5"}}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "namespace", Namespaced: false, ShortNames: []string{"ns"},
		New: &corev1.Namespace{}, NewList: &corev1.NamespaceList{},
	})
	gc, ok := r.DeleteStrategy.(rest.GarbageCollectionDeleteStrategy)
	if !ok || gc.DefaultGarbageCollectionPolicy(context.Background()) != rest.Unsupported {
		t.Errorf("namespace deletion must not wait on garbage collection finalizers")
	}
}

func TestPrepareForCreate(t *testing.T) {
	ns := namespace("team-a")
	ns.Status.Phase = corev1.NamespaceTerminating
	s := newStrategy(testutil.Scheme(t))
	s.PrepareForCreate(context.Background(), ns)
	s.Canonicalize(ns)
	if ns.Status.Phase != corev1.NamespaceActive {
		t.Errorf("phase = %q, want Active", ns.Status.Phase)
	}
	if ns.Labels[corev1.LabelMetadataName] != "team-a" || len(ns.Finalizers) != 0 || len(ns.Spec.Finalizers) != 0 {
		t.Errorf("namespace = %+v, want the name label and no finalizers", ns.ObjectMeta)
	}
}

func TestPrepareForUpdateKeepsStatus(t *testing.T) {
	old := namespace("a")
	old.Status.Phase = corev1.NamespaceActive
	ns := namespace("a")
	ns.Status.Phase = corev1.NamespaceTerminating
	ns.Spec.Finalizers = []corev1.FinalizerName{"example.com/x"}
	newStrategy(testutil.Scheme(t)).PrepareForUpdate(context.Background(), ns, old)
	if ns.Status.Phase != corev1.NamespaceActive || ns.Spec.Finalizers != nil {
		t.Errorf("after update status=%v finalizers=%v, want the old ones", ns.Status, ns.Spec.Finalizers)
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	tests := []struct {
		name string
		ns   *corev1.Namespace
		want []string
	}{
		{"valid", namespace("team-a"), []string{}},
		{"dots are not a DNS label", namespace("team.a"), []string{"metadata.name: Invalid value"}},
		{"namespace set", func() *corev1.Namespace { ns := namespace("a"); ns.Namespace = "b"; return ns }(),
			[]string{"metadata.namespace: Forbidden"}},
		{"bad finalizer", func() *corev1.Namespace {
			ns := namespace("a")
			ns.Spec.Finalizers = []corev1.FinalizerName{"bad finalizer"}
			return ns
		}(), []string{"spec.finalizers[0]: Invalid value"}},
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

func TestResetFields(t *testing.T) {
	set := newStrategy(testutil.Scheme(t)).GetResetFields()["v1"]
	if set == nil || set.String() != ".status" {
		t.Errorf("reset fields = %v, want .status", set)
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
