package pod

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/handlers/responsewriters"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// The pod subresources below are the ones kube-apiserver serves by proxying the request to
// the kubelet of the pod's node (k8s.io/kubernetes v1.37.2 pkg/registry/core/pod/rest: ExecREST,
// AttachREST and PortForwardREST in subresources.go, LogREST in log.go). kubewalk runs no
// kubelet, so no container ever runs and there is nothing to proxy to. They are registered
// anyway, so that discovery lists them, RBAC names them (pods/exec, pods/log, ...) and a
// request gets the authorization kube would give it, then an answer that says why it cannot be
// served: 404 Not Found, because this server does not serve them and never will, with a
// message that says so and names the upstream code, so that it cannot be taken for "pod not
// found". (503 Service Unavailable would tell the client to try again later, and no later
// would help.) Without them the request would fall through to the generic 404 "the server
// could not find the requested resource", which says nothing.
//
// kube-apiserver itself refuses exec, attach and portforward of a pod no node runs with 400
// "pod <name> does not have a host assigned", and answers pods/log of one with 204 No Content
// (LogLocation finds no location; StreamObject writes 204 for a stream with nothing in it).

// KubeletSubresource is one pod subresource served by the kubelet.
type KubeletSubresource struct {
	// Name is the subresource: "exec", "attach", "portforward" or "log".
	Name string
	// Storage answers requests for it.
	Storage rest.Storage
}

// NewKubeletSubresources returns the storage of pods/exec, pods/attach, pods/portforward and
// pods/log. Each refuses every request with ErrNoKubelet's 404 once the pod is found; a
// missing pod is the plain 404 Not Found of the pods storage, as in kube. The connecting ones (exec, attach, portforward)
// first check, as kube does, that the user may create the subresource: kubectl's WebSocket
// request is a GET, which the authorization filter checked as "get" only. pods must be the
// pods storage; authz the server's authorizer.
func NewKubeletSubresources(pods rest.Getter, authz authorizer.UnconditionalAuthorizer) []KubeletSubresource {
	// The subresources, with the upstream type that serves each.
	subresources := []struct{ name, upstream string }{
		{"exec", "pkg/registry/core/pod/rest/subresources.go, ExecREST.Connect"},
		{"attach", "pkg/registry/core/pod/rest/subresources.go, AttachREST.Connect"},
		{"portforward", "pkg/registry/core/pod/rest/subresources.go, PortForwardREST.Connect"},
		{"log", "pkg/registry/core/pod/rest/log.go, LogREST.Get"},
	}
	out := make([]KubeletSubresource, 0, len(subresources))
	for _, k := range subresources {
		base := kubeletREST{subresource: k.name, upstream: k.upstream, pods: pods}
		var st rest.Storage = &ConnectREST{kubeletREST: base, authz: authz}
		if k.name == "log" {
			st = &LogREST{kubeletREST: base}
		}
		out = append(out, KubeletSubresource{Name: k.name, Storage: st})
	}
	return out
}

// ErrNoKubelet is the status every kubelet subresource answers with: 404 Not Found, reason
// NotFound, with a message saying the subresource is not served here and why. Unlike the
// NotFound of a missing pod, it has no details naming a pod.
func ErrNoKubelet(subresource, upstream string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusNotFound,
		Reason: metav1.StatusReasonNotFound,
		Message: fmt.Sprintf("pods/%s is not served here: kubewalk runs no kubelet, so no container runs; "+
			"kube-apiserver serves pods/%s by proxying it to the kubelet on the pod's node (k8s.io/kubernetes v1.37.2 %s)",
			subresource, subresource, upstream),
	}}
}

// kubeletREST holds what every kubelet subresource needs.
type kubeletREST struct {
	subresource string
	upstream    string
	pods        rest.Getter
}

// Destroy does nothing: the pods storage this reads through is destroyed with the pods.
func (r *kubeletREST) Destroy() {}

