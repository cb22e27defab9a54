package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// REST is the storage of deployments.
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

var resource = appsv1.Resource("deployments")

// Storage is the storage of deployments and their subresources, as upstream's
// DeploymentStorage (without the deprecated rollback subresource, which apps/v1 does not
// serve). All three share one store.
type Storage struct {
	Deployment *REST
	Status     *StatusREST
	Scale      *ScaleREST
}

// NewStorage returns the storage of deployments, deployments/status and deployments/scale.
// typer must be the scheme the group is installed with; optsGetter supplies the storage
// settings for deployments.apps.
func NewStorage(typer runtime.ObjectTyper, optsGetter generic.RESTOptionsGetter) (Storage, error) {
	st, err := store.New(optsGetter, store.Config{
		Resource:       resource,
		Singular:       "deployment",
		NewFunc:        func() runtime.Object { return &appsv1.Deployment{} },
		NewListFunc:    func() runtime.Object { return &appsv1.DeploymentList{} },
		Strategy:       newStrategy(typer),
		TableConvertor: tableConvertor,
		AttrFunc:       GetAttrs,
	})
	if err != nil {
		return Storage{}, err
	}
	statusStore := *st
	status := statusStrategy{newStrategy(typer)}
	statusStore.UpdateStrategy = status
	statusStore.ResetFieldsStrategy = status
	return Storage{
		Deployment: &REST{st},
		Status:     &StatusREST{store: &statusStore},
		Scale:      &ScaleREST{store: st},
	}, nil
}

// ShortNames implements rest.ShortNamesProvider: `kubectl get deploy`.
func (*REST) ShortNames() []string { return []string{"deploy"} }

// Categories implements rest.CategoriesProvider: deployments are part of `kubectl get all`.
func (*REST) Categories() []string { return []string{"all"} }

// StatusREST is the storage of deployments/status: it reads whole deployments and updates only
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

// New returns an empty deployment.
func (r *StatusREST) New() runtime.Object { return &appsv1.Deployment{} }

// Destroy does nothing: the underlying storage belongs to the deployments REST.
func (r *StatusREST) Destroy() {}

// Get returns a deployment; patches of the status read it through Get.
func (r *StatusREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, options)
}

// Update updates the status of a deployment. It never creates one.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, options)
}

// GetResetFields reports that status updates reset the spec and the labels.
func (r *StatusREST) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return r.store.GetResetFields()
}

// ConvertToTable renders deployments as the deployments resource does.
func (r *StatusREST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// replicasPath maps each served version of the group to where a deployment keeps its
// replicas, so server-side apply can move the ownership of spec.replicas between a deployment
// and its Scale (upstream's replicasPathInDeployment).
func replicasPath() managedfields.ResourcePathMappings {
	return managedfields.ResourcePathMappings{apis.AppsV1.String(): fieldpath.MakePathOrDie("spec", "replicas")}
}

// ScaleREST is the storage of deployments/scale: a deployment seen as an autoscaling/v1
// Scale, its spec.replicas and status.replicas and its selector. `kubectl scale` and the
// HorizontalPodAutoscaler write it; writing it changes the deployment's spec.replicas.
type ScaleREST struct {
	store *genericregistry.Store
}

var (
	_ rest.Patcher                  = &ScaleREST{}
	_ rest.GroupVersionKindProvider = &ScaleREST{}
	_ rest.TableConvertor           = &ScaleREST{}
)

// GroupVersionKind reports the kind this subresource reads and writes: autoscaling/v1 Scale,
// whatever the group version it is served in. Discovery reports it, and clients such as
// kubectl scale use it to build the request body.
func (r *ScaleREST) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind {
	return apis.AutoscalingV1.WithKind("Scale")
}

// New returns an empty Scale.
func (r *ScaleREST) New() runtime.Object { return &autoscalingv1.Scale{} }

// Destroy does nothing: the underlying storage belongs to the deployments REST.
func (r *ScaleREST) Destroy() {}

// Get returns the Scale of a deployment.
func (r *ScaleREST) Get(ctx context.Context, name string, options *metav1.GetOptions) (runtime.Object, error) {
	obj, err := r.store.Get(ctx, name, options)
	if err != nil {
		return nil, err
	}
	scale, err := scaleFromDeployment(obj.(*appsv1.Deployment))
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return scale, nil
}

// Update changes a deployment's replicas through its Scale: the store reads the deployment,
// scaleUpdatedObjectInfo turns it into the old Scale, applies the request to it, checks the
// result and writes its replicas back into the deployment, which the store then validates and
// writes as any update of the deployment.
func (r *ScaleREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc,
	updateValidation rest.ValidateObjectUpdateFunc, _ bool, options *metav1.UpdateOptions,
) (runtime.Object, bool, error) {
	obj, _, err := r.store.Update(ctx, name, &scaleUpdatedObjectInfo{name: name, reqObjInfo: objInfo},
		toScaleCreateValidation(createValidation), toScaleUpdateValidation(updateValidation), false, options)
	if err != nil {
		return nil, false, err
	}
	scale, err := scaleFromDeployment(obj.(*appsv1.Deployment))
	if err != nil {
		return nil, false, apierrors.NewBadRequest(err.Error())
	}
	return scale, false, nil
}

// ConvertToTable renders the deployment as the deployments resource does.
func (r *ScaleREST) ConvertToTable(ctx context.Context, obj, tableOptions runtime.Object) (*metav1.Table, error) {
	return r.store.ConvertToTable(ctx, obj, tableOptions)
}

// toScaleCreateValidation and toScaleUpdateValidation hand admission the Scale, not the
// deployment: a validating admission plugin sees the object of the request.
func toScaleCreateValidation(f rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return func(ctx context.Context, obj runtime.Object) error {
		scale, err := scaleFromDeployment(obj.(*appsv1.Deployment))
		if err != nil {
			return err
		}
		return f(ctx, scale)
	}
}

func toScaleUpdateValidation(f rest.ValidateObjectUpdateFunc) rest.ValidateObjectUpdateFunc {
	return func(ctx context.Context, obj, old runtime.Object) error {
		newScale, err := scaleFromDeployment(obj.(*appsv1.Deployment))
		if err != nil {
			return err
		}
		oldScale, err := scaleFromDeployment(old.(*appsv1.Deployment))
		if err != nil {
			return err
		}
		return f(ctx, newScale, oldScale)
	}
}

// scaleFromDeployment returns the Scale of a deployment: its identity, its desired and current
// replicas and its selector as a string.
func scaleFromDeployment(d *appsv1.Deployment) (*autoscalingv1.Scale, error) {
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s: selector: %w", d.Name, err)
	}
	var replicas int32
	if d.Spec.Replicas != nil {
		replicas = *d.Spec.Replicas
	}
	return &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{
			Name:              d.Name,
			Namespace:         d.Namespace,
			UID:               d.UID,
			ResourceVersion:   d.ResourceVersion,
			CreationTimestamp: d.CreationTimestamp,
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas},
		Status: autoscalingv1.ScaleStatus{Replicas: d.Status.Replicas, Selector: selector.String()},
	}, nil
}

