// Package selfsubjectaccessreview serves authorization.k8s.io/v1 SelfSubjectAccessReviews:
// "may I do this?", answered for the user making the request (`kubectl auth can-i`).
package selfsubjectaccessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/registry/authorization/internal/review"
)

// REST is the storage of selfsubjectaccessreviews. It stores nothing: Create evaluates the
// review and returns it with its status filled in.
type REST struct {
	authz authorizer.UnconditionalAuthorizer
}

var (
	_ rest.Storage              = (*REST)(nil)
	_ rest.Creater              = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST returns the storage of selfsubjectaccessreviews, which asks authz. authz should be
// the server's whole authorizer chain, so the answer matches what the server would decide.
func NewREST(authz authorizer.UnconditionalAuthorizer) *REST {
	return &REST{authz: authz}
}

// New returns an empty SelfSubjectAccessReview.
func (r *REST) New() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }

// Destroy does nothing: REST holds no resources.
func (r *REST) Destroy() {}

// NamespaceScoped returns false: reviews are cluster-scoped.
func (r *REST) NamespaceScoped() bool { return false }

// GetSingularName returns "selfsubjectaccessreview".
func (r *REST) GetSingularName() string { return "selfsubjectaccessreview" }

// Create validates the review, asks the authorizer whether the requesting user may do what its
// spec describes, and returns the review with status.allowed, denied, reason and
// evaluationError set. An invalid spec yields an Invalid (422) error, a request without a user
// a BadRequest.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	ssar, ok := obj.(*authorizationv1.SelfSubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SelfSubjectAccessReview: %T", obj))
	}
	errs := review.ValidateAttributes(ssar.Spec.ResourceAttributes, ssar.Spec.NonResourceAttributes, field.NewPath("spec"))
	errs = append(errs, review.ValidateEmptyMeta(ssar.ObjectMeta)...)
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: "SelfSubjectAccessReview"}, "", errs)
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("no user present on request")
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	var attrs authorizer.AttributesRecord
	if ra := ssar.Spec.ResourceAttributes; ra != nil {
		attrs = review.ResourceAttributes(u, *ra)
	} else {
		attrs = review.NonResourceAttributes(u, *ssar.Spec.NonResourceAttributes)
	}
	decision, reason, err := r.authz.Authorize(ctx, attrs)
	ssar.Status = review.Status(decision, reason, err, attrs)
	return ssar, nil
}
