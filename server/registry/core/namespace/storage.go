package namespace

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	storageerr "k8s.io/apiserver/pkg/storage/errors"
	"k8s.io/apiserver/pkg/util/dryrun"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
	"github.com/kubewalk/kubewalk/server/registry/internal/table"
)

// REST is the storage of namespaces. It wraps the generic store instead of embedding it, as
// kube-apiserver's does, so that DELETE goes through Delete below and no deletecollection is
// served (the store's DeleteCollection would skip termination).
type REST struct {
	store *genericregistry.Store
}

var (
	_ rest.Storage                = &REST{}
	_ rest.Scoper                 = &REST{}
	_ rest.Lister                 = &REST{}
	_ rest.Getter                 = &REST{}
	_ rest.Creater                = &REST{}
	_ rest.Updater                = &REST{}
	_ rest.Patcher                = &REST{}
	_ rest.Watcher                = &REST{}
	_ rest.GracefulDeleter        = &REST{}
	_ rest.ShortNamesProvider     = &REST{}
	_ rest.SingularNameProvider   = &REST{}
	_ rest.TableConvertor         = &REST{}
	_ rest.ResetFieldsStrategy    = &REST{}
	_ rest.StorageVersionProvider = &REST{}
)

var resource = corev1.Resource("namespaces")

// NewREST returns the storage of namespaces and of their status and finalize subresources,
// which share one underlying store. s must be the scheme the API group is installed with;
// optsGetter supplies the storage settings for "namespaces".
func NewREST(s *apis.Scheme, optsGetter generic.RESTOptionsGetter) (*REST, *StatusREST, *FinalizeREST, error) {
	main := newStrategy(s)
	st := &genericregistry.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Namespace{} },
		NewListFunc:               func() runtime.Object { return &corev1.NamespaceList{} },
		DefaultQualifiedResource:  resource,
		SingularQualifiedResource: corev1.Resource("namespace"),
		CreateStrategy:            main,
		UpdateStrategy:            main,
		DeleteStrategy:            main,
		ResetFieldsStrategy:       main,
		ReturnDeletedObject:       true,
		ShouldDeleteDuringUpdate:  shouldDeleteDuringUpdate,
		TableConvertor:            tableConvertor,
	}
	// No PredicateFunc: CompleteWithOptions builds the default one from AttrFunc.
	if err := st.CompleteWithOptions(&generic.StoreOptions{RESTOptions: optsGetter, AttrFunc: GetAttrs}); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: complete store: %w", resource, err)
	}
	store.Decorate(optsGetter, st)

	statusStore := *st
	status := statusStrategy{main}
	statusStore.UpdateStrategy, statusStore.ResetFieldsStrategy = store.DecorateUpdate(optsGetter, st.DefaultQualifiedResource, status), status

	finalizeStore := *st
	finalize := finalizeStrategy{main}
	finalizeStore.UpdateStrategy, finalizeStore.ResetFieldsStrategy = store.DecorateUpdate(optsGetter, st.DefaultQualifiedResource, finalize), finalize

	return &REST{store: st}, &StatusREST{store: &statusStore}, &FinalizeREST{store: &finalizeStore}, nil
}

// NamespaceScoped reports false.
func (r *REST) NamespaceScoped() bool { return r.store.NamespaceScoped() }

// GetSingularName returns "namespace".
func (r *REST) GetSingularName() string { return r.store.GetSingularName() }

// ShortNames implements rest.ShortNamesProvider.
func (*REST) ShortNames() []string { return []string{"ns"} }

// New returns an empty namespace.
func (r *REST) New() runtime.Object { return r.store.New() }

// NewList returns an empty namespace list.
func (r *REST) NewList() runtime.Object { return r.store.NewList() }

// Destroy releases the store's watch cache and etcd client.
func (r *REST) Destroy() { r.store.Destroy() }

// List lists namespaces.
func (r *REST) List(ctx context.Context, options *metainternalversion.ListOptions) (runtime.Object, error) {
	return r.store.List(ctx, options)
}

// Get returns one namespace.
func (r *REST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Watch watches namespaces.
func (r *REST) Watch(ctx context.Context, options *metainternalversion.ListOptions) (watch.Interface, error) {
	return r.store.Watch(ctx, options)
}

// Create creates a namespace.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	return r.store.Create(ctx, obj, createValidation, options)
}

// Update updates a namespace; its status and spec.finalizers stay as stored.
func (r *REST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, forceAllowCreate, options)
}

