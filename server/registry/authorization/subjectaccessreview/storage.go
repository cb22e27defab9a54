// Package subjectaccessreview serves authorization.k8s.io/v1 SubjectAccessReviews: "may this
// user do this?", answered for the user, groups, uid and extra named in the spec.
package subjectaccessreview

import (
	"context"
	"fmt"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/kubewalk/kubewalk/server/registry/authorization/internal/review"
)

// REST is the storage of subjectaccessreviews. It stores nothing: Create evaluates the review
// and returns it with its status filled in.
type REST struct {
	authz authorizer.UnconditionalAuthorizer
}

var (
	_ rest.Storage              = (*REST)(nil)
	_ rest.Creater              = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST returns the storage of subjectaccessreviews, which asks authz. authz should be the
// server's whole authorizer chain, so the answer matches what the server would decide.
func NewREST(authz authorizer.UnconditionalAuthorizer) *REST {
	return &REST{authz: authz}
}

// New returns an empty SubjectAccessReview.
func (r *REST) New() runtime.Object { return &authorizationv1.SubjectAccessReview{} }

// Destroy does nothing: REST holds no resources.
func (r *REST) Destroy() {}

// NamespaceScoped returns false: reviews are cluster-scoped.
func (r *REST) NamespaceScoped() bool { return false }

// GetSingularName returns "subjectaccessreview".
func (r *REST) GetSingularName() string { return "subjectaccessreview" }

// Create validates the review, asks the authorizer whether the user described by spec.user,
// groups, uid and extra may do what the spec describes, and returns the review with
// status.allowed, denied, reason and evaluationError set. An invalid spec, including one with
// neither user nor groups, yields an Invalid (422) error.
func (r *REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	sar, ok := obj.(*authorizationv1.SubjectAccessReview)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a SubjectAccessReview: %T", obj))
	}
	spec := sar.Spec
	specPath := field.NewPath("spec")
	errs := review.ValidateAttributes(spec.ResourceAttributes, spec.NonResourceAttributes, specPath)
	if spec.User == "" && len(spec.Groups) == 0 {
		errs = append(errs, field.Invalid(specPath.Child("user"), spec.User, "at least one of user or group must be specified"))
	}
	errs = append(errs, review.ValidateEmptyMeta(sar.ObjectMeta)...)
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: authorizationv1.GroupName, Kind: "SubjectAccessReview"}, "", errs)
	}
	if createValidation != nil {
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}

	u := &user.DefaultInfo{Name: spec.User, UID: spec.UID, Groups: spec.Groups}
	if spec.Extra != nil {
		u.Extra = make(map[string][]string, len(spec.Extra))
		for k, v := range spec.Extra {
			u.Extra[k] = []string(v)
		}
	}
	var attrs authorizer.AttributesRecord
	if ra := spec.ResourceAttributes; ra != nil {
		attrs = review.ResourceAttributes(u, *ra)
	} else {
		attrs = review.NonResourceAttributes(u, *spec.NonResourceAttributes)
	}
	decision, reason, err := r.authz.Authorize(ctx, attrs)
	sar.Status = review.Status(decision, reason, err, attrs)
	return sar, nil
}
