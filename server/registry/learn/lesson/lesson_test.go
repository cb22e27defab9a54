package lesson

import (
	"context"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

// lesson returns a valid lesson as decoding and defaulting leave it.
func lesson() *learn.Lesson {
	return &learn.Lesson{
		ObjectMeta: metav1.ObjectMeta{Name: "hello", Namespace: "default", ResourceVersion: "3", Generation: 1, Labels: map[string]string{"track": "api"}},
		Spec: learn.LessonSpec{Title: "Hello", Author: "alice", Level: learn.LevelBeginner,
			Steps: []learn.LessonStep{{Name: "one"}, {Name: "two"}, {Name: "three"}}},
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, status, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "lesson", Namespaced: true, ShortNames: []string{"lsn"}, Categories: []string{"learn"},
		New: &learn.Lesson{}, NewList: &learn.LessonList{},
	})
	if _, ok := status.store.UpdateStrategy.(statusStrategy); !ok {
		t.Errorf("status store updates with %T, want statusStrategy", status.store.UpdateStrategy)
	}
	// Server-side apply looks reset fields up by the request's version: both must be there.
	for _, v := range []string{"learn.kubewalk.io/v1", "learn.kubewalk.io/v1alpha1"} {
		if got := r.GetResetFields()[fieldpathVersion(v)]; got == nil || got.String() != ".status" {
			t.Errorf("main reset fields in %s = %v, want .status", v, got)
		}
		if got := status.GetResetFields()[fieldpathVersion(v)]; got == nil || got.String() != ".spec" {
			t.Errorf("status reset fields in %s = %v, want .spec", v, got)
		}
	}
	if _, ok := status.New().(*learn.Lesson); !ok {
		t.Errorf("status New() = %T", status.New())
	}
}

func TestPrepareForCreateResetsStatus(t *testing.T) {
	l := lesson()
	l.Generation = 7
	l.Status = learn.LessonStatus{CompletedSteps: 2, ObservedGeneration: 7}
	newStrategy(testutil.Scheme(t)).PrepareForCreate(context.Background(), l)
	if l.Status != (learn.LessonStatus{}) || l.Generation != 1 {
		t.Errorf("status = %+v generation = %d, want empty and 1", l.Status, l.Generation)
	}
}

func TestPrepareForUpdate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	old := lesson()
	old.Status.CompletedSteps = 1

	// A status sent to the main resource is ignored; an unchanged spec keeps the generation.
	l := lesson()
	l.Status.CompletedSteps = 3
	s.PrepareForUpdate(context.Background(), l, old)
	if l.Status.CompletedSteps != 1 || l.Generation != 1 {
		t.Errorf("status %+v generation %d, want the stored status and generation 1", l.Status, l.Generation)
	}
	// A spec change bumps the generation.
	l = lesson()
	l.Spec.Title = "Changed"
	s.PrepareForUpdate(context.Background(), l, old)
	if l.Generation != 2 {
		t.Errorf("generation after a spec change = %d, want 2", l.Generation)
	}
}

func TestStatusPrepareForUpdateKeepsSpec(t *testing.T) {
	old := lesson()
	l := lesson()
	l.Spec.Title, l.Spec.Steps = "Changed", nil
	l.Status.CompletedSteps = 2
	statusStrategy{newStrategy(testutil.Scheme(t))}.PrepareForUpdate(context.Background(), l, old)
	if !reflect.DeepEqual(l.Spec, old.Spec) || l.Status.CompletedSteps != 2 {
		t.Errorf("spec %+v status %+v: want the stored spec and the new status", l.Spec, l.Status)
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	l := lesson()
	if errs := s.Validate(context.Background(), l); len(errs) != 0 {
		t.Fatalf("valid lesson: %v", errs)
	}
	l.Spec.Steps = nil
	if got := testutil.ErrorFields(s.Validate(context.Background(), l)); !reflect.DeepEqual(got, []string{"spec.steps: Required value"}) {
		t.Errorf("errors = %q", got)
	}
	l = lesson()
	l.Spec.Steps = nil
	if got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), l, lesson())); !reflect.DeepEqual(got, []string{"spec.steps: Required value"}) {
		t.Errorf("update errors = %q", got)
	}
	l = lesson()
	l.Status.CompletedSteps = 4
	st := statusStrategy{s}
	if got := testutil.ErrorFields(st.ValidateUpdate(context.Background(), l, lesson())); !reflect.DeepEqual(got, []string{"status.completedSteps: Invalid value"}) {
		t.Errorf("status errors = %q", got)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, lesson(), "Lesson", true, fields.Set{"metadata.name": "hello", "metadata.namespace": "default"})
}

func TestTable(t *testing.T) {
	l := lesson()
	l.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour)) // "10d" for hours either side
	l.Status.CompletedSteps = 2
	list := &learn.LessonList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []learn.Lesson{*l}}
	testutil.CheckTable(t, tableConvertor, l, list,
		[]string{"Name", "Title", "Author", "Progress", "Age", "Level"},
		[]any{"hello", "Hello", "alice", "2/3", "10d", "Beginner"})

	anonymous := lesson()
	anonymous.Spec.Author = ""
	tbl, err := tableConvertor.ConvertToTable(context.Background(), anonymous, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tbl.Rows[0].Cells[2]; got != "<none>" {
		t.Errorf("author cell without an author = %v, want <none>", got)
	}
}

func fieldpathVersion(v string) fieldpath.APIVersion { return fieldpath.APIVersion(v) }
