package attempt

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// REST is the storage of attempts. It wraps the generic store and implements only the
// interfaces of the verbs attempts have (create, get, list, watch, delete): with no
// rest.Updater the API server serves no PUT or PATCH, and with no rest.CollectionDeleter no
// deletecollection; discovery lists the five verbs.
type REST struct {
	store *genericregistry.Store
}

var (
	_ rest.Storage              = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.Creater              = &REST{}
	_ rest.Getter               = &REST{}
	_ rest.Lister               = &REST{}
	_ rest.Watcher              = &REST{}
	_ rest.GracefulDeleter      = &REST{}
	_ rest.CategoriesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.TableConvertor       = &REST{}
)

var resource = learn.Resource("attempts")

// NewREST returns the storage of attempts. typer must be the scheme the group is installed
// with; optsGetter supplies the storage settings for attempts.learn.kubewalk.io.
func NewREST(typer runtime.ObjectTyper, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "attempt",
		NewFunc:        func() runtime.Object { return &learn.Attempt{} },
		NewListFunc:    func() runtime.Object { return &learn.AttemptList{} },
		Strategy:       newStrategy(typer),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return nil, err
	}
	return &REST{store: st}, nil
}

// Store returns the generic store behind r.
func (r *REST) Store() *genericregistry.Store { return r.store }

// NamespaceScoped reports true.
func (r *REST) NamespaceScoped() bool { return r.store.NamespaceScoped() }

// GetSingularName returns "attempt".
func (r *REST) GetSingularName() string { return r.store.GetSingularName() }

// Categories implements rest.CategoriesProvider: `kubectl get learn` lists attempts too.
func (*REST) Categories() []string { return []string{"learn"} }

// New returns an empty attempt.
func (r *REST) New() runtime.Object { return r.store.New() }

// NewList returns an empty attempt list.
func (r *REST) NewList() runtime.Object { return r.store.NewList() }

// Destroy releases the store's watch cache and etcd client.
func (r *REST) Destroy() { r.store.Destroy() }

// Create records an attempt.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, createValidation, options)
}

// Get returns an attempt.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// List lists attempts.
func (r *REST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}

// Watch watches attempts.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}

// Delete deletes an attempt (the namespace controller deletes them one by one when their
// namespace goes).
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return r.store.Delete(ctx, name, deleteValidation, options)
}

// ConvertToTable renders attempts for kubectl.
func (r *REST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}
