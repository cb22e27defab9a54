package course

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

func course() *learn.Course {
	return &learn.Course{
		ObjectMeta: metav1.ObjectMeta{Name: "basics", ResourceVersion: "3", Generation: 1, Labels: map[string]string{"track": "api"}},
		Spec:       learn.CourseSpec{Title: "Basics", Lessons: []learn.CourseLesson{{Namespace: "default", Name: "hello"}}},
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store(), g, testutil.StoreWant{
		Resource: resource, Singular: "course", Namespaced: false, ShortNames: []string{"crs"}, Categories: []string{"learn"},
		New: &learn.Course{}, NewList: &learn.CourseList{},
	})
	// The API server serves deletecollection only for a storage that implements it.
	if _, ok := any(r).(rest.CollectionDeleter); ok {
		t.Error("courses storage implements rest.CollectionDeleter; the client (skipVerbs=deleteCollection) has no DeleteCollection")
	}
}

func TestPrepare(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	c := course()
	c.Generation = 5
	s.PrepareForCreate(context.Background(), c)
	if c.Generation != 1 {
		t.Errorf("generation after create = %d, want 1", c.Generation)
	}
	tests := []struct {
		name   string
		change func(*learn.Course)
		want   int64
	}{
		{"labels only", func(c *learn.Course) { c.Labels = nil }, 1},
		{"spec", func(c *learn.Course) { c.Spec.Title = "Other" }, 2},
		{"generation sent by the client", func(c *learn.Course) { c.Generation = 9 }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := course()
			tt.change(c)
			s.PrepareForUpdate(context.Background(), c, course())
			if c.Generation != tt.want {
				t.Errorf("generation = %d, want %d", c.Generation, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	c := course()
	if errs := s.Validate(context.Background(), c); len(errs) != 0 {
		t.Fatalf("valid course: %v", errs)
	}
	c.Spec.Lessons = nil
	if got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), c, course())); !reflect.DeepEqual(got, []string{"spec.lessons: Required value"}) {
		t.Errorf("update errors = %q", got)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, course(), "Course", false, fields.Set{"metadata.name": "basics"})
}

func TestTable(t *testing.T) {
	c := course()
	c.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	list := &learn.CourseList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []learn.Course{*c}}
	testutil.CheckTable(t, tableConvertor, c, list, []string{"Name", "Title", "Lessons", "Age"}, []any{"basics", "Basics", int64(1), "10d"})
}
