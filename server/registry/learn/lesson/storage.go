package lesson

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// REST is the storage of lessons.
type REST struct {
	*genericregistry.Store
}

var (
	_ rest.StandardStorage      = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.ShortNamesProvider   = &REST{}
	_ rest.CategoriesProvider   = &REST{}
	_ rest.SingularNameProvider = &REST{}
	_ rest.TableConvertor       = &REST{}
	_ rest.ResetFieldsStrategy  = &REST{}
)

var resource = learn.Resource("lessons")

// NewREST returns the storage of lessons and of their status subresource, which share one
// underlying store. typer must be the scheme the group is installed with; optsGetter supplies
// the storage settings for lessons.learn.kubewalk.io.
//
// One store serves both versions: the group's install puts it under v1 and v1alpha1.
// kube-apiserver builds a store per version instead (e.g. leasecandidates in
// pkg/registry/coordination/rest/storage_coordination.go, once for v1beta1 and once for
// v1alpha2); both would read and write the same keys as the same storage version.
func NewREST(typer runtime.ObjectTyper, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "lesson",
		NewFunc:        func() runtime.Object { return &learn.Lesson{} },
		NewListFunc:    func() runtime.Object { return &learn.LessonList{} },
		Strategy:       newStrategy(typer),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return nil, nil, err
	}
	statusStore := *st
	status := statusStrategy{newStrategy(typer)}
	statusStore.UpdateStrategy = status
	statusStore.ResetFieldsStrategy = status
	return &REST{st}, &StatusREST{store: &statusStore}, nil
}

// ShortNames implements rest.ShortNamesProvider: `kubectl get lsn`.
func (*REST) ShortNames() []string { return []string{"lsn"} }

// Categories implements rest.CategoriesProvider: `kubectl get learn` lists every kind of the
// group (today, lessons).
func (*REST) Categories() []string { return []string{"learn"} }

// StatusREST is the storage of lessons/status: it reads whole lessons and updates only their
// status.
type StatusREST struct {
	store *genericregistry.Store
}

var (
	_ rest.Storage             = &StatusREST{}
	_ rest.Getter              = &StatusREST{}
	_ rest.Updater             = &StatusREST{}
	_ rest.Patcher             = &StatusREST{}
	_ rest.TableConvertor      = &StatusREST{}
	_ rest.ResetFieldsStrategy = &StatusREST{}
)

// New returns an empty lesson.
func (r *StatusREST) New() runtime.Object { return &learn.Lesson{} }

// Destroy does nothing: the underlying storage belongs to the lessons REST, which destroys it.
func (r *StatusREST) Destroy() {}

// Get returns a lesson; patches of the status read the lesson through it.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update updates the status of a lesson. It never creates one, whatever forceAllowCreate says.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields reports that status updates reset the spec.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable renders lessons as the lessons resource does.
func (r *StatusREST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}
