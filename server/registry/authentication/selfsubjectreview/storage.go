// Package selfsubjectreview provides the authentication.k8s.io/v1 selfsubjectreviews
// resource: creating one returns the attributes of the user making the request, which is what
// `kubectl auth whoami` shows. Nothing is stored.
package selfsubjectreview

import (
	"context"
	"fmt"
	"slices"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// REST answers SelfSubjectReview creations.
type REST struct{}

var (
	_ rest.Storage              = &REST{}
	_ rest.Creater              = &REST{}
	_ rest.Scoper               = &REST{}
	_ rest.SingularNameProvider = &REST{}
)

// NewREST returns the storage of selfsubjectreviews.
func NewREST() *REST { return &REST{} }

// New returns an empty SelfSubjectReview.
func (*REST) New() runtime.Object { return &authenticationv1.SelfSubjectReview{} }

// Destroy does nothing: REST holds no resources.
func (*REST) Destroy() {}

// NamespaceScoped reports false: selfsubjectreviews are cluster-scoped.
func (*REST) NamespaceScoped() bool { return false }

// GetSingularName implements rest.SingularNameProvider.
func (*REST) GetSingularName() string { return "selfsubjectreview" }

// Create returns a SelfSubjectReview whose status holds the requesting user's name, UID,
// groups and extra attributes. The request body carries nothing else; it only has to be a
// SelfSubjectReview that admission accepts.
func (*REST) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	if _, ok := obj.(*authenticationv1.SelfSubjectReview); !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("selfsubjectreviews: not a SelfSubjectReview: %T", obj))
	}
	if createValidation != nil {
		// Returned as is: the handler maps only unwrapped API status errors to their code.
		if err := createValidation(ctx, obj.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return nil, apierrors.NewBadRequest("selfsubjectreviews: no user present on request")
	}
	info := authenticationv1.UserInfo{
		Username: u.GetName(),
		UID:      u.GetUID(),
		Groups:   slices.Clone(u.GetGroups()),
	}
	if extra := u.GetExtra(); len(extra) > 0 {
		info.Extra = make(map[string]authenticationv1.ExtraValue, len(extra))
		for k, v := range extra {
			info.Extra[k] = slices.Clone(v)
		}
	}
	return &authenticationv1.SelfSubjectReview{
		ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(time.Now())},
		Status:     authenticationv1.SelfSubjectReviewStatus{UserInfo: info},
	}, nil
}
