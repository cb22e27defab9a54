// Package namespace provides the REST storage of core/v1 namespaces.
//
// Unlike kube-apiserver, kubewalk adds no "kubernetes" finalizer and runs no namespace
// controller: deleting a namespace removes it from storage at once, leaving the objects in it
// in place, and the namespace never shows phase Terminating. Deletion also never waits on the
// garbage collector's orphan or foreground finalizers (the delete strategy reports garbage
// collection as unsupported).
package namespace

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create, update and delete behaviour for namespaces.
type strategy struct{ store.BaseStrategy }

var (
	_ store.Strategy                       = strategy{}
	_ rest.GarbageCollectionDeleteStrategy = strategy{}
)

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports false: namespaces are cluster-scoped.
func (strategy) NamespaceScoped() bool { return false }

// PrepareForCreate drops any client-set status and makes the namespace Active.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
}

// PrepareForUpdate keeps the stored status and spec.finalizers: an update through the main
// resource changes neither (kube-apiserver changes them only through namespaces/status and
// namespaces/finalize).
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	ns.Status = oldNS.Status
	ns.Spec.Finalizers = oldNS.Spec.Finalizers
}

// Canonicalize labels the namespace with its name (kubernetes.io/metadata.name), as
// kube-apiserver does. It runs after generateName has produced the final name.
func (strategy) Canonicalize(obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// Validate validates a new namespace: its name is a DNS label.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*corev1.Namespace))
}

// ValidateUpdate validates an updated namespace.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	errs := apivalidation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &oldNS.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validate(ns)...)
}

func validate(ns *corev1.Namespace) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&ns.ObjectMeta, false, apivalidation.NameIsDNSLabel, field.NewPath("metadata"))
	finalizers := field.NewPath("spec", "finalizers")
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), finalizers.Index(i))...)
	}
	return errs
}

// GetResetFields reports that updates of the main resource reset the status.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.CoreV1, "status")
}

// DefaultGarbageCollectionPolicy reports garbage collection as unsupported, so deleting a
// namespace never adds the orphan or foreground finalizers and removes it at once.
func (strategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.Unsupported
}

var attrs = store.AttrFunc("namespaces", false, func(ns *corev1.Namespace) fields.Set {
	return fields.Set{"status.phase": string(ns.Status.Phase)}
})

// GetAttrs returns the labels of a namespace and its selectable fields: metadata.name and
// status.phase.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
