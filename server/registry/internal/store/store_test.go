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
	"k8s.io/apiserver/pkg/registry/generic"
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

	pred := Matcher(attrs)(labels.Everything(), fields.OneTermEqualSelector("metadata.namespace", "ns"))
	if ok, err := pred.Matches(p); !ok || err != nil {
		t.Errorf("predicate does not match: %v", err)
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
