// Package configmap provides the REST storage of core/v1 configmaps.
package configmap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/internal/validation"
)

// strategy implements create, update and delete behaviour for configmaps.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: configmaps live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate does nothing: configmaps have no status or server-owned fields.
func (strategy) PrepareForCreate(context.Context, runtime.Object) {}

// PrepareForUpdate does nothing: every field of a configmap is user-owned.
func (strategy) PrepareForUpdate(context.Context, runtime.Object, runtime.Object) {}

// Validate validates a new configmap.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validate(obj.(*corev1.ConfigMap))
}

// ValidateUpdate validates an updated configmap: an immutable configmap keeps its data.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	cm, oldCM := obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap)
	errs := apivalidation.ValidateObjectMetaUpdate(&cm.ObjectMeta, &oldCM.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validation.ImmutableUpdate(cm.Immutable, oldCM.Immutable, map[string]bool{
		"data":       !validation.StringDataEqual(cm.Data, oldCM.Data),
		"binaryData": !validation.BinaryDataEqual(cm.BinaryData, oldCM.BinaryData),
	})...)
	return append(errs, validate(cm)...)
}

// validate checks the name, the keys of data and binaryData (valid, and not in both) and the
// total size of the values.
func validate(cm *corev1.ConfigMap) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&cm.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	dataPath, binaryPath := field.NewPath("data"), field.NewPath("binaryData")
	errs = append(errs, validation.DataKeys(cm.Data, dataPath)...)
	errs = append(errs, validation.DataKeys(cm.BinaryData, binaryPath)...)
	size := 0
	for k, v := range cm.Data {
		size += len(v)
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(dataPath.Key(k), k, "duplicate of key present in binaryData"))
		}
	}
	for _, v := range cm.BinaryData {
		size += len(v)
	}
	if size > validation.MaxDataSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", validation.MaxDataSize))
	}
	return errs
}

var attrs = store.AttrFunc[*corev1.ConfigMap]("configmaps", true, nil)

// GetAttrs returns the labels of a configmap and its selectable fields, metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
