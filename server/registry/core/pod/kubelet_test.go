package pod

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// podGetter finds the pods it holds.
type podGetter map[string]*corev1.Pod

func (g podGetter) Get(_ context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	if p, ok := g[name]; ok {
		return p, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

// createAuthorizer allows create to the users it names and records what it was asked.
type createAuthorizer struct {
	allowed map[string]bool
	asked   []authorizer.Attributes
}

func (a *createAuthorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	a.asked = append(a.asked, attrs)
	if attrs.GetVerb() == "create" && a.allowed[attrs.GetUser().GetName()] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// requestContext is the context of a request by user with the given verb on pods/<sub> of
// pod name, as the handler chain builds it.
func requestContext(userName, verb, sub, name string) context.Context {
	ctx := genericapirequest.WithNamespace(context.Background(), "default")
	ctx = genericapirequest.WithUser(ctx, &user.DefaultInfo{Name: userName})
	return genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: verb, APIVersion: "v1", Namespace: "default",
		Resource: "pods", Subresource: sub, Name: name,
	})
}

func kubeletStorage(t *testing.T, subs []KubeletSubresource, name string) rest.Storage {
	t.Helper()
	for _, s := range subs {
		if s.Name == name {
			return s.Storage
		}
	}
	t.Fatalf("no pods/%s storage", name)
	return nil
}

// isNoKubelet reports whether err is ErrNoKubelet's answer for pods/sub: code 404, reason
// NotFound, no details naming a pod, and a message that says pods/sub is not served because
// kubewalk runs no kubelet and names upstream.
func isNoKubelet(err error, sub, upstream string) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return false
	}
	st := se.Status()
	return st.Code == http.StatusNotFound && st.Reason == metav1.StatusReasonNotFound && st.Details == nil &&
		strings.Contains(st.Message, "pods/"+sub+" is not served here") &&
		strings.Contains(st.Message, "kubewalk runs no kubelet") &&
		strings.Contains(st.Message, "k8s.io/kubernetes v1.37.2") && strings.Contains(st.Message, upstream)
}

// isPodNotFound reports whether err is the pods storage's NotFound of pod name, not ErrNoKubelet.
func isPodNotFound(err error, name string) bool {
	var se apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &se) {
		return false
	}
	d := se.Status().Details
	return d != nil && d.Kind == "pods" && d.Name == name && !strings.Contains(err.Error(), "kubelet")
}

func TestKubeletSubresources(t *testing.T) {
	pods := podGetter{"web": pod()}
	authz := &createAuthorizer{allowed: map[string]bool{"admin": true}}
	subs := NewKubeletSubresources(pods, authz)
	var names []string
	for _, s := range subs {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "exec,attach,portforward,log" {
		t.Fatalf("subresources = %v", names)
	}

	for _, sub := range []string{"exec", "attach", "portforward"} {
		t.Run(sub, func(t *testing.T) {
			c := kubeletStorage(t, subs, sub).(*ConnectREST)
			if got := c.ConnectMethods(); strings.Join(got, ",") != "GET,POST" {
				t.Errorf("methods = %v", got)
			}
			if opts, _, _ := c.NewConnectOptions(); opts != nil {
				t.Errorf("connect options = %T, want none", opts)
			}

			// A WebSocket GET by a user allowed to create: 404 with the explanation.
			authz.asked = nil
			_, err := c.Connect(requestContext("admin", "get", sub, "web"), "web", nil, nil)
			if !isNoKubelet(err, sub, "pkg/registry/core/pod/rest/subresources.go") {
				t.Errorf("admin: %v, want 404 saying pods/%s is not served, naming the upstream", err, sub)
			}
			if len(authz.asked) != 1 || authz.asked[0].GetVerb() != "create" || authz.asked[0].GetSubresource() != sub {
				t.Errorf("authorizer asked %v, want create pods/%s once", authz.asked, sub)
			}

			// A user not allowed to create: 403, in the authorization filter's words.
			_, err = c.Connect(requestContext("bob", "get", sub, "web"), "web", nil, nil)
			if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `cannot create resource "pods/`+sub+`"`) {
				t.Errorf("bob: %v, want Forbidden to create pods/%s", err, sub)
			}

			// A POST (SPDY) was authorized as create by the filter already.
			authz.asked = nil
			_, err = c.Connect(requestContext("bob", "create", sub, "web"), "web", nil, nil)
			if !isNoKubelet(err, sub, "subresources.go") || len(authz.asked) != 0 {
				t.Errorf("create request: %v, authorizer asked %d times; want 404 not served, without asking", err, len(authz.asked))
			}

			// A missing pod is a plain 404, not the not-served one.
			_, err = c.Connect(requestContext("admin", "create", sub, "nope"), "nope", nil, nil)
			if !isPodNotFound(err, "nope") {
				t.Errorf("missing pod: %v, want the plain NotFound of pod nope", err)
			}
		})
	}

	t.Run("log", func(t *testing.T) {
		l := kubeletStorage(t, subs, "log").(*LogREST)
		_, err := l.Get(requestContext("admin", "get", "log", "web"), "web", &metav1.GetOptions{})
		if !isNoKubelet(err, "log", "pkg/registry/core/pod/rest/log.go") {
			t.Errorf("log: %v, want 404 saying pods/log is not served, naming the upstream", err)
		}
		if _, err := l.Get(requestContext("admin", "get", "log", "nope"), "nope", &metav1.GetOptions{}); !isPodNotFound(err, "nope") {
			t.Errorf("missing pod: %v, want the plain NotFound of pod nope", err)
		}
		if got := l.ProducesMIMETypes("GET"); strings.Join(got, ",") != "text/plain" {
			t.Errorf("MIME types = %v", got)
		}
	})

	for sub, want := range map[string]runtime.Object{
		"exec": &corev1.PodExecOptions{}, "attach": &corev1.PodAttachOptions{},
		"portforward": &corev1.PodPortForwardOptions{}, "log": &corev1.Pod{},
	} {
		if got := kubeletStorage(t, subs, sub).New(); fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
			t.Errorf("pods/%s New() = %T, want %T", sub, got, want)
		}
	}
}
