// Package validation holds the validation rules shared by configmaps and secrets: their data
// keys and size, and the `immutable` flag. Kind-specific rules live next to each resource's
// strategy.
package validation

import (
	"bytes"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxDataSize is the largest total size, in bytes, of a configmap's or secret's values (1 MiB,
// as kube-apiserver enforces).
const MaxDataSize = 1 << 20

// DataKeys validates that every key of data is a valid configmap/secret key, reporting errors
// at path[key] in key order.
func DataKeys[V any](data map[string]V, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(data)) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(path.Key(k), k, msg))
		}
	}
	return errs
}

// StringDataEqual reports whether two string data maps hold the same entries; nil and empty
// maps are equal.
func StringDataEqual(a, b map[string]string) bool {
	return maps.Equal(a, b)
}

// BinaryDataEqual reports whether two binary data maps hold the same entries; nil and empty
// maps (and nil and empty values) are equal.
func BinaryDataEqual(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, bytes.Equal)
}

// ImmutableUpdate validates the update of an object that carries an `immutable` flag. Once the
// old object is immutable the flag cannot be unset, and no field named in changed (by its
// top-level JSON name) may change.
func ImmutableUpdate(newImmutable, oldImmutable *bool, changed map[string]bool) field.ErrorList {
	if oldImmutable == nil || !*oldImmutable {
		return nil
	}
	const msg = "field is immutable when `immutable` is set"
	var errs field.ErrorList
	if newImmutable == nil || !*newImmutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), msg))
	}
	for _, name := range slices.Sorted(maps.Keys(changed)) {
		if changed[name] {
			errs = append(errs, field.Forbidden(field.NewPath(name), msg))
		}
	}
	return errs
}
