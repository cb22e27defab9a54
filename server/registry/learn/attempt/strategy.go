// Package attempt provides the REST storage of attempts (learn.kubewalk.io): records of a
// learner's try at a lesson's step. A record is never changed, so the storage serves create,
// get, list, watch and delete, the verbs its client (+genclient:onlyVerbs) has, and no
// update, patch or deletecollection.
package attempt

import (
	"context"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/apis/learn/validation"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create and delete behaviour for attempts. The generic store asks every
// strategy for update behaviour too; the attempts REST never calls the store's Update, and
// were it called, ValidateUpdate refuses any change of the spec.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: an attempt lives in its lesson's namespace.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate leaves the attempt as sent.
func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate leaves the attempt as sent.
func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate validates a new attempt.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validation.ValidateAttempt(obj.(*learn.Attempt))
}

// ValidateUpdate refuses any change of an attempt's spec: a record is not edited.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	a, oldA := obj.(*learn.Attempt), old.(*learn.Attempt)
	if a.Spec != oldA.Spec {
		return field.ErrorList{field.Forbidden(field.NewPath("spec"), "an attempt is a record and is never changed; create a new attempt")}
	}
	return nil
}

var attrs = store.AttrFunc[*learn.Attempt]("attempts", true, nil)

// GetAttrs returns the labels of an attempt and its selectable fields, metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
