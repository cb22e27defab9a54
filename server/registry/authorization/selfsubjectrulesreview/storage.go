// Package selfsubjectrulesreview serves authorization.k8s.io/v1 SelfSubjectRulesReviews: "what
// may I do in this namespace?", answered for the user making the request
// (`kubectl auth can-i --list`).
package selfsubjectrulesreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// REST is the storage of selfsubjectrulesreviews. It stores nothing: Create lists the rules
// and returns the review with its status filled in.
type REST struct {
	resolver authorizer.RuleResolver
}

var (
	_ rest.Storage              = (*REST)(nil)
	_ rest.Creater              = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST returns the storage of selfsubjectrulesreviews, which lists rules with resolver.
func NewREST(resolver authorizer.RuleResolver) *REST {
	return &REST{resolver: resolver}
}

// New returns an empty SelfSubjectRulesReview.
func (r *REST) New() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }

// Destroy does nothing: REST holds no resources.
func (r *REST) Destroy() {}

// NamespaceScoped returns false: reviews are cluster-scoped.
func (r *REST) NamespaceScoped() bool { return false }

// GetSingularName returns "selfsubjectrulesreview".
func (r *REST) GetSingularName() string { return "selfsubjectrulesreview" }

// Create lists the rules the requesting user holds in spec.namespace, cluster-wide rules
// included, and returns the review with status.resourceRules, nonResourceRules, incomplete
// and evaluationError set. A review without a namespace, or a request without a user, yields a
// BadRequest.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	ssrr, ok := obj.(*authorizationv1.SelfSubjectRulesReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectRulesReview: %T", obj))
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	if ssrr.Spec.Namespace == "" {
		return nil, apierrors.NewBadRequest("no namespace on request")
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	resourceRules, nonResourceRules, incomplete, err := r.resolver.RulesFor(ctx, u, ssrr.Spec.Namespace)
	out := &authorizationv1.SelfSubjectRulesReview{
		Spec: ssrr.Spec,
		Status: authorizationv1.SubjectRulesReviewStatus{
			ResourceRules:    make([]authorizationv1.ResourceRule, 0, len(resourceRules)),
			NonResourceRules: make([]authorizationv1.NonResourceRule, 0, len(nonResourceRules)),
			Incomplete:       incomplete,
		},
	}
	for _, rule := range resourceRules {
		out.Status.ResourceRules = append(out.Status.ResourceRules, authorizationv1.ResourceRule{
			Verbs:         rule.GetVerbs(),
			APIGroups:     rule.GetAPIGroups(),
			Resources:     rule.GetResources(),
			ResourceNames: rule.GetResourceNames(),
		})
	}
	for _, rule := range nonResourceRules {
		out.Status.NonResourceRules = append(out.Status.NonResourceRules, authorizationv1.NonResourceRule{
			Verbs:           rule.GetVerbs(),
			NonResourceURLs: rule.GetNonResourceURLs(),
		})
	}
	if err != nil {
		out.Status.EvaluationError = err.Error()
	}
	return out, nil
}
