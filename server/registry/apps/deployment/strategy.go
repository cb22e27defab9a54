// Package deployment provides the REST storage of apps/v1 deployments and of their status and
// scale subresources, as kube-apiserver's pkg/registry/apps/deployment does.
//
// Only the storage: kube-apiserver stores a deployment and nothing more. The deployment
// controller in kube-controller-manager makes a ReplicaSet of it, the ReplicaSet controller
// makes its pods, the scheduler puts them on nodes and the kubelets run them, then write their
// status back. kubewalk runs none of these, so a deployment here never gets a ReplicaSet or a
// pod, and its status stays as created (0 ready) unless a client writes deployments/status.
package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create, update and delete behaviour for deployments, as upstream's
// deploymentStrategy: clients own the spec; the status is reset on create and kept on update.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: deployments live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate drops any client-set status and starts the generation at 1.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	d := obj.(*appsv1.Deployment)
	d.Status = appsv1.DeploymentStatus{}
	d.Generation = 1
}

// PrepareForUpdate keeps the stored status and bumps the generation when the spec or the
// annotations change (upstream counts annotations because the deployment controller copies
// them to the ReplicaSets).
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	d.Status = oldD.Status
	if !apiequality.Semantic.DeepEqual(d.Spec, oldD.Spec) || !apiequality.Semantic.DeepEqual(d.Annotations, oldD.Annotations) {
		d.Generation = oldD.Generation + 1
	}
}

// Validate validates a new deployment.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validateDeployment(obj.(*appsv1.Deployment))
}

// ValidateUpdate validates an updated deployment: a valid deployment whose selector has not
// changed.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateDeploymentUpdate(obj.(*appsv1.Deployment), old.(*appsv1.Deployment))
}

// WarningsOnCreate warns, as upstream does, when the name is not a DNS label: pod names and
// hostnames are made from it.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	d := obj.(*appsv1.Deployment)
	if msgs := utilvalidation.IsDNS1123Label(d.Name); len(msgs) != 0 {
		return []string{fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs)}
	}
	return nil
}

// GetResetFields reports that updates of the deployment reset its status.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.AppsV1, "status")
}

// statusStrategy implements updates through deployments/status: clients own the status; the
// spec and labels are kept.
type statusStrategy struct{ strategy }

var _ store.Strategy = statusStrategy{}

// PrepareForUpdate keeps the stored spec and labels.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	d, oldD := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
	d.Spec = oldD.Spec
	d.Labels = oldD.Labels
}

// ValidateUpdate validates a status update.
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateStatusUpdate(obj.(*appsv1.Deployment), old.(*appsv1.Deployment))
}

// GetResetFields reports that status updates reset the spec and the labels.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.AppsV1, "spec", "metadata.labels")
}

var attrs = store.AttrFunc[*appsv1.Deployment]("deployments", true, nil)

// GetAttrs returns the labels of a deployment and its selectable fields, metadata.name and
// metadata.namespace.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }
