// Package lesson provides the REST storage of lessons, kubewalk's own kind
// (learn.kubewalk.io), and of their status subresource. It works on the internal type
// (package learn): the generic store decodes each request from v1alpha1 or v1 to it and writes
// it to etcd as v1.
package lesson

import (
	"context"
	"maps"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	learnv1 "github.com/kubewalk/kubewalk/server/apis/learn/v1"
	"github.com/kubewalk/kubewalk/server/apis/learn/v1alpha1"
	"github.com/kubewalk/kubewalk/server/apis/learn/validation"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create, update and delete behaviour for the lessons resource: clients
// own the spec; the status is reset on create and kept on update, since it changes only
// through lessons/status.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: lessons live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate drops any status the client sent, so a new lesson starts with no step
// done, and starts the generation at 1.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	l := obj.(*learn.Lesson)
	l.Status = learn.LessonStatus{}
	l.Generation = 1
}

// PrepareForUpdate keeps the stored status, whatever the client sent, and bumps the
// generation when the spec changes.
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	l, oldL := obj.(*learn.Lesson), old.(*learn.Lesson)
	l.Status = oldL.Status
	if !apiequality.Semantic.DeepEqual(l.Spec, oldL.Spec) {
		l.Generation = oldL.Generation + 1
	}
}

// Validate validates a new lesson.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateLesson(obj.(*learn.Lesson))
}

// ValidateUpdate validates an updated lesson.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateLessonUpdate(obj.(*learn.Lesson), old.(*learn.Lesson))
}

// GetResetFields reports, for server-side apply, that updates of the lesson reset its status,
// in both served versions.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return resetFields("status")
}

// statusStrategy implements updates through lessons/status: clients own the status; the
// spec is kept as stored.
type statusStrategy struct{ strategy }

var _ store.Strategy = statusStrategy{}

// PrepareForUpdate keeps the stored spec, whatever the client sent.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	l, oldL := obj.(*learn.Lesson), old.(*learn.Lesson)
	l.Spec = oldL.Spec
}

// ValidateUpdate validates a status update.
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validation.ValidateLessonStatusUpdate(obj.(*learn.Lesson), old.(*learn.Lesson))
}

// GetResetFields reports, for server-side apply, that status updates reset the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return resetFields("spec")
}

// resetFields returns the reset fields of both served versions: server-side apply looks them
// up by the version of the request.
func resetFields(paths ...string) map[fieldpath.APIVersion]*fieldpath.Set {
	out := store.ResetFields(learnv1.SchemeGroupVersion, paths...)
	maps.Copy(out, store.ResetFields(v1alpha1.SchemeGroupVersion, paths...))
	return out
}

var attrs = store.AttrFunc[*learn.Lesson]("lessons", true, nil)

// GetAttrs returns the labels of a lesson and its selectable fields, metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
