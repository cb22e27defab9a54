package store

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func TestAttrFunc(t *testing.T) {
	attrs := AttrFunc("pods", true, func(p *corev1.Pod) fields.Set {
		return fields.Set{"spec.nodeName": p.Spec.NodeName, "metadata.name": "overridden"}
	})
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"x": "y"}}}
	ls, fs, err := attrs(p)
	if err != nil {
		t.Fatal(err)
	}
	if ls["x"] != "y" || fs["metadata.name"] != "a" || fs["metadata.namespace"] != "ns" || fs["spec.nodeName"] != "" || len(fs) != 3 {
		t.Errorf("labels = %v, fields = %v", ls, fs)
	}
	if _, _, err := attrs(&corev1.Secret{}); err == nil || !strings.Contains(err.Error(), "pods: get attrs") {
		t.Errorf("err = %v", err)
	}

	cluster := AttrFunc[*corev1.Namespace]("namespaces", false, nil)
	_, fs, _ = cluster(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}})
	if len(fs) != 1 || fs["metadata.name"] != "n" {
		t.Errorf("cluster-scoped fields = %v", fs)
	}

	none := AttrFunc("pods", true, func(*corev1.Pod) fields.Set { return nil })
	if _, fs, err := none(p); err != nil || len(fs) != 2 || fs["metadata.name"] != "a" {
		t.Errorf("fields with no kind fields = %v, %v", fs, err)
	}
}

// configMapStrategy is the least a store needs to be completed.
type configMapStrategy struct{ BaseStrategy }

func (configMapStrategy) NamespaceScoped() bool                                            { return true }
func (configMapStrategy) PrepareForCreate(context.Context, runtime.Object)                 {}
func (configMapStrategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}
func (configMapStrategy) Validate(context.Context, runtime.Object) field.ErrorList         { return nil }
func (configMapStrategy) ValidateUpdate(context.Context, runtime.Object, runtime.Object) field.ErrorList {
	return nil
}

// TestNewPredicate: New leaves PredicateFunc to the generic store, whose default predicate
// selects by the store's AttrFunc (labels, object-meta fields and the kind's own fields).
func TestNewPredicate(t *testing.T) {
	attrs := AttrFunc("configmaps", true, func(cm *corev1.ConfigMap) fields.Set { return fields.Set{"data.k": cm.Data["k"]} })
	s, err := New(&testutil.RESTOptionsGetter{}, Config{
		Resource:       corev1.Resource("configmaps"),
		Singular:       "configmap",
		NewFunc:        func() runtime.Object { return &corev1.ConfigMap{} },
		NewListFunc:    func() runtime.Object { return &corev1.ConfigMapList{} },
		Strategy:       configMapStrategy{NewBaseStrategy(runtime.NewScheme())},
		TableConvertor: rest.NewDefaultTableConvertor(corev1.Resource("configmaps")),
		AttrFunc:       attrs,
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.PredicateFunc == nil {
		t.Fatal("no PredicateFunc after completion")
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"k": "v"}}
	tests := []struct {
		label, field string
		want         bool
	}{
		{"", "", true},
		{"x=y", "metadata.name=a,metadata.namespace=ns,data.k=v", true},
		{"x=z", "", false},
		{"", "metadata.namespace=other", false},
		{"", "data.k=w", false},
	}
	for _, tt := range tests {
		ls, err := labels.Parse(tt.label)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := fields.ParseSelector(tt.field)
		if err != nil {
			t.Fatal(err)
		}
		pred := s.PredicateFunc(ls, fs)
		got, err := pred.Matches(cm)
		if err != nil || got != tt.want {
			t.Errorf("labels %q fields %q: match = %v, %v; want %v", tt.label, tt.field, got, err, tt.want)
		}
	}
}

func TestResetFields(t *testing.T) {
	got := ResetFields(corev1.SchemeGroupVersion, "spec", "metadata.ownerReferences")["v1"].String()
	if got != ".spec\n.metadata.ownerReferences" {
		t.Errorf("reset fields = %q", got)
	}
	if _, ok := ResetFields(schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, "status")["rbac.authorization.k8s.io/v1"]; !ok {
		t.Errorf("group version key missing")
	}
}

type noOptions struct{}

func (noOptions) GetRESTOptions(schema.GroupResource, runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{}, nil
}

func TestNewErrors(t *testing.T) {
	_, err := New(noOptions{}, Config{Resource: corev1.Resource("pods")})
	if err == nil || !strings.Contains(err.Error(), "pods: store: AttrFunc is required") {
		t.Errorf("err = %v", err)
	}
	_, err = New(noOptions{}, Config{Resource: corev1.Resource("pods"), AttrFunc: AttrFunc[*corev1.Pod]("pods", true, nil)})
	if err == nil || !strings.HasPrefix(err.Error(), "pods: complete store: ") {
		t.Errorf("err = %v", err)
	}
}

func TestBaseStrategy(t *testing.T) {
	b := NewBaseStrategy(runtime.NewScheme())
	ctx := context.Background()
	if b.AllowCreateOnUpdate(ctx) || !b.AllowUnconditionalUpdate(ctx) || b.GetResetFields() != nil ||
		b.WarningsOnCreate(ctx, nil) != nil || b.WarningsOnUpdate(ctx, nil, nil) != nil {
		t.Errorf("base strategy defaults wrong")
	}
	if got := b.GenerateName("web-"); !strings.HasPrefix(got, "web-") || len(got) != len("web-")+5 {
		t.Errorf("GenerateName = %q", got)
	}
}
