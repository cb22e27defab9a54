// Package extension is kubewalk's aggregated API server: a second GenericAPIServer
// (k8s.io/apiserver), run in kubewalk's process on a loopback port of its own, that serves the
// group extension.learn.kubewalk.io. kubewalk's aggregator proxies that group to it, as
// kube-aggregator proxies metrics.k8s.io to metrics-server.
//
// It is configured as a real extension server is, from the library's own options and
// factories (k8s.io/apiserver/pkg/server/options, .../authorization/authorizerfactory):
//
//   - authentication: DelegatingAuthenticationOptions with request-header authentication. A
//     request is trusted to carry its user in X-Remote-User, X-Remote-Group and
//     X-Remote-Extra-* only if it comes with a client certificate signed by the request-header
//     CA (the front-proxy CA) whose common name is an allowed name: the aggregator's
//     front-proxy client certificate. No TokenReview: the extension accepts no bearer tokens
//     (--authentication-kubeconfig is not set), and a request without a certificate is
//     anonymous.
//   - authorization: the authorizers DelegatingAuthorizationOptions builds — /healthz, /readyz
//     and /livez always allowed, system:masters always allowed, everything else asked of
//     kubewalk with a SubjectAccessReview, answers cached 10 s — on an in-memory client
//     config instead of an --authorization-kubeconfig file, so the extension's key never
//     touches the disk.
//
// A Server can be stopped and started again; each start builds a new GenericAPIServer, as a
// restarted process would, on the same port.
package extension

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/path"
	"k8s.io/apiserver/pkg/authorization/union"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/server/routes"
	"k8s.io/client-go/kubernetes"
	restclient "k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	openapicommon "k8s.io/kube-openapi/pkg/common"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1"
	"github.com/kubewalk/kubewalk/server/extension/openapi"
)

// Config is what an extension server is started with: what a real one gets from its flags
// (--tls-cert-file, --requestheader-client-ca-file, --requestheader-allowed-names,
// --authorization-kubeconfig).
type Config struct {
	// Host is the IP to listen on; the port is chosen at the first start and kept.
	Host string
	// ServingCertPEM and ServingKeyPEM are the serving certificate; the APIService's caBundle
	// must hold the CA that signed it.
	ServingCertPEM, ServingKeyPEM []byte
	// ServingCAPEM is that CA, for the server's loopback client.
	ServingCAPEM []byte
	// RequestHeaderCAFile is the front-proxy CA's certificate file
	// (--requestheader-client-ca-file).
	RequestHeaderCAFile string
	// AllowedNames are the front-proxy client certificate common names trusted to set the
	// X-Remote-* headers (--requestheader-allowed-names); empty trusts any the CA signed.
	AllowedNames []string
	// Authorization is the client config the SubjectAccessReviews go out with
	// (--authorization-kubeconfig): kubewalk's address and the extension's own identity.
	Authorization *restclient.Config
	// Version is the version the server reports (a GenericAPIServer needs one).
	Version string
}

// Server is one extension server: not running until Start, again after Stop.
type Server struct {
	cfg Config

	mu      sync.Mutex
	port    int
	held    net.Listener // Listen's listener, until the first Start serves on it
	running *instance
}

// instance is one run of the GenericAPIServer.
type instance struct {
	cancel context.CancelFunc
	exited chan struct{}
	err    error
}

// New checks cfg and returns a server that is not running.
func New(cfg Config) (*Server, error) {
	var errs []error
	if net.ParseIP(cfg.Host) == nil {
		errs = append(errs, fmt.Errorf("extension: host %q is not an IP address", cfg.Host))
	}
	if len(cfg.ServingCertPEM) == 0 || len(cfg.ServingKeyPEM) == 0 {
		errs = append(errs, errors.New("extension: no serving certificate"))
	}
	if cfg.RequestHeaderCAFile == "" {
		errs = append(errs, errors.New("extension: no request-header CA file"))
	}
	if cfg.Authorization == nil {
		errs = append(errs, errors.New("extension: no authorization client config"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Server{cfg: cfg}, nil
}

// Port returns the port the server serves on, 0 before the first Start.
func (s *Server) Port() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.port
}

// Running reports whether the server has been started and not stopped, and has not exited.
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running == nil {
		return false
	}
	select {
	case <-s.running.exited:
		return false
	default:
		return true
	}
}

// Listen opens the server's listener, if it has no port yet, so that a caller can name the
// port before the first Start (the EndpointSlice kubewalk stands in with lists it); the first
// Start serves on it, so no other process can take the port meanwhile. Until then a client's
// connection waits unanswered in the backlog.
func (s *Server) Listen() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.port != 0 {
		return s.port, nil
	}
	l, err := net.Listen("tcp", net.JoinHostPort(s.cfg.Host, "0"))
	if err != nil {
		return 0, fmt.Errorf("extension: reserve a port: %w", err)
	}
	s.port, s.held = l.Addr().(*net.TCPAddr).Port, l
	return s.port, nil
}

