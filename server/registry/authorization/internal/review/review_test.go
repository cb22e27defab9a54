package review

import (
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestValidateEmptyMeta(t *testing.T) {
	tests := []struct {
		name string
		meta metav1.ObjectMeta
		errs int
	}{
		{"empty", metav1.ObjectMeta{}, 0},
		{"managed fields only", metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}}, 0},
		{"namespace", metav1.ObjectMeta{Namespace: "default"}, 1},
		{"annotations", metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidateEmptyMeta(tt.meta); len(got) != tt.errs {
				t.Errorf("ValidateEmptyMeta = %v, want %d errors", got, tt.errs)
			}
		})
	}
}

func TestValidateAttributes(t *testing.T) {
	res := &authorizationv1.ResourceAttributes{Verb: "get"}
	nonRes := &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/"}
	tests := []struct {
		name   string
		res    *authorizationv1.ResourceAttributes
		nonRes *authorizationv1.NonResourceAttributes
		errs   int
	}{
		{"resource", res, nil, 0},
		{"non-resource", nil, nonRes, 0},
		{"both", res, nonRes, 1},
		{"neither", nil, nil, 1},
		{"bad label requirement", &authorizationv1.ResourceAttributes{LabelSelector: &authorizationv1.LabelSelectorAttributes{
			Requirements: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpIn}},
		}}, nil, 1},
		{"unknown operator allowed", &authorizationv1.ResourceAttributes{FieldSelector: &authorizationv1.FieldSelectorAttributes{
			Requirements: []metav1.FieldSelectorRequirement{{Key: "a", Operator: "Near", Values: []string{"b"}}},
		}}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidateAttributes(tt.res, tt.nonRes, field.NewPath("spec")); len(got) != tt.errs {
				t.Errorf("ValidateAttributes = %v, want %d errors", got, tt.errs)
			}
		})
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		decision      authorizer.Decision
		allow, denied bool
	}{
		{authorizer.DecisionAllow, true, false},
		{authorizer.DecisionDeny, false, true},
		{authorizer.DecisionNoOpinion, false, false},
	}
	for _, tt := range tests {
		s := Status(tt.decision, "r", nil, authorizer.AttributesRecord{})
		if s.Allowed != tt.allow || s.Denied != tt.denied || s.Reason != "r" || s.EvaluationError != "" {
			t.Errorf("Status(%v) = %+v", tt.decision, s)
		}
	}
}
