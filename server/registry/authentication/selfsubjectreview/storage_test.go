package selfsubjectreview

import (
	"context"
	"errors"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

func TestCreate(t *testing.T) {
	u := &user.DefaultInfo{Name: "alice", UID: "42", Groups: []string{"devs", "system:authenticated"},
		Extra: map[string][]string{"scopes": {"a", "b"}}}
	ctx := genericapirequest.WithUser(genericapirequest.NewContext(), u)
	r := NewREST()
	validated := false
	out, err := r.Create(ctx, r.New(), func(context.Context, runtime.Object) error { validated = true; return nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	review := out.(*authenticationv1.SelfSubjectReview)
	want := authenticationv1.UserInfo{Username: "alice", UID: "42", Groups: []string{"devs", "system:authenticated"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes": {"a", "b"}}}
	if !reflect.DeepEqual(review.Status.UserInfo, want) || review.CreationTimestamp.IsZero() || !validated {
		t.Errorf("review = %+v (validated %v), want user %+v", review, validated, want)
	}
	u.Groups[0] = "changed"
	if review.Status.UserInfo.Groups[0] != "devs" {
		t.Errorf("review shares the user's group slice")
	}
	if r.NamespaceScoped() || r.GetSingularName() != "selfsubjectreview" {
		t.Errorf("scope or singular name wrong")
	}
}

func TestCreateErrors(t *testing.T) {
	r := NewREST()
	if _, err := r.Create(genericapirequest.NewContext(), r.New(), nil, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("without a user: err = %v, want BadRequest", err)
	}
	ctx := genericapirequest.WithUser(genericapirequest.NewContext(), &user.DefaultInfo{Name: "alice"})
	if _, err := r.Create(ctx, &authenticationv1.TokenReview{}, nil, nil); !apierrors.IsBadRequest(err) {
		t.Errorf("wrong type: err = %v, want BadRequest", err)
	}
	denied := apierrors.NewForbidden(schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"}, "", errors.New("no"))
	_, err := r.Create(ctx, r.New(), func(context.Context, runtime.Object) error { return denied }, nil)
	if !apierrors.IsForbidden(err) {
		t.Errorf("admission denial: err = %v, want Forbidden", err)
	}
}
