// Package serviceaccount provides the REST storage of core/v1 serviceaccounts.
package serviceaccount

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create, update and delete behaviour for serviceaccounts.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: serviceaccounts live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate reduces secret references to their names.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	cleanSecretReferences(obj.(*corev1.ServiceAccount))
}

// PrepareForUpdate reduces secret references to their names.
func (strategy) PrepareForUpdate(_ context.Context, obj, _ runtime.Object) {
	cleanSecretReferences(obj.(*corev1.ServiceAccount))
}

// cleanSecretReferences keeps only the name of each referenced secret: the secrets live in the
// serviceaccount's namespace, so the other fields of an ObjectReference are meaningless here.
func cleanSecretReferences(sa *corev1.ServiceAccount) {
	for i, ref := range sa.Secrets {
		sa.Secrets[i] = corev1.ObjectReference{Name: ref.Name}
	}
}

// Validate validates a new serviceaccount: its name is a DNS subdomain.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*corev1.ServiceAccount))
}

// ValidateUpdate validates an updated serviceaccount.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	sa, oldSA := obj.(*corev1.ServiceAccount), old.(*corev1.ServiceAccount)
	errs := apivalidation.ValidateObjectMetaUpdate(&sa.ObjectMeta, &oldSA.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validate(sa)...)
}

func validate(sa *corev1.ServiceAccount) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&sa.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	for i, ref := range sa.Secrets {
		errs = append(errs, validateRefName(ref.Name, field.NewPath("secrets").Index(i).Child("name"))...)
	}
	for i, ref := range sa.ImagePullSecrets {
		errs = append(errs, validateRefName(ref.Name, field.NewPath("imagePullSecrets").Index(i).Child("name"))...)
	}
	return errs
}

// validateRefName checks the name of a referenced secret.
func validateRefName(name string, path *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	for _, msg := range apivalidation.NameIsDNSSubdomain(name, false) {
		errs = append(errs, field.Invalid(path, name, msg))
	}
	return errs
}

var attrs = store.AttrFunc[*corev1.ServiceAccount]("serviceaccounts", true, nil)

// GetAttrs returns the labels of a serviceaccount and its selectable fields, metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
