// Package namespace provides the REST storage of core/v1 namespaces and of their status and
// finalize subresources, as kube-apiserver's pkg/registry/core/namespace does.
//
// Deleting a namespace is a two-step termination. Create adds the "kubernetes" finalizer to
// spec.finalizers. The first DELETE only sets metadata.deletionTimestamp and status.phase
// Terminating; the namespace controller (server/controller/namespace) then deletes everything
// in the namespace and removes its finalizer through namespaces/finalize. The namespace is
// removed from storage once spec.finalizers and metadata.finalizers are both empty: by that
// finalize update, by any later update that empties them, or by a later DELETE.
//
// Unlike kube-apiserver, DELETE never adds the garbage collector's orphan or foreground
// finalizers to metadata.finalizers (kubewalk runs no garbage collector, so nothing would
// remove them); the delete strategy reports garbage collection as unsupported.
package namespace

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/generic"
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

// PrepareForCreate drops any client-set status, makes the namespace Active and makes sure
// spec.finalizers holds "kubernetes", the finalizer the namespace controller removes once the
// namespace is empty.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	ns := obj.(*corev1.Namespace)
	ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
	if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
	}
}

// PrepareForUpdate keeps the stored status and spec.finalizers: an update through the main
// resource changes neither (namespaces/status and namespaces/finalize do).
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

// Validate validates a new namespace: its name is a DNS label and its finalizers are valid.
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
	return append(errs, validateFinalizers(ns.Spec.Finalizers)...)
}

// standardFinalizers are the finalizer names that need no domain prefix (upstream:
// pkg/apis/core/helper.IsStandardFinalizerName).
var standardFinalizers = []string{string(corev1.FinalizerKubernetes), metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents}

// validateFinalizers checks spec.finalizers as kube-apiserver's validateFinalizerName does:
// each is a qualified name, and one without a "/" must be a standard finalizer.
func validateFinalizers(finalizers []corev1.FinalizerName) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("spec", "finalizers")
	for i, f := range finalizers {
		name := string(f)
		errs = append(errs, apivalidation.ValidateFinalizerName(name, path.Index(i))...)
		if !strings.Contains(name, "/") && !slices.Contains(standardFinalizers, name) {
			errs = append(errs, field.Invalid(path.Index(i), name, "name is neither a standard finalizer name nor is it fully qualified"))
		}
	}
	return errs
}

// GetResetFields reports that updates of the main resource reset the status.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.CoreV1, "status")
}

// DefaultGarbageCollectionPolicy reports garbage collection as unsupported: no DELETE of a
// namespace waits on the garbage collector's orphan or foreground finalizers.
func (strategy) DefaultGarbageCollectionPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.Unsupported
}

// statusStrategy is the strategy of namespaces/status: it changes the status only.
type statusStrategy struct{ strategy }

// GetResetFields reports that status updates reset the spec.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.CoreV1, "spec")
}

// PrepareForUpdate keeps the stored spec.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Namespace).Spec = old.(*corev1.Namespace).Spec
}

// ValidateUpdate checks the phase matches the deletion timestamp: Active without one,
// Terminating with one (upstream: ValidateNamespaceStatusUpdate).
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	errs := apivalidation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &oldNS.ObjectMeta, field.NewPath("metadata"))
	phase := field.NewPath("status", "Phase")
	switch {
	case ns.DeletionTimestamp.IsZero() && ns.Status.Phase != corev1.NamespaceActive:
		errs = append(errs, field.Invalid(phase, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty"))
	case !ns.DeletionTimestamp.IsZero() && ns.Status.Phase != corev1.NamespaceTerminating:
		errs = append(errs, field.Invalid(phase, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))
	}
	return errs
}

// finalizeStrategy is the strategy of namespaces/finalize: it changes the spec, that is
// spec.finalizers, and keeps the status. As upstream, object metadata may change too.
type finalizeStrategy struct{ strategy }

// GetResetFields reports that finalize updates reset the status.
func (finalizeStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.CoreV1, "status")
}

// PrepareForUpdate keeps the stored status.
func (finalizeStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
}

// ValidateUpdate checks the metadata update and the new finalizer names (upstream:
// ValidateNamespaceFinalizeUpdate).
func (finalizeStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	ns, oldNS := obj.(*corev1.Namespace), old.(*corev1.Namespace)
	errs := apivalidation.ValidateObjectMetaUpdate(&ns.ObjectMeta, &oldNS.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateFinalizers(ns.Spec.Finalizers)...)
}

// markTerminating is what the first DELETE of a namespace does to it: set the deletion
// timestamp (once) and the phase Terminating.
func markTerminating(ns *corev1.Namespace, now metav1.Time) {
	if ns.DeletionTimestamp.IsZero() {
		ns.DeletionTimestamp = &now
	}
	ns.Status.Phase = corev1.NamespaceTerminating
}

// shouldDeleteDuringUpdate adds the namespace's own condition to the generic store's: an
// update removes a namespace being deleted only once spec.finalizers is empty as well as
// metadata.finalizers (upstream: ShouldDeleteNamespaceDuringUpdate).
func shouldDeleteDuringUpdate(_ context.Context, _ string, obj, _ runtime.Object) bool {
	ns, ok := obj.(*corev1.Namespace)
	return ok && len(ns.Spec.Finalizers) == 0
}

// GetAttrs returns the labels of a namespace and its selectable fields: metadata.name and
// status.phase.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return nil, nil, fmt.Errorf("namespaces: get attrs: object is %T, not *v1.Namespace", obj)
	}
	set := fields.Set{"status.phase": string(ns.Status.Phase)}
	return labels.Set(ns.Labels), generic.AddObjectMetaFieldsSet(set, &ns.ObjectMeta, false), nil
}