// readyTimeout bounds how long Start waits for the new server's /readyz.
const readyTimeout = 30 * time.Second

// Start builds a new GenericAPIServer, serves it and returns once its /readyz answers ok. It
// is an error to start a running server.
func (s *Server) Start(ctx context.Context) error {
	if _, err := s.Listen(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running != nil {
		select {
		case <-s.running.exited:
		default:
			return errors.New("extension: already running")
		}
	}
	l := s.held
	s.held = nil
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.port))); err != nil {
			return fmt.Errorf("extension: listen on port %d: %w", s.port, err)
		}
	}
	prepared, loopback, err := s.build(l)
	if err != nil {
		l.Close()
		return err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	in := &instance{cancel: cancel, exited: make(chan struct{})}
	go func() {
		in.err = prepared.RunWithContext(runCtx)
		close(in.exited)
	}()
	s.running = in
	if err := waitReady(ctx, loopback, in); err != nil {
		cancel()
		<-in.exited
		s.running = nil
		return err
	}
	return nil
}

// Stop stops the running server and waits for it to exit, or closes the listener Listen
// opened if no Start has used it; stopping a stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	in, held := s.running, s.held
	s.running, s.held = nil, nil
	s.mu.Unlock()
	if held != nil {
		held.Close()
	}
	if in == nil {
		return nil
	}
	in.cancel()
	select {
	case <-in.exited:
	case <-time.After(shutdownTimeout + 10*time.Second):
		return errors.New("extension: server did not stop in time")
	}
	if in.err != nil && !errors.Is(in.err, context.Canceled) {
		return fmt.Errorf("extension: %w", in.err)
	}
	return nil
}

// shutdownTimeout bounds the drain of open requests when the server stops.
const shutdownTimeout = 2 * time.Second

// runner is a prepared GenericAPIServer (PrepareRun's unexported result).
type runner interface {
	RunWithContext(ctx context.Context) error
}

// build makes the GenericAPIServer on listener l, its group installed, prepared to run.
func (s *Server) build(l net.Listener) (runner, *restclient.Config, error) {
	scheme, err := newScheme()
	if err != nil {
		return nil, nil, err
	}
	codecs := serializer.NewCodecFactory(scheme)
	c := genericapiserver.NewConfig(codecs)

	cert, err := dynamiccertificates.NewStaticCertKeyContent("extension-serving-cert", s.cfg.ServingCertPEM, s.cfg.ServingKeyPEM)
	if err != nil {
		return nil, nil, fmt.Errorf("extension: serving certificate: %w", err)
	}
	c.SecureServing = &genericapiserver.SecureServingInfo{Listener: l, Cert: cert, MinTLSVersion: tls.VersionTLS12}
	c.ExternalAddress = l.Addr().String()
	c.PublicAddress = net.ParseIP(s.cfg.Host)
	c.EffectiveVersion = basecompatibility.NewEffectiveVersionFromString(s.cfg.Version, "", "")
	namer := openapinamer.NewDefinitionNamer(scheme)
	c.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openapi.GetOpenAPIDefinitions, namer)
	c.OpenAPIConfig.Info.Title = "kubewalk extension"
	c.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openapi.GetOpenAPIDefinitions, namer)
	c.OpenAPIV3Config.Info.Title = "kubewalk extension"
	// Only /openapi/v3, and only for the group: installOpenAPIV3 below.
	c.SkipOpenAPIInstallation = true
	c.ShutdownDelayDuration = 0
	c.ShutdownWatchTerminationGracePeriod = 0

	// Authentication as a real extension server's flags set it up: request-header only.
	authn := options.NewDelegatingAuthenticationOptions()
	authn.RequestHeader.ClientCAFile = s.cfg.RequestHeaderCAFile
	authn.RequestHeader.AllowedNames = s.cfg.AllowedNames
	authn.RemoteKubeConfigFileOptional = true // no --authentication-kubeconfig: no TokenReview
	authn.SkipInClusterLookup = true          // the CA comes from the flag, not a ConfigMap
	if err := authn.ApplyTo(&c.Authentication, c.SecureServing, c.OpenAPIConfig); err != nil {
		return nil, nil, fmt.Errorf("extension: authentication: %w", err)
	}
	az, err := delegatingAuthorizer(s.cfg.Authorization)
	if err != nil {
		return nil, nil, err
	}
	c.Authorization.Authorizer = az

	// The loopback client: the server's own CA-signed certificate, and a random token that
	// AuthorizeClientBearerToken turns into a system:masters identity in front of the chain
	// above.
	loopback := &restclient.Config{
		Host:            "https://" + l.Addr().String(),
		BearerToken:     rand.Text(),
		TLSClientConfig: restclient.TLSClientConfig{CAData: s.cfg.ServingCAPEM},
		QPS:             -1,
	}
	genericapiserver.AuthorizeClientBearerToken(loopback, &c.Authentication, &c.Authorization)
	c.LoopbackClientConfig = loopback

	gs, err := c.Complete(nil).New("kubewalk-extension", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, nil, fmt.Errorf("extension: New: %w", err)
	}
	gs.ShutdownTimeout = shutdownTimeout
	group := genericapiserver.NewDefaultAPIGroupInfo(v1alpha1.GroupName, scheme, runtime.NewParameterCodec(scheme), codecs)
	group.VersionedResourcesStorageMap[v1alpha1.SchemeGroupVersion.Version] = map[string]rest.Storage{"callers": newCallersREST()}
	if err := gs.InstallAPIGroup(&group); err != nil {
		return nil, nil, fmt.Errorf("extension: InstallAPIGroup: %w", err)
	}
	installOpenAPIV3(gs, c.OpenAPIV3Config)
	return gs.PrepareRun(), loopback, nil
}

