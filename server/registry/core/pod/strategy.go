// Package pod provides the REST storage of core/v1 pods and of their status subresource.
//
// kubewalk runs no kubelet: pods are stored and validated like kube-apiserver does but never
// run, and deleting a pod removes it at once (there is no graceful deletion, which in kube
// waits for the kubelet to stop the containers; kube deletes unscheduled pods at once too).
package pod

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/registry/internal/store"
)

// strategy implements create, update and delete behaviour for the pods resource: clients own
// the spec, the status is reset.
type strategy struct{ store.BaseStrategy }

var _ store.Strategy = strategy{}

func newStrategy(typer runtime.ObjectTyper) strategy {
	return strategy{store.NewBaseStrategy(typer)}
}

// NamespaceScoped reports true: pods live in namespaces.
func (strategy) NamespaceScoped() bool { return true }

// PrepareForCreate drops any client-set status: a new pod is Pending, with the QoS class its
// resources give it. Its generation starts at 1.
func (strategy) PrepareForCreate(_ context.Context, obj runtime.Object) {
	pod := obj.(*corev1.Pod)
	pod.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: qosClass(&pod.Spec)}
	pod.Generation = 1
}

// PrepareForUpdate keeps the stored status (status changes go through pods/status) and bumps
// the generation when the spec changes.
func (strategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	pod.Status = oldPod.Status
	if !apiequality.Semantic.DeepEqual(pod.Spec, oldPod.Spec) {
		pod.Generation = oldPod.Generation + 1
	}
}

// Validate validates a new pod.
func (strategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	return validatePod(obj.(*corev1.Pod))
}

// ValidateUpdate validates an updated pod: beyond a valid pod, only container images,
// activeDeadlineSeconds and added tolerations may change in the spec.
func (strategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	errs := apivalidation.ValidateObjectMetaUpdate(&pod.ObjectMeta, &oldPod.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validatePod(pod)...)
	return append(errs, validateSpecUpdate(&pod.Spec, &oldPod.Spec, field.NewPath("spec"))...)
}

// WarningsOnCreate warns about spec values kube accepts but that do not do what they say.
func (strategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	return warnings(obj.(*corev1.Pod))
}

// WarningsOnUpdate warns about spec values kube accepts but that do not do what they say.
func (strategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return warnings(obj.(*corev1.Pod))
}

// GetResetFields reports that updates of the main resource reset the status.
func (strategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.CoreV1, "status")
}

// statusStrategy implements updates through pods/status: clients own the status, the spec and
// owner references are kept.
type statusStrategy struct{ strategy }

var _ store.Strategy = statusStrategy{}

// PrepareForUpdate keeps the stored spec and owner references, and the QoS class when the
// client left it out.
func (statusStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	pod.Spec = oldPod.Spec
	pod.OwnerReferences = oldPod.OwnerReferences
	if pod.Status.QOSClass == "" {
		pod.Status.QOSClass = oldPod.Status.QOSClass
	}
}

// ValidateUpdate validates a status update.
func (statusStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	pod, oldPod := obj.(*corev1.Pod), old.(*corev1.Pod)
	errs := apivalidation.ValidateObjectMetaUpdate(&pod.ObjectMeta, &oldPod.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateStatusUpdate(pod, oldPod, field.NewPath("status"))...)
}

// WarningsOnUpdate returns no warnings: the spec is not the caller's to change here.
func (statusStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}

// GetResetFields reports that status updates reset the spec and owner references.
func (statusStrategy) GetResetFields() map[fieldpath.APIVersion]*fieldpath.Set {
	return store.ResetFields(apis.CoreV1, "spec", "metadata.ownerReferences")
}

// warnings returns kube's warnings for a negative grace period and for environment variables
// that hide an earlier one of the same name.
func warnings(pod *corev1.Pod) []string {
	var out []string
	spec := field.NewPath("spec")
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		out = append(out, fmt.Sprintf("%s: must be >= 0; negative values are invalid and will be treated as 1",
			spec.Child("terminationGracePeriodSeconds")))
	}
	each := func(containers []corev1.Container, path *field.Path) {
		for i, c := range containers {
			seen := map[string]bool{}
			for j, e := range c.Env {
				if seen[e.Name] {
					out = append(out, fmt.Sprintf("%s: hides previous definition of %q, which may be dropped when using apply",
						path.Index(i).Child("env").Index(j), e.Name))
				}
				seen[e.Name] = true
			}
		}
	}
	each(pod.Spec.InitContainers, spec.Child("initContainers"))
	each(pod.Spec.Containers, spec.Child("containers"))
	return out
}

var attrs = store.AttrFunc("pods", true, func(pod *corev1.Pod) fields.Set {
	podIP := pod.Status.PodIP
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	}
	return fields.Set{
		"spec.nodeName":            pod.Spec.NodeName,
		"spec.restartPolicy":       string(pod.Spec.RestartPolicy),
		"spec.schedulerName":       pod.Spec.SchedulerName,
		"spec.serviceAccountName":  pod.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(pod.Spec.HostNetwork),
		"status.phase":             string(pod.Status.Phase),
		"status.podIP":             podIP,
		"status.nominatedNodeName": pod.Status.NominatedNodeName,
	}
})

// GetAttrs returns the labels of a pod and its selectable fields: metadata.name,
// metadata.namespace and the spec and status fields kube lets pods be selected by.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) { return attrs(obj) }

// qosResources are the resources that decide a pod's QoS class.
var qosResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory}

// qosClass returns the QoS class of a pod: BestEffort without CPU or memory requests and
// limits, Guaranteed when every container limits both and requests what it limits, Burstable
// otherwise. Pod-level resources, when they name CPU or memory, decide alone. A request left
// out counts as equal to the limit, which kube's defaulting makes it.
func qosClass(spec *corev1.PodSpec) corev1.PodQOSClass {
	var all []corev1.ResourceRequirements
	if r := spec.Resources; r != nil && namesQOSResource(*r) {
		all = []corev1.ResourceRequirements{*r}
	} else {
		for _, c := range spec.InitContainers {
			all = append(all, c.Resources)
		}
		for _, c := range spec.Containers {
			all = append(all, c.Resources)
		}
	}
	some, guaranteed := false, true
	for _, r := range all {
		for _, name := range qosResources {
			req, lim := r.Requests[name], r.Limits[name]
			if !req.IsZero() || !lim.IsZero() {
				some = true
			}
			if lim.IsZero() || (!req.IsZero() && req.Cmp(lim) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !some:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func namesQOSResource(r corev1.ResourceRequirements) bool {
	for _, name := range qosResources {
		if _, ok := r.Requests[name]; ok {
			return true
		}
		if _, ok := r.Limits[name]; ok {
			return true
		}
	}
	return false
}
