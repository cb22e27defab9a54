package pod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// REST is the storage of pods.
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

var resource = corev1.Resource("pods")

// NewREST returns the storage of pods and of their status subresource, which share one
// underlying store. s must be the scheme the API group is installed with; optsGetter supplies
// the storage settings for "pods".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "pod",
		NewFunc:        func() runtime.Object { return &corev1.Pod{} },
		NewListFunc:    func() runtime.Object { return &corev1.PodList{} },
		Strategy:       newStrategy(s),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return nil, nil, err
	}
	statusStore := *st
	status := statusStrategy{newStrategy(s)}
	statusStore.UpdateStrategy = store.DecorateUpdate(optsGetter, st.DefaultQualifiedResource, status)
	statusStore.ResetFieldsStrategy = status
	return &REST{st}, &StatusREST{store: &statusStore}, nil
}

// ShortNames implements rest.ShortNamesProvider.
func (*REST) ShortNames() []string { return []string{"po"} }

// Categories implements rest.CategoriesProvider: pods are part of `kubectl get all`.
func (*REST) Categories() []string { return []string{"all"} }

// StatusREST is the storage of pods/status: it reads whole pods and updates only their status.
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

// New returns an empty pod.
func (r *StatusREST) New() runtime.Object { return &corev1.Pod{} }

// Destroy does nothing: the underlying storage belongs to the pods REST, which destroys it.
func (r *StatusREST) Destroy() {}

// Get returns a pod; patches of the status read the pod through it.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update updates the status of a pod. It never creates one, whatever forceAllowCreate says.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields reports that status updates reset the spec and owner references.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable renders pods as the pods resource does.
func (r *StatusREST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}
