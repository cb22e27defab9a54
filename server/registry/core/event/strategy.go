// Package event provides the REST storage of core/v1 events. Events expire an hour after their
// last write (DefaultTTL), as with kube-apiserver's default --event-ttl.
package event

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// Length limits kube-apiserver applies to events that set eventTime (the events.k8s.io
// shape written through core/v1).
const (
	reportingInstanceMaxLen = 128
	actionMaxLen            = 128
	reasonMaxLen            = 128
	noteMaxLen              = 1024
)

// strategy implements create, update and delete behaviour for events.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: events live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate does nothing: events have no status.
func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate does nothing: recorders update count, message and timestamps in place.
func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate validates a new event.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*corev1.Event))
}

// ValidateUpdate validates an updated event: it keeps describing the same object.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ev, oldEv := obj.(*corev1.Event), old.(*corev1.Event)
	errs := apivalidation.ValidateObjectMetaUpdate(&ev.ObjectMeta, &oldEv.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, apivalidation.ValidateImmutableField(ev.InvolvedObject, oldEv.InvolvedObject, field.NewPath("involvedObject"))...)
	return append(errs, validate(ev)...)
}

// validate checks the name, that the event names the object it is about (involvedObject kind
// and name) in the event's own namespace, and, for events that set eventTime, the fields the
// events.k8s.io API requires.
func validate(ev *corev1.Event) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&ev.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	involved := field.NewPath("involvedObject")
	if ev.InvolvedObject.Kind == "" {
		errs = append(errs, field.Required(involved.Child("kind"), ""))
	}
	if ev.InvolvedObject.Name == "" {
		errs = append(errs, field.Required(involved.Child("name"), ""))
	}
	mismatch := func() {
		errs = append(errs, field.Invalid(involved.Child("namespace"), ev.InvolvedObject.Namespace, "does not match event.namespace"))
	}
	if ev.EventTime.IsZero() {
		// Old-style events about cluster-scoped objects live in "default" (or nowhere).
		switch {
		case ev.InvolvedObject.Namespace == "":
			if ev.Namespace != metav1.NamespaceNone && ev.Namespace != metav1.NamespaceDefault {
				mismatch()
			}
		case ev.Namespace != ev.InvolvedObject.Namespace:
			mismatch()
		}
		return errs
	}
	if ev.InvolvedObject.Namespace == "" && ev.Namespace != metav1.NamespaceDefault && ev.Namespace != metav1.NamespaceSystem {
		mismatch()
	}
	controller := field.NewPath("reportingComponent")
	if ev.ReportingController == "" {
		errs = append(errs, field.Required(controller, ""))
	} else {
		for _, msg := range content.IsLabelKey(ev.ReportingController) {
			errs = append(errs, field.Invalid(controller, ev.ReportingController, msg))
		}
	}
	required := []struct {
		name  string
		value string
		max   int
	}{
		{"reportingInstance", ev.ReportingInstance, reportingInstanceMaxLen},
		{"action", ev.Action, actionMaxLen},
		{"reason", ev.Reason, reasonMaxLen},
	}
	for _, r := range required {
		switch {
		case r.value == "":
			errs = append(errs, field.Required(field.NewPath(r.name), ""))
		case len(r.value) > r.max:
			errs = append(errs, field.Invalid(field.NewPath(r.name), "", fmt.Sprintf("can have at most %d characters", r.max)))
		}
	}
	if len(ev.Message) > noteMaxLen {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %d characters", noteMaxLen)))
	}
	return errs
}

var attrs = store.AttrFunc("events", true, func(ev *corev1.Event) fields.Set {
	source := ev.Source.Component
	if source == "" {
		source = ev.ReportingController
	}
	o := ev.InvolvedObject
	return fields.Set{
		"involvedObject.kind":            o.Kind,
		"involvedObject.namespace":       o.Namespace,
		"involvedObject.name":            o.Name,
		"involvedObject.uid":             string(o.UID),
		"involvedObject.apiVersion":      o.APIVersion,
		"involvedObject.resourceVersion": o.ResourceVersion,
		"involvedObject.fieldPath":       o.FieldPath,
		"reason":                         ev.Reason,
		"reportingComponent":             ev.ReportingController,
		"source":                         source,
		"type":                           ev.Type,
	}
})

// GetAttrs returns the labels of an event and its selectable fields: metadata.name,
// metadata.namespace, involvedObject.* (which `kubectl describe` selects on), reason,
// reportingComponent, source and type.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
