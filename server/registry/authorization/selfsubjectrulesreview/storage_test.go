package selfsubjectrulesreview

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// fakeResolver returns fixed rules and records whom it was asked about.
type fakeResolver struct {
	user        user.Info
	namespace   string
	resource    []authorizer.ResourceRuleInfo
	nonResource []authorizer.NonResourceRuleInfo
	incomplete  bool
	err         error
}

func (f *fakeResolver) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	f.user, f.namespace = u, namespace
	return f.resource, f.nonResource, f.incomplete, f.err
}

func TestCreate(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"system:authenticated"}}
	tests := []struct {
		name     string
		resolver fakeResolver
		want     authorizationv1.SubjectRulesReviewStatus
	}{
		{
			name: "rules",
			resolver: fakeResolver{
				resource: []authorizer.ResourceRuleInfo{
					&authorizer.DefaultResourceRuleInfo{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
					&authorizer.DefaultResourceRuleInfo{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"token"}},
				},
				nonResource: []authorizer.NonResourceRuleInfo{
					&authorizer.DefaultNonResourceRuleInfo{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*"}},
				},
			},
			want: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules: []authorizationv1.ResourceRule{
					{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"configmaps"}},
					{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"token"}},
				},
				NonResourceRules: []authorizationv1.NonResourceRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api", "/api/*"}}},
			},
		},
		{
			name:     "no rules",
			resolver: fakeResolver{},
			want: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules: []authorizationv1.ResourceRule{}, NonResourceRules: []authorizationv1.NonResourceRule{},
			},
		},
		{
			name: "incomplete with an error",
			resolver: fakeResolver{
				resource:   []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
				incomplete: true, err: errors.New(`role "ghost" not found`),
			},
			want: authorizationv1.SubjectRulesReviewStatus{
				ResourceRules:    []authorizationv1.ResourceRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}},
				NonResourceRules: []authorizationv1.NonResourceRule{},
				Incomplete:       true, EvaluationError: `role "ghost" not found`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := genericapirequest.WithUser(context.Background(), alice)
			in := &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}
			out, err := NewREST(&tt.resolver).Create(ctx, in, nil, nil)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			ssrr := out.(*authorizationv1.SelfSubjectRulesReview)
			if !reflect.DeepEqual(ssrr.Status, tt.want) {
				t.Errorf("status = %+v, want %+v", ssrr.Status, tt.want)
			}
			if ssrr.Spec.Namespace != "default" {
				t.Errorf("spec = %+v", ssrr.Spec)
			}
			if tt.resolver.user != alice || tt.resolver.namespace != "default" {
				t.Errorf("resolver asked about %v in %q", tt.resolver.user, tt.resolver.namespace)
			}
		})
	}
}

func TestCreateRejects(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice"}
	tests := []struct {
		name     string
		user     user.Info
		obj      runtime.Object
		validate func(context.Context, runtime.Object) error
		code     int32
		msg      string
	}{
		{name: "no namespace", user: alice, obj: &authorizationv1.SelfSubjectRulesReview{}, code: http.StatusBadRequest, msg: "no namespace"},
		{name: "no user", obj: &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}}, code: http.StatusBadRequest, msg: "no user"},
		{name: "wrong type", user: alice, obj: &authorizationv1.SelfSubjectAccessReview{}, code: http.StatusBadRequest, msg: "not a SelfSubjectRulesReview"},
		{
			name: "admission rejects", user: alice, code: http.StatusForbidden, msg: "admission says no",
			obj: &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "default"}},
			validate: func(context.Context, runtime.Object) error {
				return apierrors.NewForbidden(authorizationv1.Resource("selfsubjectrulesreviews"), "", errors.New("admission says no"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolver := &fakeResolver{}
			ctx := context.Background()
			if tt.user != nil {
				ctx = genericapirequest.WithUser(ctx, tt.user)
			}
			_, err := NewREST(resolver).Create(ctx, tt.obj, tt.validate, nil)
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != tt.code {
				t.Fatalf("error = %v, want status %d", err, tt.code)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
			if resolver.user != nil {
				t.Errorf("resolver was asked about a rejected review")
			}
		})
	}
}

func TestStorageMetadata(t *testing.T) {
	r := NewREST(&fakeResolver{})
	if r.NamespaceScoped() || r.GetSingularName() != "selfsubjectrulesreview" {
		t.Errorf("NamespaceScoped = %v, GetSingularName = %q", r.NamespaceScoped(), r.GetSingularName())
	}
	if _, ok := r.New().(*authorizationv1.SelfSubjectRulesReview); !ok {
		t.Errorf("New returns %T", r.New())
	}
	r.Destroy()
}
