package selfsubjectaccessreview

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// recorder is an authorizer that records the attributes it is asked about and answers with
// fixed values.
type recorder struct {
	attrs    authorizer.Attributes
	decision authorizer.Decision
	reason   string
	err      error
}

func (r *recorder) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.attrs = a
	return r.decision, r.reason, r.err
}

func TestCreate(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	tests := []struct {
		name       string
		spec       authorizationv1.SelfSubjectAccessReviewSpec
		authz      recorder
		wantAttrs  authorizer.AttributesRecord
		wantStatus authorizationv1.SubjectAccessReviewStatus
	}{
		{
			name: "resource allowed",
			spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: "default", Verb: "get", Resource: "configmaps", Name: "cm",
			}},
			authz: recorder{decision: authorizer.DecisionAllow, reason: "RBAC: allowed by something"},
			wantAttrs: authorizer.AttributesRecord{
				User: alice, Verb: "get", Namespace: "default", APIVersion: "*", Resource: "configmaps", Name: "cm", ResourceRequest: true,
			},
			wantStatus: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "RBAC: allowed by something"},
		},
		{
			name: "subresource in a group and version, no opinion",
			spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "update", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "scale",
			}},
			authz: recorder{decision: authorizer.DecisionNoOpinion},
			wantAttrs: authorizer.AttributesRecord{
				User: alice, Verb: "update", APIGroup: "apps", APIVersion: "v1", Resource: "deployments", Subresource: "scale", ResourceRequest: true,
			},
		},
		{
			name:       "non-resource denied with an error",
			spec:       authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}},
			authz:      recorder{decision: authorizer.DecisionDeny, reason: "no", err: errors.New("webhook down")},
			wantAttrs:  authorizer.AttributesRecord{User: alice, Verb: "get", Path: "/metrics"},
			wantStatus: authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "no", EvaluationError: "webhook down"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewREST(&tt.authz)
			ctx := genericapirequest.WithUser(context.Background(), alice)
			out, err := r.Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: tt.spec}, nil, &metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			ssar := out.(*authorizationv1.SelfSubjectAccessReview)
			if ssar.Status != tt.wantStatus {
				t.Errorf("status = %+v, want %+v", ssar.Status, tt.wantStatus)
			}
			if !reflect.DeepEqual(ssar.Spec, tt.spec) {
				t.Errorf("spec changed to %+v", ssar.Spec)
			}
			if !reflect.DeepEqual(tt.authz.attrs, tt.wantAttrs) {
				t.Errorf("authorizer asked about %+v, want %+v", tt.authz.attrs, tt.wantAttrs)
			}
		})
	}
}

func TestCreateSelectors(t *testing.T) {
	ctx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "alice"})
	tests := []struct {
		name          string
		attrs         authorizationv1.ResourceAttributes
		wantLabels    int
		wantFields    int
		wantEvalError string
	}{
		{
			name: "raw selectors",
			attrs: authorizationv1.ResourceAttributes{
				LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "app=web,tier in (a,b)"},
				FieldSelector: &authorizationv1.FieldSelectorAttributes{RawSelector: "spec.nodeName=n1"},
			},
			wantLabels: 2, wantFields: 1,
		},
		{
			name: "requirements",
			attrs: authorizationv1.ResourceAttributes{
				LabelSelector: &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{
					{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}},
					{Key: "gone", Operator: metav1.LabelSelectorOpDoesNotExist},
				}},
				FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{
					{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpNotIn, Values: []string{"n1"}},
				}},
			},
			wantLabels: 2, wantFields: 1,
		},
		{
			name: "unparsable raw label selector",
			attrs: authorizationv1.ResourceAttributes{
				LabelSelector: &authorizationv1.LabelSelectorAttributes{RawSelector: "!!!"},
			},
			wantEvalError: "spec.resourceAttributes.labelSelector ignored due to parse error",
		},
		{
			name: "partly usable field requirements",
			attrs: authorizationv1.ResourceAttributes{
				FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{
					{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"n1"}},
					{Key: "status.phase", Operator: metav1.FieldSelectorOpExists},
				}},
			},
			wantFields: 1, wantEvalError: "spec.resourceAttributes.fieldSelector partially ignored due to parse error",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			authz := &recorder{decision: authorizer.DecisionAllow}
			attrs := tt.attrs
			attrs.Verb, attrs.Resource = "list", "pods"
			out, err := NewREST(authz).Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs},
			}, nil, nil)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			labels, _ := authz.attrs.GetLabelSelector()
			fields, _ := authz.attrs.GetFieldSelector()
			if len(labels) != tt.wantLabels || len(fields) != tt.wantFields {
				t.Errorf("got %d label and %d field requirements, want %d and %d", len(labels), len(fields), tt.wantLabels, tt.wantFields)
			}
			if len(fields) > 0 && tt.name == "requirements" && fields[0].Operator != selection.NotEquals {
				t.Errorf("notin became %v", fields[0].Operator)
			}
			if got := out.(*authorizationv1.SelfSubjectAccessReview).Status.EvaluationError; got != tt.wantEvalError {
				t.Errorf("evaluationError = %q, want %q", got, tt.wantEvalError)
			}
		})
	}
}