// scaleUpdatedObjectInfo turns the stored deployment into the old Scale, lets the request
// update that, and turns the new Scale back into a deployment (upstream's type of the same
// name).
type scaleUpdatedObjectInfo struct {
	name       string
	reqObjInfo rest.UpdatedObjectInfo
}

// Preconditions returns the request's preconditions.
func (i *scaleUpdatedObjectInfo) Preconditions() *metav1.Preconditions {
	return i.reqObjInfo.Preconditions()
}

// UpdatedObject returns the deployment with the replicas of the Scale the request made. The
// managed fields move with them: the Scale's manager of spec.replicas owns the deployment's.
func (i *scaleUpdatedObjectInfo) UpdatedObject(ctx context.Context, oldObj runtime.Object) (runtime.Object, error) {
	d, ok := oldObj.DeepCopyObject().(*appsv1.Deployment)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected existing object type to be Deployment, got %T", oldObj))
	}
	// A zero resourceVersion means the store found no deployment.
	if d.ResourceVersion == "" {
		return nil, apierrors.NewNotFound(appsv1.Resource("deployments/scale"), i.name)
	}
	gv := apis.AppsV1
	if info, ok := genericapirequest.RequestInfoFrom(ctx); ok {
		requested := schema.GroupVersion{Group: info.APIGroup, Version: info.APIVersion}
		if _, served := replicasPath()[requested.String()]; !served {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("deployments/scale is not served in %s", requested))
		}
		gv = requested
	}
	managed := managedfields.NewScaleHandler(d.ManagedFields, gv, replicasPath())

	oldScale, err := scaleFromDeployment(d)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if oldScale.ManagedFields, err = managed.ToSubresource(); err != nil {
		return nil, err
	}
	obj, err := i.reqObjInfo.UpdatedObject(ctx, oldScale)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, apierrors.NewBadRequest("nil update passed to Scale")
	}
	scale, ok := obj.(*autoscalingv1.Scale)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("expected input object type to be Scale, but %T", obj))
	}
	if errs := validateScale(scale); len(errs) > 0 {
		return nil, apierrors.NewInvalid(apis.AutoscalingV1.WithKind("Scale").GroupKind(), d.Name, errs)
	}
	if scale.UID != "" && scale.UID != d.UID {
		return nil, apierrors.NewConflict(appsv1.Resource("deployments/scale"), d.Name,
			fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", scale.UID, d.UID))
	}
	replicas := scale.Spec.Replicas
	d.Spec.Replicas = &replicas
	d.ResourceVersion = scale.ResourceVersion
	if d.ManagedFields, err = managed.ToParent(scale.ManagedFields); err != nil {
		return nil, err
	}
	return d, nil
}

// validateScale checks what a Scale update may change, as upstream's ValidateScale: its managed
// fields, and replicas, which must not be negative.
func validateScale(scale *autoscalingv1.Scale) field.ErrorList {
	errs := metav1validation.ValidateManagedFields(scale.ManagedFields, field.NewPath("metadata", "managedFields"))
	return append(errs, apivalidation.ValidateNonnegativeField(int64(scale.Spec.Replicas), field.NewPath("spec", "replicas"))...)
}
