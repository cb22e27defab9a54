package deployment

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubewalk/kubewalk/server/registry/core/pod"
)

// The checks below follow kube's pkg/apis/apps/validation (ValidateDeployment,
// ValidateDeploymentSpec, ValidatePodTemplateSpecForReplicaSet, ValidateDeploymentStrategy,
// ValidateDeploymentStatus) at v1.37.2, on the apps/v1 type kubewalk stores.

// validateDeployment validates a deployment's metadata and spec.
func validateDeployment(d *appsv1.Deployment) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&d.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	return append(errs, validateSpec(&d.Spec, field.NewPath("spec"))...)
}

// validateDeploymentUpdate validates an update: a valid deployment whose selector is
// unchanged, since in apps/v1 the selector is immutable.
func validateDeploymentUpdate(d, old *appsv1.Deployment) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateSpec(&d.Spec, field.NewPath("spec"))...)
	return append(errs, apivalidation.ValidateImmutableField(d.Spec.Selector, old.Spec.Selector, field.NewPath("spec", "selector"))...)
}

// validateSpec checks replicas, the selector (required, not empty, and matching the template's
// labels), the pod template (validated as a pod's, with restartPolicy Always), the strategy and
// the counters.
func validateSpec(spec *appsv1.DeploymentSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if spec.Replicas != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*spec.Replicas), path.Child("replicas"))...)
	}
	if spec.Selector == nil {
		errs = append(errs, field.Required(path.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(spec.Selector,
			metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false}, path.Child("selector"))...)
		if len(spec.Selector.MatchLabels)+len(spec.Selector.MatchExpressions) == 0 {
			errs = append(errs, field.Invalid(path.Child("selector"), spec.Selector, "empty selector is invalid for deployment"))
		}
	}
	selector, err := metav1.LabelSelectorAsSelector(spec.Selector)
	if err != nil {
		errs = append(errs, field.Invalid(path.Child("selector"), spec.Selector, "invalid label selector"))
	} else {
		errs = append(errs, validateTemplate(&spec.Template, selector, path.Child("template"))...)
	}
	errs = append(errs, validateStrategy(&spec.Strategy, path.Child("strategy"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(spec.MinReadySeconds), path.Child("minReadySeconds"))...)
	if l := spec.RevisionHistoryLimit; l != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*l), path.Child("revisionHistoryLimit"))...)
	}
	if d := spec.ProgressDeadlineSeconds; d != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*d), path.Child("progressDeadlineSeconds"))...)
		if *d <= spec.MinReadySeconds {
			errs = append(errs, field.Invalid(path.Child("progressDeadlineSeconds"), *d, "must be greater than minReadySeconds"))
		}
	}
	return errs
}

// validateTemplate checks that the selector matches the template's labels, validates the
// template as pods are validated, and requires restartPolicy Always and no
// activeDeadlineSeconds, as upstream's ValidatePodTemplateSpecForReplicaSet does.
func validateTemplate(template *corev1.PodTemplateSpec, selector labels.Selector, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if !selector.Empty() && !selector.Matches(labels.Set(template.Labels)) {
		errs = append(errs, field.Invalid(path.Child("metadata", "labels"), template.Labels, "`selector` does not match template `labels`"))
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(template, path)...)
	if p := template.Spec.RestartPolicy; p != "" && p != corev1.RestartPolicyAlways {
		errs = append(errs, field.NotSupported(path.Child("spec", "restartPolicy"), p, []corev1.RestartPolicy{corev1.RestartPolicyAlways}))
	}
	if template.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Forbidden(path.Child("spec", "activeDeadlineSeconds"), "activeDeadlineSeconds in ReplicaSet is not Supported"))
	}
	return errs
}