// refuse looks the pod up (so a missing one is a plain 404) and answers ErrNoKubelet.
func (r *kubeletREST) refuse(ctx context.Context, name string) error {
	if _, err := r.pods.Get(ctx, name, &metav1.GetOptions{}); err != nil {
		return err
	}
	return ErrNoKubelet(r.subresource, r.upstream)
}

// StateSummary says, for the server's state tree, what the subresource answers.
func (r *kubeletREST) StateSummary() string {
	return "not served here: kube-apiserver proxies it to the kubelet; kubewalk runs none, so it answers 404 not served here"
}

// ConnectREST is the storage of a connecting kubelet subresource: pods/exec, pods/attach or
// pods/portforward.
type ConnectREST struct {
	kubeletREST
	authz authorizer.UnconditionalAuthorizer
}

var _ rest.Connecter = &ConnectREST{}

// New returns the subresource's options object, the kind discovery reports for it, as
// upstream's New does.
func (r *ConnectREST) New() runtime.Object {
	switch r.subresource {
	case "attach":
		return &corev1.PodAttachOptions{}
	case "portforward":
		return &corev1.PodPortForwardOptions{}
	}
	return &corev1.PodExecOptions{}
}

// NewConnectOptions returns no options object: nothing reads them, so the query parameters
// kubectl sends (command, container, stdin, ports, ...) are not decoded.
func (r *ConnectREST) NewConnectOptions() (runtime.Object, bool, string) { return nil, false, "" }

// ConnectMethods returns GET and POST, as upstream: GET for WebSocket clients, POST for SPDY.
func (r *ConnectREST) ConnectMethods() []string { return []string{http.MethodGet, http.MethodPost} }

// Connect checks that the user may create the subresource, then refuses the request.
func (r *ConnectREST) Connect(ctx context.Context, name string, _ runtime.Object, _ rest.Responder) (http.Handler, error) {
	if err := r.authorizeCreate(ctx); err != nil {
		return nil, err
	}
	return nil, r.refuse(ctx, name)
}

// authorizeCreate is upstream's ensureAuthorizedForVerb(ctx, authorizer, "create")
// (pkg/registry/core/pod/rest/authorize.go): a GET (WebSocket) request to exec, attach or
// portforward passed the authorization filter as "get"; it must also be allowed "create",
// which a POST (SPDY) request was checked for already.
func (r *ConnectREST) authorizeCreate(ctx context.Context) error {
	info, ok := genericapirequest.RequestInfoFrom(ctx)
	if !ok {
		return apierrors.NewInternalError(errors.New("no request info in context"))
	}
	if info.Verb == "create" {
		return nil
	}
	attrs, err := filters.GetAuthorizerAttributes(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("authorizer attributes: %w", err))
	}
	decision, reason, err := r.authz.Authorize(ctx, createVerb{attrs})
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("authorize create pods/%s: %w", r.subresource, err))
	}
	if decision != authorizer.DecisionAllow {
		// The message the authorization filter writes: User "bob" cannot create resource
		// "pods/exec" in API group "" in the namespace "default".
		return responsewriters.ForbiddenStatusError(createVerb{attrs}, reason)
	}
	return nil
}

// createVerb is authorizer attributes with the verb create.
type createVerb struct{ authorizer.Attributes }

// GetVerb returns "create".
func (createVerb) GetVerb() string { return "create" }

// LogREST is the storage of pods/log.
type LogREST struct {
	kubeletREST
}

var (
	_ rest.Getter          = &LogREST{}
	_ rest.StorageMetadata = &LogREST{}
)

// New returns an empty pod, as upstream's LogREST.New does.
func (r *LogREST) New() runtime.Object { return &corev1.Pod{} }

// Get refuses the request.
func (r *LogREST) Get(ctx context.Context, name string, _ *metav1.GetOptions) (runtime.Object, error) {
	return nil, r.refuse(ctx, name)
}

// ProducesMIMETypes returns text/plain, what a kubelet's log answer is.
func (r *LogREST) ProducesMIMETypes(string) []string { return []string{"text/plain"} }

// ProducesObject returns a string: the log is text, not an object.
func (r *LogREST) ProducesObject(string) any { return "" }
