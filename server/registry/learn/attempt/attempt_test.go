package attempt

import (
	"context"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func attempt() *learn.Attempt {
	return &learn.Attempt{
		ObjectMeta: metav1.ObjectMeta{Name: "try-1", Namespace: "default", ResourceVersion: "3"},
		Spec:       learn.AttemptSpec{Lesson: "hello", Step: "one", Answer: "42"},
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store(), g, testutil.StoreWant{
		Resource: resource, Singular: "attempt", Namespaced: true, Categories: []string{"learn"},
		New: &learn.Attempt{}, NewList: &learn.AttemptList{},
	})
	// The API server serves a verb only for a storage that implements its interface: these
	// must stay missing, as they are from the client (+genclient:onlyVerbs).
	missing := []struct {
		verb string
		ok   bool
	}{
		{"update", is[rest.Updater](r)},
		{"patch", is[rest.Patcher](r)},
		{"deletecollection", is[rest.CollectionDeleter](r)},
	}
	for _, m := range missing {
		if m.ok {
			t.Errorf("attempts storage serves %s; attempts are records and their client lacks it", m.verb)
		}
	}
}

func is[T any](v any) bool {
	_, ok := v.(T)
	return ok
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	if errs := s.Validate(context.Background(), attempt()); len(errs) != 0 {
		t.Fatalf("valid attempt: %v", errs)
	}
	a := attempt()
	a.Spec.Step = ""
	if got := testutil.ErrorFields(s.Validate(context.Background(), a)); !reflect.DeepEqual(got, []string{"spec.step: Required value"}) {
		t.Errorf("errors = %q", got)
	}
	a = attempt()
	a.Spec.Answer = "43"
	if got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), a, attempt())); !reflect.DeepEqual(got, []string{"spec: Forbidden"}) {
		t.Errorf("update errors = %q", got)
	}
	if errs := s.ValidateUpdate(context.Background(), attempt(), attempt()); len(errs) != 0 {
		t.Errorf("unchanged attempt: %v", errs)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, attempt(), "Attempt", true, fields.Set{"metadata.name": "try-1", "metadata.namespace": "default"})
}

func TestTable(t *testing.T) {
	a := attempt()
	a.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	list := &learn.AttemptList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []learn.Attempt{*a}}
	testutil.CheckTable(t, tableConvertor, a, list, []string{"Name", "Lesson", "Step", "Age", "Answer"}, []any{"try-1", "hello", "one", "10d", "42"})
}