func TestCreateRejects(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice"}
	res := &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}
	nonRes := &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/api"}
	tests := []struct {
		name     string
		user     user.Info
		obj      runtime.Object
		validate func(context.Context, runtime.Object) error
		code     int32
		msg      string
	}{
		{
			name: "both attributes", user: alice, code: http.StatusUnprocessableEntity, msg: "exactly one of nonResourceAttributes or resourceAttributes",
			obj: &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: res, NonResourceAttributes: nonRes}},
		},
		{
			name: "no attributes", user: alice, code: http.StatusUnprocessableEntity, msg: "exactly one",
			obj: &authorizationv1.SelfSubjectAccessReview{},
		},
		{
			name: "namespaced review", user: alice, code: http.StatusUnprocessableEntity, msg: "metadata: Invalid value",
			obj: &authorizationv1.SelfSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}, Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: res}},
		},
		{
			name: "named review", user: alice, code: http.StatusUnprocessableEntity, msg: "must be empty",
			obj: &authorizationv1.SelfSubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: res}},
		},
		{
			name: "selector with both forms", user: alice, code: http.StatusUnprocessableEntity, msg: "spec.resourceAttributes.labelSelector.rawSelector",
			obj: &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "list", Resource: "pods", LabelSelector: &authorizationv1.LabelSelectorAttributes{
					RawSelector: "a=b", Requirements: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists}},
				},
			}}},
		},
		{
			name: "empty selector", user: alice, code: http.StatusUnprocessableEntity, msg: "spec.resourceAttributes.fieldSelector.requirements: Required value",
			obj: &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Verb: "list", Resource: "pods", FieldSelector: &authorizationv1.FieldSelectorAttributes{},
			}}},
		},
		{
			name: "no user", code: http.StatusBadRequest, msg: "no user",
			obj: &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: res}},
		},
		{
			name: "wrong type", user: alice, code: http.StatusBadRequest, msg: "not a SelfSubjectAccessReview",
			obj: &authorizationv1.SubjectAccessReview{},
		},
		{
			name: "admission rejects", user: alice, code: http.StatusForbidden, msg: "admission says no",
			obj: &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{NonResourceAttributes: nonRes}},
			validate: func(context.Context, runtime.Object) error {
				return apierrors.NewForbidden(authorizationv1.Resource("selfsubjectaccessreviews"), "", errors.New("admission says no"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			authz := &recorder{decision: authorizer.DecisionAllow}
			ctx := context.Background()
			if tt.user != nil {
				ctx = genericapirequest.WithUser(ctx, tt.user)
			}
			_, err := NewREST(authz).Create(ctx, tt.obj, tt.validate, nil)
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != tt.code {
				t.Fatalf("error = %v, want status %d", err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
			if authz.attrs != nil {
				t.Errorf("authorizer was asked about a rejected review")
			}
		})
	}
}

func TestStorageMetadata(t *testing.T) {
	r := NewREST(&recorder{})
	if r.NamespaceScoped() || r.GetSingularName() != "selfsubjectaccessreview" {
		t.Errorf("NamespaceScoped = %v, GetSingularName = %q", r.NamespaceScoped(), r.GetSingularName())
	}
	if _, ok := r.New().(*authorizationv1.SelfSubjectAccessReview); !ok {
		t.Errorf("New returns %T", r.New())
	}
	r.Destroy()
}
