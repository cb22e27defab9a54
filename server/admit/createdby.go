// Package admit holds kubewalk's own admission plugins: one mutating and one validating, each
// with an effect a learner can see with kubectl.
package admit

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
)

// CreatedByName is the plugin name of the mutating CreatedBy plugin.
const CreatedByName = "kubewalk.io/CreatedBy"

// CreatedByAnnotation is the annotation CreatedBy stamps on every new object.
const CreatedByAnnotation = "kubewalk.io/created-by"

// CreatedBy is a mutating admission plugin: on create it records the requesting user's name in
// the kubewalk.io/created-by annotation, so `kubectl get cm x -o yaml` shows who made it; on
// update it keeps the value the object had, so nobody can rewrite or remove it. It runs after
// authentication and authorization, inside the create and update handlers, before validation.
type CreatedBy struct {
	*admission.Handler
}

var _ admission.MutationInterface = &CreatedBy{}

// NewCreatedBy returns the plugin; it handles create and update operations.
func NewCreatedBy() *CreatedBy {
	return &CreatedBy{Handler: admission.NewHandler(admission.Create, admission.Update)}
}

// Admit stamps the annotation on create and restores the old object's value (or absence) on
// update, whatever the request sent. Creates of subresources (pods/binding, …) are left alone,
// and so are objects that carry no metadata (the review kinds).
func (p *CreatedBy) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	switch a.GetResource().Group {
	case "authorization.k8s.io", "authentication.k8s.io":
		return nil
	}
	obj, err := meta.Accessor(a.GetObject())
	if err != nil {
		return nil
	}
	if a.GetOperation() == admission.Update {
		keepCreatedBy(obj, a.GetOldObject())
		return nil
	}
	if a.GetSubresource() != "" || a.GetUserInfo() == nil {
		return nil
	}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	if _, set := ann[CreatedByAnnotation]; set {
		// Overwrite silently: the annotation must say who really created the object.
		delete(ann, CreatedByAnnotation)
	}
	ann[CreatedByAnnotation] = a.GetUserInfo().GetName()
	obj.SetAnnotations(ann)
	return nil
}

// keepCreatedBy gives obj the created-by annotation of old: its value, or none when old had
// none (or is not there to look at).
func keepCreatedBy(obj metav1.Object, old runtime.Object) {
	want, had := "", false
	if o, err := meta.Accessor(old); err == nil {
		want, had = o.GetAnnotations()[CreatedByAnnotation]
	}
	ann := obj.GetAnnotations()
	if got, ok := ann[CreatedByAnnotation]; ok == had && got == want {
		return
	}
	if !had {
		delete(ann, CreatedByAnnotation)
		if len(ann) == 0 {
			ann = nil
		}
		obj.SetAnnotations(ann)
		return
	}
	if ann == nil {
		ann = map[string]string{}
	}
	ann[CreatedByAnnotation] = want
	obj.SetAnnotations(ann)
}

// String names the plugin for the state tree.
func (p *CreatedBy) String() string {
	return fmt.Sprintf("%s (mutating, create/update)", CreatedByName)
}
