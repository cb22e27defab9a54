// Package admit holds kubewalk's own admission plugins: one mutating and one validating, each
// with an effect a learner can see with kubectl.
package admit

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/admission"
)

// CreatedByName is the plugin name of the mutating CreatedBy plugin.
const CreatedByName = "kubewalk.io/CreatedBy"

// CreatedByAnnotation is the annotation CreatedBy stamps on every new object.
const CreatedByAnnotation = "kubewalk.io/created-by"

// CreatedBy is a mutating admission plugin: on create it records the requesting user's name in
// the kubewalk.io/created-by annotation, so `kubectl get cm x -o yaml` shows who made it. It runs
// after authentication and authorization, inside the create handler, before validation.
type CreatedBy struct {
	*admission.Handler
}

var _ admission.MutationInterface = &CreatedBy{}

// NewCreatedBy returns the plugin; it handles create operations only.
func NewCreatedBy() *CreatedBy {
	return &CreatedBy{Handler: admission.NewHandler(admission.Create)}
}

// Admit stamps the annotation. Subresources (pods/status, …) are left alone, and so are
// objects that carry no metadata (the review kinds).
func (p *CreatedBy) Admit(_ context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	if a.GetSubresource() != "" || a.GetUserInfo() == nil {
		return nil
	}
	switch a.GetResource().Group {
	case "authorization.k8s.io", "authentication.k8s.io":
		return nil
	}
	obj, err := meta.Accessor(a.GetObject())
	if err != nil {
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

// String names the plugin for the state tree.
func (p *CreatedBy) String() string { return fmt.Sprintf("%s (mutating, create)", CreatedByName) }
