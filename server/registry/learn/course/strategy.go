// Package course provides the REST storage of courses (learn.kubewalk.io), kubewalk's
// cluster-scoped kind: an ordered list of lessons from any namespaces. It serves every verb but
// deletecollection, which its client (+genclient:skipVerbs=deleteCollection) leaves out too.
package course

import (
	"context"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/apis/learn/validation"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create, update and delete behaviour for courses: clients own the whole
// object (a course has no status); the generation counts changes of the spec.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports false: courses are cluster-scoped.
func (strategy) NamespaceScoped() bool { return false }

// PrepareForCreate starts the generation at 1.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	obj.(*learn.Course).Generation = 1
}

// PrepareForUpdate bumps the generation when the spec changes.
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	c, oldC := obj.(*learn.Course), old.(*learn.Course)
	c.Generation = oldC.Generation
	if !apiequality.Semantic.DeepEqual(c.Spec, oldC.Spec) {
		c.Generation = oldC.Generation + 1
	}
}

// Validate validates a new course.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateCourse(obj.(*learn.Course))
}

// ValidateUpdate validates an updated course.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateCourseUpdate(obj.(*learn.Course), old.(*learn.Course))
}

var attrs = store.AttrFunc[*learn.Course]("courses", false, nil)

// GetAttrs returns the labels of a course and its selectable field, metadata.name.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