// validateStrategy checks the strategy type, and a rolling update's maxUnavailable and
// maxSurge: non-negative integers or percentages, not both zero, maxUnavailable at most 100%.
func validateStrategy(s *appsv1.DeploymentStrategy, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case appsv1.RecreateDeploymentStrategyType:
		if s.RollingUpdate != nil {
			errs = append(errs, field.Forbidden(path.Child("rollingUpdate"), "may not be specified when strategy `type` is 'Recreate'"))
		}
	case appsv1.RollingUpdateDeploymentStrategyType:
		ru := s.RollingUpdate
		if ru == nil {
			return append(errs, field.Required(path.Child("rollingUpdate"), "this should be defaulted and never be nil"))
		}
		p := path.Child("rollingUpdate")
		unavailable, surge := intOrZero(ru.MaxUnavailable), intOrZero(ru.MaxSurge)
		errs = append(errs, validateIntOrPercent(unavailable, p.Child("maxUnavailable"))...)
		errs = append(errs, validateIntOrPercent(surge, p.Child("maxSurge"))...)
		if value(unavailable) == 0 && value(surge) == 0 {
			errs = append(errs, field.Invalid(p.Child("maxUnavailable"), unavailable, "may not be 0 when `maxSurge` is 0"))
		}
		if v, isPercent := percent(unavailable); isPercent && v > 100 {
			errs = append(errs, field.Invalid(p.Child("maxUnavailable"), unavailable, "must not be greater than 100%"))
		}
	default:
		// Upstream reports this at spec.strategy, not spec.strategy.type.
		errs = append(errs, field.NotSupported(path, s.Type, []appsv1.DeploymentStrategyType{
			appsv1.RecreateDeploymentStrategyType, appsv1.RollingUpdateDeploymentStrategyType}))
	}
	return errs
}

func intOrZero(v *intstr.IntOrString) intstr.IntOrString {
	if v == nil {
		return intstr.FromInt32(0)
	}
	return *v
}

// validateIntOrPercent accepts a non-negative integer or a percentage such as "25%".
func validateIntOrPercent(v intstr.IntOrString, path *field.Path) field.ErrorList {
	switch v.Type {
	case intstr.String:
		var errs field.ErrorList
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(path, v, msg))
		}
		return errs
	case intstr.Int:
		return apivalidation.ValidateNonnegativeField(int64(v.IntValue()), path)
	}
	return field.ErrorList{field.Invalid(path, v, "must be an integer or percentage (e.g '5%')")}
}

// percent returns the value of a valid percentage.
func percent(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return n, true
}

// value is a percentage's number or an integer's value.
func value(v intstr.IntOrString) int {
	if n, ok := percent(v); ok {
		return n
	}
	return v.IntValue()
}

// validateStatusUpdate validates a new status: every counter non-negative, no more updated,
// ready or available replicas than replicas, no more available than ready, and a collision
// count that never goes down.
func validateStatusUpdate(d, old *appsv1.Deployment) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&d.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	path := field.NewPath("status")
	st := &d.Status
	for _, c := range []struct {
		name  string
		value int64
	}{
		{"observedGeneration", st.ObservedGeneration},
		{"replicas", int64(st.Replicas)},
		{"updatedReplicas", int64(st.UpdatedReplicas)},
		{"readyReplicas", int64(st.ReadyReplicas)},
		{"availableReplicas", int64(st.AvailableReplicas)},
		{"unavailableReplicas", int64(st.UnavailableReplicas)},
	} {
		errs = append(errs, apivalidation.ValidateNonnegativeField(c.value, path.Child(c.name))...)
	}
	if n := st.TerminatingReplicas; n != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*n), path.Child("terminatingReplicas"))...)
	}
	if n := st.CollisionCount; n != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*n), path.Child("collisionCount"))...)
	}
	const msg = "cannot be greater than status.replicas"
	if st.UpdatedReplicas > st.Replicas {
		errs = append(errs, field.Invalid(path.Child("updatedReplicas"), st.UpdatedReplicas, msg))
	}
	if st.ReadyReplicas > st.Replicas {
		errs = append(errs, field.Invalid(path.Child("readyReplicas"), st.ReadyReplicas, msg))
	}
	if st.AvailableReplicas > st.Replicas {
		errs = append(errs, field.Invalid(path.Child("availableReplicas"), st.AvailableReplicas, msg))
	}
	if st.AvailableReplicas > st.ReadyReplicas {
		errs = append(errs, field.Invalid(path.Child("availableReplicas"), st.AvailableReplicas, "cannot be greater than readyReplicas"))
	}
	if decremented(st.CollisionCount, old.Status.CollisionCount) {
		var v int32
		if st.CollisionCount != nil {
			v = *st.CollisionCount
		}
		errs = append(errs, field.Invalid(path.Child("collisionCount"), v, "cannot be decremented"))
	}
	return errs
}

// decremented reports whether a counter went down or was removed, as upstream's IsDecremented.
func decremented(update, old *int32) bool {
	if update == nil && old != nil {
		return true
	}
	return update != nil && old != nil && *update < *old
}
