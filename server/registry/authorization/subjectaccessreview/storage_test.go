package subjectaccessreview

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
	tests := []struct {
		name       string
		spec       authorizationv1.SubjectAccessReviewSpec
		authz      recorder
		wantAttrs  authorizer.AttributesRecord
		wantStatus authorizationv1.SubjectAccessReviewStatus
	}{
		{
			name: "user with groups, uid and extra",
			spec: authorizationv1.SubjectAccessReviewSpec{
				User: "alice", UID: "u-1", Groups: []string{"system:authenticated"},
				Extra:              map[string]authorizationv1.ExtraValue{"scopes": {"a", "b"}},
				ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "configmaps"},
			},
			authz: recorder{decision: authorizer.DecisionAllow, reason: "ok"},
			wantAttrs: authorizer.AttributesRecord{
				User: &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"system:authenticated"}, Extra: map[string][]string{"scopes": {"a", "b"}}},
				Verb: "list", Namespace: "default", APIVersion: "*", Resource: "configmaps", ResourceRequest: true,
			},
			wantStatus: authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "ok"},
		},
		{
			name: "group only, non-resource",
			spec: authorizationv1.SubjectAccessReviewSpec{
				Groups:                []string{"system:unauthenticated"},
				NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/healthz"},
			},
			authz:     recorder{decision: authorizer.DecisionNoOpinion, reason: "nobody said yes"},
			wantAttrs: authorizer.AttributesRecord{User: &user.DefaultInfo{Groups: []string{"system:unauthenticated"}}, Verb: "get", Path: "/healthz"},
			wantStatus: authorizationv1.SubjectAccessReviewStatus{
				Reason: "nobody said yes",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The requester (an administrator) is not the subject of the review.
			ctx := genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "admin", Groups: []string{"system:masters"}})
			out, err := NewREST(&tt.authz).Create(ctx, &authorizationv1.SubjectAccessReview{Spec: tt.spec}, nil, &metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			sar := out.(*authorizationv1.SubjectAccessReview)
			if sar.Status != tt.wantStatus {
				t.Errorf("status = %+v, want %+v", sar.Status, tt.wantStatus)
			}
			if !reflect.DeepEqual(tt.authz.attrs, tt.wantAttrs) {
				t.Errorf("authorizer asked about %+v, want %+v", tt.authz.attrs, tt.wantAttrs)
			}
		})
	}
}

func TestCreateRejects(t *testing.T) {
	res := &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}
	tests := []struct {
		name string
		obj  runtime.Object
		code int32
		msg  string
	}{
		{
			name: "neither user nor groups", code: http.StatusUnprocessableEntity, msg: "spec.user: Invalid value: \"\": at least one of user or group must be specified",
			obj: &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{ResourceAttributes: res}},
		},
		{
			name: "both attributes", code: http.StatusUnprocessableEntity, msg: "exactly one",
			obj: &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: "alice", ResourceAttributes: res, NonResourceAttributes: &authorizationv1.NonResourceAttributes{},
			}},
		},
		{
			name: "metadata", code: http.StatusUnprocessableEntity, msg: "must be empty",
			obj: &authorizationv1.SubjectAccessReview{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"a": "b"}}, Spec: authorizationv1.SubjectAccessReviewSpec{User: "alice", ResourceAttributes: res}},
		},
		{
			name: "wrong type", code: http.StatusBadRequest, msg: "not a SubjectAccessReview",
			obj: &authorizationv1.SelfSubjectAccessReview{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			authz := &recorder{}
			_, err := NewREST(authz).Create(context.Background(), tt.obj, nil, nil)
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
	if r.NamespaceScoped() || r.GetSingularName() != "subjectaccessreview" {
		t.Errorf("NamespaceScoped = %v, GetSingularName = %q", r.NamespaceScoped(), r.GetSingularName())
	}
	if _, ok := r.New().(*authorizationv1.SubjectAccessReview); !ok {
		t.Errorf("New returns %T", r.New())
	}
	r.Destroy()
}
