// Package review holds what the authorization.k8s.io/v1 review storages share: validation of
// access review specs, and translation of a spec into authorizer attributes and of a decision
// into a review status.
package review

import (
	"errors"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ValidateAttributes checks that exactly one of resourceAttributes and nonResourceAttributes
// is set, at fldPath, and that the selectors of resourceAttributes are well formed.
func ValidateAttributes(res *authorizationv1.ResourceAttributes, nonRes *authorizationv1.NonResourceAttributes, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if (res == nil) == (nonRes == nil) {
		errs = append(errs, field.Invalid(fldPath, nonRes, "exactly one of nonResourceAttributes or resourceAttributes must be specified"))
	}
	if res != nil {
		errs = append(errs, validateFieldSelector(res.FieldSelector, fldPath.Child("resourceAttributes", "fieldSelector"))...)
		errs = append(errs, validateLabelSelector(res.LabelSelector, fldPath.Child("resourceAttributes", "labelSelector"))...)
	}
	return errs
}

// ValidateEmptyMeta checks that a review's metadata is empty: reviews are not stored, so a
// name, namespace, labels and the like would be meaningless. Managed fields are ignored since
// the request handler may set them.
func ValidateEmptyMeta(m metav1.ObjectMeta) field.ErrorList {
	m.ManagedFields = nil
	if apiequality.Semantic.DeepEqual(metav1.ObjectMeta{}, m) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata"), m, "must be empty")}
}

func validateFieldSelector(s *authorizationv1.FieldSelectorAttributes, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := validateSelectorForm(s.RawSelector, len(s.Requirements), fldPath)
	opts := metav1validation.FieldSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
	for i, r := range s.Requirements {
		errs = append(errs, metav1validation.ValidateFieldSelectorRequirement(r, opts, fldPath.Child("requirements").Index(i))...)
	}
	return errs
}

func validateLabelSelector(s *authorizationv1.LabelSelectorAttributes, fldPath *field.Path) field.ErrorList {
	if s == nil {
		return nil
	}
	errs := validateSelectorForm(s.RawSelector, len(s.Requirements), fldPath)
	opts := metav1validation.LabelSelectorValidationOptions{AllowUnknownOperatorInRequirement: true}
	for i, r := range s.Requirements {
		errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(r, opts, fldPath.Child("requirements").Index(i))...)
	}
	return errs
}

// validateSelectorForm checks that a selector has exactly one of a raw form and requirements.
func validateSelectorForm(raw string, requirements int, fldPath *field.Path) field.ErrorList {
	switch {
	case raw != "" && requirements > 0:
		return field.ErrorList{field.Invalid(fldPath.Child("rawSelector"), raw, "may not be specified at the same time as requirements")}
	case raw == "" && requirements == 0:
		return field.ErrorList{field.Required(fldPath.Child("requirements"), fmt.Sprintf("when %s is specified, requirements or rawSelector is required", fldPath))}
	}
	return nil
}

// ResourceAttributes returns the attributes of the resource request that in describes, made
// by u. An empty version means any version. Selectors that do not parse are left out and
// their parse errors recorded, which only broadens the check since requirements are ANDed.
func ResourceAttributes(u user.Info, in authorizationv1.ResourceAttributes) authorizer.AttributesRecord {
	attrs := authorizer.AttributesRecord{
		User:            u,
		Verb:            in.Verb,
		Namespace:       in.Namespace,
		APIGroup:        in.Group,
		APIVersion:      in.Version,
		Resource:        in.Resource,
		Subresource:     in.Subresource,
		Name:            in.Name,
		ResourceRequest: true,
	}
	if attrs.APIVersion == "" {
		attrs.APIVersion = "*"
	}
	if s := in.LabelSelector; s != nil {
		if s.RawSelector != "" {
			if sel, err := labels.Parse(s.RawSelector); err != nil {
				attrs.LabelSelectorParsingErr = err
			} else {
				attrs.LabelSelectorRequirements, _ = sel.Requirements()
			}
		}
		if len(s.Requirements) > 0 {
			attrs.LabelSelectorRequirements, attrs.LabelSelectorParsingErr = labelRequirements(s.Requirements)
		}
	}
	if s := in.FieldSelector; s != nil {
		if s.RawSelector != "" {
			if sel, err := fields.ParseSelector(s.RawSelector); err != nil {
				attrs.FieldSelectorParsingErr = err
			} else {
				attrs.FieldSelectorRequirements = sel.Requirements()
			}
		}
		if len(s.Requirements) > 0 {
			attrs.FieldSelectorRequirements, attrs.FieldSelectorParsingErr = fieldRequirements(s.Requirements)
		}
	}
	return attrs
}

