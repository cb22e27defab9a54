// Package store holds the pieces every kubewalk resource registry shares: the generic store
// builder, the base strategy with the defaults all our strategies agree on, and the helper that
// turns a per-kind field function into a storage.AttrFunc.
package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/names"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Strategy is what a resource strategy must provide for the store to create, update and delete
// its objects and to tell server-side apply which fields it resets.
type Strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
	rest.RESTDeleteStrategy
	rest.ResetFieldsStrategy
}

// Config describes one resource's store.
type Config struct {
	// Resource is the plural qualified resource, e.g. {"", "pods"}.
	Resource schema.GroupResource
	// Singular is the singular resource name, e.g. "pod".
	Singular string
	// NewFunc and NewListFunc return empty objects of the resource and its list.
	NewFunc     func() runtime.Object
	NewListFunc func() runtime.Object
	// Strategy is used for create, update and delete and reports the reset fields.
	Strategy Strategy
	// TableConvertor renders the resource for `kubectl get`.
	TableConvertor rest.TableConvertor
	// AttrFunc returns the labels and selectable fields of an object.
	AttrFunc storage.AttrFunc
	// TTL, when non-zero, makes every stored object expire that long after its last write.
	TTL time.Duration
}

// New builds and completes the generic store for c, reading storage settings from optsGetter.
// The store's PredicateFunc is left to the generic store, which builds the selection predicate
// over c.AttrFunc when none is set.
func New(optsGetter generic.RESTOptionsGetter, c Config) (*genericregistry.Store, error) {
	if c.AttrFunc == nil {
		return nil, fmt.Errorf("%s: store: AttrFunc is required", c.Resource)
	}
	s := &genericregistry.Store{
		NewFunc:                   c.NewFunc,
		NewListFunc:               c.NewListFunc,
		DefaultQualifiedResource:  c.Resource,
		SingularQualifiedResource: schema.GroupResource{Group: c.Resource.Group, Resource: c.Singular},
		CreateStrategy:            c.Strategy,
		UpdateStrategy:            c.Strategy,
		DeleteStrategy:            c.Strategy,
		ResetFieldsStrategy:       c.Strategy,
		TableConvertor:            c.TableConvertor,
	}
	if c.TTL > 0 {
		ttl := uint64(c.TTL / time.Second)
		s.TTLFunc = func(runtime.Object, uint64, bool) (uint64, error) { return ttl, nil }
	}
	err := s.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: c.AttrFunc})
	if err != nil {
		return nil, fmt.Errorf("%s: complete store: %w", c.Resource, err)
	}
	Decorate(optsGetter, s)
	return s, nil
}

// StrategyDecorator may be implemented by the RESTOptionsGetter a store is built with. The
// server's does when it records requests: the decorated strategies report each validation's
// verdict. The strategies themselves stay as they are.
type StrategyDecorator interface {
	DecorateCreate(resource schema.GroupResource, s rest.RESTCreateStrategy) rest.RESTCreateStrategy
	DecorateUpdate(resource schema.GroupResource, s rest.RESTUpdateStrategy) rest.RESTUpdateStrategy
}

// Decorate replaces a completed store's create and update strategies with optsGetter's
// decorations when it is a StrategyDecorator, and leaves them otherwise. New calls it; a
// registry that builds its store itself, or copies one with another update strategy (a status
// subresource), calls it (or DecorateUpdate) too.
func Decorate(optsGetter generic.RESTOptionsGetter, s *genericregistry.Store) {
	d, ok := optsGetter.(StrategyDecorator)
	if !ok {
		return
	}
	if s.CreateStrategy != nil {
		s.CreateStrategy = d.DecorateCreate(s.DefaultQualifiedResource, s.CreateStrategy)
	}
	if s.UpdateStrategy != nil {
		s.UpdateStrategy = d.DecorateUpdate(s.DefaultQualifiedResource, s.UpdateStrategy)
	}
}

// DecorateUpdate returns s decorated by optsGetter when it is a StrategyDecorator, else s.
func DecorateUpdate(optsGetter generic.RESTOptionsGetter, resource schema.GroupResource, s rest.RESTUpdateStrategy) rest.RESTUpdateStrategy {
	if d, ok := optsGetter.(StrategyDecorator); ok {
		return d.DecorateUpdate(resource, s)
	}
	return s
}

// Object is the constraint satisfied by pointers to the API types we store.
type Object interface {
	runtime.Object
	metav1.Object
}

// AttrFunc returns a storage.AttrFunc for objects of type T. The labels and the object-meta
// fields (metadata.name, and metadata.namespace when namespaced) come from the generic
// storage.DefaultNamespaceScopedAttr or storage.DefaultClusterScopedAttr; fieldsOf adds the
// kind's own selectable fields (it may be nil for kinds with none). Object-meta fields win
// over fieldsOf's fields of the same name.
func AttrFunc[T Object](resource string, namespaced bool, fieldsOf func(T) fields.Set) storage.AttrFunc {
	objectMetaAttrs := storage.DefaultClusterScopedAttr
	if namespaced {
		objectMetaAttrs = storage.DefaultNamespaceScopedAttr
	}
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		o, ok := obj.(T)
		if !ok {
			var want T
			return nil, nil, fmt.Errorf("%s: get attrs: object is %T, not %T", resource, obj, want)
		}
		ls, fs, err := objectMetaAttrs(o)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: get attrs: %w", resource, err)
		}
		if fieldsOf != nil {
			own := generic.MergeFieldsSets(fields.Set{}, fieldsOf(o))
			fs = generic.MergeFieldsSets(own, fs)
		}
		return ls, fs, nil
	}
}

// BaseStrategy carries what every kubewalk strategy shares: typing through the scheme, random
// suffixes for generateName, no create on update, unconditional updates, no canonicalization,
// no warnings and no reset fields. Resource strategies embed it and override what differs.
type BaseStrategy struct {
	runtime.ObjectTyper
	names.NameGenerator
}

// NewBaseStrategy returns a BaseStrategy typing objects with typer.
func NewBaseStrategy(typer runtime.ObjectTyper) BaseStrategy {
	return BaseStrategy{ObjectTyper: typer, NameGenerator: names.SimpleNameGenerator}
}

// AllowCreateOnUpdate reports false: an update (PUT) of a missing object is NotFound.
func (BaseStrategy) AllowCreateOnUpdate(context.Context) bool { return false }

// AllowUnconditionalUpdate reports true: updates without a resourceVersion are accepted.
func (BaseStrategy) AllowUnconditionalUpdate(context.Context) bool { return true }

// Canonicalize leaves the object as it is.
func (BaseStrategy) Canonicalize(runtime.Object) {}

// WarningsOnCreate returns no warnings.
func (BaseStrategy) WarningsOnCreate(context.Context, runtime.Object) []string { return nil }

// WarningsOnUpdate returns no warnings.
func (BaseStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetResetFields reports that the strategy resets no fields.
func (BaseStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set { return nil }

// ResetFields returns the reset field set of one API version. Each path is a dot-separated
// field path such as "status" or "metadata.ownerReferences".
func ResetFields(gv schema.GroupVersion, paths ...string) map[fieldpath.APIVersion]*fieldpath.Set {
	set := fieldpath.NewSet()
	for _, p := range paths {
		var elems []any
		for _, name := range strings.Split(p, ".") {
			elems = append(elems, name)
		}
		set.Insert(fieldpath.MakePathOrDie(elems...))
	}
	return map[fieldpath.APIVersion]*fieldpath.Set{fieldpath.APIVersion(gv.String()): set}
}