// installOpenAPIV3 serves /openapi/v3 with the one document of the server's group version,
// built by the library's routes.OpenAPI from the group's web services only. The aggregator's
// OpenAPI v3 aggregation (kube-aggregator's openapiv3 specProxier) merges every path each
// APIService's server lists into /openapi/v3, the last one it reads winning; a server that
// also listed its "version" and "apis" documents, as PrepareRun's default installation does,
// would stand in for kubewalk's own at random. /openapi/v2 is not served: kubewalk's
// aggregator aggregates only v3.
func installOpenAPIV3(gs *genericapiserver.GenericAPIServer, cfg *openapicommon.OpenAPIV3Config) {
	group := restful.NewContainer()
	prefix := "/apis/" + v1alpha1.GroupName + "/"
	for _, ws := range gs.Handler.GoRestfulContainer.RegisteredWebServices() {
		if strings.HasPrefix(ws.RootPath()+"/", prefix) {
			group.Add(ws)
		}
	}
	routes.OpenAPI{V3Config: cfg}.InstallV3(group, gs.Handler.NonGoRestfulMux)
}

// newScheme is the server's scheme, as sample-apiserver builds its own: the group's types, the
// options of meta/v1 (and their internal form, which the handlers decode query parameters
// into) and the unversioned discovery and Status types.
func newScheme() (*runtime.Scheme, error) {
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("extension: scheme: %w", err)
	}
	if err := metainternalversion.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("extension: scheme: %w", err)
	}
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	scheme.AddUnversionedTypes(schema.GroupVersion{Version: "v1"},
		&metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	return scheme, nil
}

// delegatingAuthorizer is what DelegatingAuthorizationOptions.ApplyTo builds (its toAuthorizer,
// k8s.io/apiserver/pkg/server/options/authorization.go), with the option defaults, on a client
// config held in memory.
func delegatingAuthorizer(cfg *restclient.Config) (authorizer.Authorizer, error) {
	o := options.NewDelegatingAuthorizationOptions()
	pathAuthz, err := path.NewAuthorizer(o.AlwaysAllowPaths)
	if err != nil {
		return nil, fmt.Errorf("extension: authorization: %w", err)
	}
	client, err := kubernetes.NewForConfig(restclient.CopyConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("extension: authorization client: %w", err)
	}
	sar, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             o.AllowCacheTTL,
		DenyCacheTTL:              o.DenyCacheTTL,
		WebhookRetryBackoff:       o.WebhookRetryBackoff,
	}.New()
	if err != nil {
		return nil, fmt.Errorf("extension: SubjectAccessReview authorizer: %w", err)
	}
	return union.New(
		union.NamedAuthorizer{AuthorizerName: "kubernetes.io/always-allow-groups", Authorizer: authorizerfactory.NewPrivilegedGroups(o.AlwaysAllowGroups...)},
		union.NamedAuthorizer{AuthorizerName: "kubernetes.io/always-allow-paths", Authorizer: pathAuthz},
		union.NamedAuthorizer{AuthorizerName: "kubernetes.io/webhook", Authorizer: sar},
	)
}

// waitReady polls the new server's /readyz until it answers 200, the server exits, or
// readyTimeout passes.
func waitReady(ctx context.Context, loopback *restclient.Config, in *instance) error {
	client, err := restclient.HTTPClientFor(loopback)
	if err != nil {
		return fmt.Errorf("extension: readyz client: %w", err)
	}
	defer client.CloseIdleConnections()
	var last string
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, readyTimeout, true, func(ctx context.Context) (bool, error) {
		select {
		case <-in.exited:
			return false, fmt.Errorf("extension: exited before /readyz: %w", in.err)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, loopback.Host+"/readyz", nil)
		if err != nil {
			return false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		resp.Body.Close()
		last = resp.Status
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil && wait.Interrupted(err) && ctx.Err() == nil {
		return fmt.Errorf("extension: /readyz not ok after %s (last: %s)", readyTimeout, last)
	}
	return err
}
