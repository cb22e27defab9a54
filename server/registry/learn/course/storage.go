package course

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// REST is the storage of courses. It wraps the generic store instead of embedding it, as
// kube-apiserver's namespace storage does, so that it implements every verb's interface but
// rest.CollectionDeleter: the API server serves a verb only when the storage implements it,
// and discovery lists the verbs it found.
type REST struct {
	store *genericregistry.Store
}

var (
	_ rest.Storage              = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.Lister               = &REST{}
	_ rest.Getter               = &REST{}
	_ rest.Creater              = &REST{}
	_ rest.Updater              = &REST{}
	_ rest.Patcher              = &REST{}
	_ rest.Watcher              = &REST{}
	_ rest.GracefulDeleter      = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.CategoriesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.TableConvertor       = &REST{}
	_ rest.ResetFieldsStrategy  = &REST{}
)

var resource = learn.Resource("courses")

// NewREST returns the storage of courses. typer must be the scheme the group is installed
// with; optsGetter supplies the storage settings for courses.learn.kubewalk.io.
func NewREST(typer runtime.ObjectTyper, optsGetter generic.RESTOptionsGetter) (*REST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "course",
		NewFunc:        func() runtime.Object { return &learn.Course{} },
		NewListFunc:    func() runtime.Object { return &learn.CourseList{} },
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

// NamespaceScoped reports false: courses are cluster-scoped.
func (r *REST) NamespaceScoped() bool { return r.store.NamespaceScoped() }

// GetSingularName returns "course".
func (r *REST) GetSingularName() string { return r.store.GetSingularName() }

// ShortNames implements rest.ShortNamesProvider: `kubectl get crs`.
func (*REST) ShortNames() []string { return []string{"crs"} }

// Categories implements rest.CategoriesProvider: `kubectl get learn` lists courses too.
func (*REST) Categories() []string { return []string{"learn"} }

// New returns an empty course.
func (r *REST) New() runtime.Object { return r.store.New() }

// NewList returns an empty course list.
func (r *REST) NewList() runtime.Object { return r.store.NewList() }

// Destroy releases the store's watch cache and etcd client.
func (r *REST) Destroy() { r.store.Destroy() }

// List lists courses.
func (r *REST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}

// Get returns a course.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Watch watches courses.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}

// Create creates a course.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, createValidation, options)
}

// Update updates a course; with a patch, the API server reads it through Get first.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// Delete deletes a course.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return r.store.Delete(ctx, name, deleteValidation, options)
}

// ConvertToTable renders courses for kubectl.
func (r *REST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// GetResetFields reports that updates reset no fields (a course has no status).
func (r *REST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}
