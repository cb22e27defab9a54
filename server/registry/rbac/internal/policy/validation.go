package policy

import (
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// RBACName validates the name of an RBAC object: anything that is safe as a URL path segment,
// so names such as "system:controller:foo" are allowed.
func RBACName(name string, prefix bool) []string {
	if prefix {
		return content.IsPathSegmentPrefix(name)
	}
	return content.IsPathSegmentName(name)
}

// PolicyRules validates the rules of a role. Every rule needs a verb and either resources with
// API groups or, for cluster roles only (namespaced false), non-resource URLs.
func PolicyRules(rules []rbacv1.PolicyRule, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, rule := range rules {
		errs = append(errs, policyRule(rule, namespaced, path.Index(i))...)
	}
	return errs
}

func policyRule(rule rbacv1.PolicyRule, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(rule.Verbs) == 0 {
		errs = append(errs, field.Required(path.Child("verbs"), "verbs must contain at least one value"))
	}
	if len(rule.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(path.Child("nonResourceURLs"), rule.NonResourceURLs,
				"namespaced rules cannot apply to non-resource URLs"))
		}
		if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(path.Child("nonResourceURLs"), rule.NonResourceURLs,
				"rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(rule.APIGroups) == 0 {
		errs = append(errs, field.Required(path.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(rule.Resources) == 0 {
		errs = append(errs, field.Required(path.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// AggregationRule validates a cluster role's aggregation rule, if any.
func AggregationRule(rule *rbacv1.AggregationRule, path *field.Path) field.ErrorList {
	if rule == nil {
		return nil
	}
	selectors := path.Child("clusterRoleSelectors")
	if len(rule.ClusterRoleSelectors) == 0 {
		return field.ErrorList{field.Required(selectors, "at least one clusterRoleSelector required if aggregationRule is non-nil")}
	}
	var errs field.ErrorList
	for i := range rule.ClusterRoleSelectors {
		errs = append(errs, metav1validation.ValidateLabelSelector(&rule.ClusterRoleSelectors[i],
			metav1validation.LabelSelectorValidationOptions{}, selectors.Index(i))...)
	}
	return errs
}

// RoleRef validates the role reference of a binding; kinds lists the role kinds it may name.
func RoleRef(ref rbacv1.RoleRef, kinds []string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(path.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	found := false
	for _, k := range kinds {
		found = found || ref.Kind == k
	}
	if !found {
		errs = append(errs, field.NotSupported(path.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		for _, msg := range RBACName(ref.Name, false) {
			errs = append(errs, field.Invalid(path.Child("name"), ref.Name, msg))
		}
	}
	return errs
}

// RoleRefUpdate forbids changing a binding's role reference: kube requires deleting and
// recreating the binding instead.
func RoleRefUpdate(newRef, oldRef rbacv1.RoleRef, path *field.Path) field.ErrorList {
	if newRef == oldRef {
		return nil
	}
	return field.ErrorList{field.Invalid(path, newRef, "cannot change roleRef")}
}

// Subjects validates the subjects of a binding. Subjects of a cluster-scoped binding
// (namespaced false) that are service accounts must name their namespace.
func Subjects(subjects []rbacv1.Subject, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		errs = append(errs, subject(s, namespaced, path.Index(i))...)
	}
	return errs
}

func subject(s rbacv1.Subject, namespaced bool, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	}
	switch s.Kind {
	case rbacv1.ServiceAccountKind:
		if s.Name != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(s.Name, false) {
				errs = append(errs, field.Invalid(path.Child("name"), s.Name, msg))
			}
		}
		if s.APIGroup != "" {
			errs = append(errs, field.NotSupported(path.Child("apiGroup"), s.APIGroup, []string{""}))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, field.Required(path.Child("namespace"), ""))
		}
	case rbacv1.UserKind, rbacv1.GroupKind:
		if s.APIGroup != rbacv1.GroupName {
			errs = append(errs, field.NotSupported(path.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
		}
	default:
		errs = append(errs, field.NotSupported(path.Child("kind"), s.Kind,
			[]string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
	}
	return errs
}