// ConvertToTable renders namespaces for `kubectl get`.
func (r *REST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// GetResetFields reports that updates reset the status.
func (r *REST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// StorageVersion returns the version namespaces are stored in, for discovery's storage hash.
func (r *REST) StorageVersion() runtime.GroupVersioner { return r.store.StorageVersion() }

// Delete terminates a namespace, as kube-apiserver's namespace REST does. The first DELETE sets
// deletionTimestamp and phase Terminating and keeps the object; a DELETE of a namespace already
// being deleted removes it once spec.finalizers is empty (and, through the generic store,
// metadata.finalizers too). A UID precondition is added so that a namespace recreated under the
// same name is never the one deleted.
func (r *REST) Delete(ctx context.Context, name string, deleteValidation rest.ValidateObjectFunc, options *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := r.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if options == nil {
		options = metav1.NewDeleteOptions(0)
	}
	if options.Preconditions == nil {
		options.Preconditions = &metav1.Preconditions{}
	}
	if options.Preconditions.UID == nil {
		options.Preconditions.UID = &ns.UID
	} else if *options.Preconditions.UID != ns.UID {
		return nil, false, apierrors.NewConflict(resource, name,
			fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", *options.Preconditions.UID, ns.UID))
	}
	if rv := options.Preconditions.ResourceVersion; rv != nil && *rv != ns.ResourceVersion {
		return nil, false, apierrors.NewConflict(resource, name,
			fmt.Errorf("precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *rv, ns.ResourceVersion))
	}

	if ns.DeletionTimestamp.IsZero() {
		key, err := r.store.KeyFunc(ctx, name)
		if err != nil {
			return nil, false, err
		}
		preconditions := storage.Preconditions{UID: options.Preconditions.UID, ResourceVersion: options.Preconditions.ResourceVersion}
		out := r.store.NewFunc()
		err = r.store.Storage.GuaranteedUpdate(ctx, key, out, false, &preconditions,
			storage.SimpleUpdate(func(existing runtime.Object) (runtime.Object, error) {
				existingNS, ok := existing.(*corev1.Namespace)
				if !ok {
					return nil, fmt.Errorf("namespaces: delete: stored object is %T, not *v1.Namespace", existing)
				}
				if err := deleteValidation(ctx, existingNS); err != nil {
					return nil, err
				}
				markTerminating(existingNS, metav1.Now())
				return existingNS, nil
			}),
			dryrun.IsDryRun(options.DryRun), nil)
		if err != nil {
			err = storageerr.InterpretGetError(err, resource, name)
			err = storageerr.InterpretUpdateError(err, resource, name)
			if _, ok := err.(*apierrors.StatusError); !ok {
				err = apierrors.NewInternalError(err)
			}
			return nil, false, err
		}
		return out, false, nil
	}

	if len(ns.Spec.Finalizers) != 0 {
		return ns, false, nil
	}
	return r.store.Delete(ctx, name, deleteValidation, options)
}

var tableConvertor = table.New(resource,
	[]metav1.TableColumnDefinition{
		table.NameColumn,
		{Name: "Status", Type: "string", Description: "The status of the namespace"},
		table.AgeColumn,
	},
	func(ns *corev1.Namespace) table.Row {
		return table.Row{Cells: []any{ns.Name, string(ns.Status.Phase), table.Age(ns.CreationTimestamp)}}
	})

// StatusREST is the storage of namespaces/status: it reads whole namespaces and updates only
// their status.
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

// New returns an empty namespace.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the underlying storage belongs to the namespaces REST.
func (r *StatusREST) Destroy() {}

// Get returns a namespace; patches of the status read it through here.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update updates the status of a namespace. It never creates one.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields reports that status updates reset the spec.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable renders namespaces as the namespaces resource does.
func (r *StatusREST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// FinalizeREST is the storage of namespaces/finalize: PUT only, it updates spec.finalizers and
// keeps the status. Removing the last finalizer of a namespace being deleted removes it.
type FinalizeREST struct {
	store *genericregistry.Store
}

var (
	_ rest.Storage             = &FinalizeREST{}
	_ rest.Updater             = &FinalizeREST{}
	_ rest.ResetFieldsStrategy = &FinalizeREST{}
)

// New returns an empty namespace.
func (r *FinalizeREST) New() runtime.Object { return r.store.New() }

// Destroy does nothing: the underlying storage belongs to the namespaces REST.
func (r *FinalizeREST) Destroy() {}

// Update updates the finalizers of a namespace. It never creates one.
func (r *FinalizeREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields reports that finalize updates reset the status.
func (r *FinalizeREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}