// NonResourceAttributes returns the attributes of the non-resource request that in describes,
// made by u.
func NonResourceAttributes(u user.Info, in authorizationv1.NonResourceAttributes) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: in.Verb, Path: in.Path}
}

var labelOperators = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

// labelRequirements converts the requirements it can and reports the others as errors.
func labelRequirements(in []metav1.LabelSelectorRequirement) (labels.Requirements, error) {
	var (
		reqs labels.Requirements
		errs []error
	)
	for _, r := range in {
		op, ok := labelOperators[r.Operator]
		if !ok {
			errs = append(errs, fmt.Errorf("%q is not a valid label selector operator", r.Operator))
			continue
		}
		values := r.Values
		if len(values) == 0 {
			values = nil
		}
		req, err := labels.NewRequirement(r.Key, op, values)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		reqs = append(reqs, *req)
	}
	return reqs, errors.Join(errs...)
}

// fieldRequirements converts the requirements it can and reports the others as errors. Field
// selectors support only "in" and "notin" with a single value, which mean = and !=.
func fieldRequirements(in []metav1.FieldSelectorRequirement) (fields.Requirements, error) {
	var (
		reqs fields.Requirements
		errs []error
	)
	for _, r := range in {
		var op selection.Operator
		switch r.Operator {
		case metav1.FieldSelectorOpIn:
			op = selection.Equals
		case metav1.FieldSelectorOpNotIn:
			op = selection.NotEquals
		default:
			errs = append(errs, fmt.Errorf("field selector operator %q is not supported", r.Operator))
			continue
		}
		if len(r.Values) != 1 {
			errs = append(errs, fmt.Errorf("field selector operator %q needs exactly one value", r.Operator))
			continue
		}
		reqs = append(reqs, fields.Requirement{Field: r.Key, Operator: op, Value: r.Values[0]})
	}
	return reqs, errors.Join(errs...)
}

// Status builds the status of an access review from an authorizer's answer for attrs.
func Status(decision authorizer.Decision, reason string, err error, attrs authorizer.AttributesRecord) authorizationv1.SubjectAccessReviewStatus {
	return authorizationv1.SubjectAccessReviewStatus{
		Allowed:         decision == authorizer.DecisionAllow,
		Denied:          decision == authorizer.DecisionDeny,
		Reason:          reason,
		EvaluationError: evaluationError(err, attrs),
	}
}

// evaluationError joins the authorizer's error and notes on selectors that did not parse.
func evaluationError(err error, attrs authorizer.AttributesRecord) string {
	var msgs []string
	if err != nil {
		msgs = append(msgs, err.Error())
	}
	if reqs, err := attrs.GetFieldSelector(); err != nil {
		msgs = append(msgs, selectorNote("fieldSelector", len(reqs) > 0))
	}
	if reqs, err := attrs.GetLabelSelector(); err != nil {
		msgs = append(msgs, selectorNote("labelSelector", len(reqs) > 0))
	}
	return strings.Join(msgs, "; ")
}

func selectorNote(name string, partly bool) string {
	if partly {
		return "spec.resourceAttributes." + name + " partially ignored due to parse error"
	}
	return "spec.resourceAttributes." + name + " ignored due to parse error"
}
