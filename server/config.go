package server

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/compatibility"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/observe"
	"github.com/kubewalk/kubewalk/server/openapi"
)

// KubernetesVersion is the Kubernetes release whose k8s.io/apiserver (v0.37.2) kubewalk is
// built on; the server reports it from /version.
const KubernetesVersion = "1.37.2"

var configCheckpoints = []Checkpoint{
	{PhaseConfig, "scheme", "Scheme and codecs built for the served group versions"},
	{PhaseConfig, "generic-config", "genericapiserver.NewRecommendedConfig filled the defaults"},
	{PhaseConfig, "secure-serving", "CA and serving certificate generated; port reserved, nothing listens yet"},
	{PhaseConfig, "loopback", "Loopback client config with a random bearer token"},
	{PhaseConfig, "version-openapi", "EffectiveVersion and OpenAPI v2/v3 definitions set"},
}

// Address returns host:port of the secure port chosen by the config phase.
func (c *configState) address() string { return net.JoinHostPort(c.host, strconv.Itoa(c.port)) }

// Scheme returns the scheme the config phase built, which every group the server installs is
// registered in (its kinds, versions, conversions and defaulters), or nil until the config
// phase has finished. It is safe from any goroutine; callers must only read it.
func (s *Server) Scheme() *runtime.Scheme {
	s.mu.Lock()
	configDone := s.next > 0
	s.mu.Unlock()
	if !configDone || s.c == nil || s.c.scheme == nil {
		return nil
	}
	return s.c.scheme.Scheme
}

// Config runs the config phase. Like kube-apiserver's BuildGenericConfig it starts from
// genericapiserver.NewRecommendedConfig and applies serving, loopback, version and OpenAPI
// settings; unlike it, every value comes from this process (no host cluster, no flags file).
func (s *Server) Config(ctx context.Context) error {
	return s.inPhase(ctx, PhaseConfig, func(ctx context.Context, run *phaseRun) error {
		if err := s.prepareWorkDir(); err != nil {
			return err
		}
		c := &configState{host: s.opts.BindAddress}
		s.c = c

		scheme, err := apis.NewScheme()
		if err != nil {
			return err
		}
		c.scheme = scheme
		if err := run.reach(ctx, "scheme"); err != nil {
			return err
		}

		c.generic = genericapiserver.NewRecommendedConfig(scheme.Codecs)
		c.generic.RequestTimeout = s.opts.RequestTimeout
		c.applyRecording(s.opts.Recorder)
		if err := run.reach(ctx, "generic-config"); err != nil {
			return err
		}

		if err := c.applySecureServing(s.opts.SecurePort); err != nil {
			return err
		}
		if err := run.reach(ctx, "secure-serving"); err != nil {
			return err
		}

		c.applyLoopback()
		if err := run.reach(ctx, "loopback"); err != nil {
			return err
		}

		c.applyVersionAndOpenAPI()
		return run.reach(ctx, "version-openapi")
	})
}

// prepareWorkDir creates the per-run directory that holds, by default, the kubeconfig and the
// embedded etcd data.
func (s *Server) prepareWorkDir() error {
	dir, err := os.MkdirTemp("", "kubewalk-")
	if err != nil {
		return fmt.Errorf("create work dir: %w", err)
	}
	s.workDir, s.ownWorkDir = dir, true
	s.track(dir, true)
	return nil
}

// applyRecording points the library's own request recording at rec: its audit (an
// in-memory backend with a Metadata-level policy for every request) and its OpenTelemetry
// tracing (an SDK TracerProvider sampling every span). Without a recorder the library's
// defaults stay: no audit, a no-op tracer.
func (c *configState) applyRecording(rec observe.Recorder) {
	if rec == nil {
		return
	}
	c.generic.AuditBackend = observe.NewAuditBackend(rec)
	c.generic.AuditPolicyRuleEvaluator = observe.AuditPolicy{}
	c.generic.TracerProvider = observe.NewTracerProvider(rec)
}

// applySecureServing generates the run's CA and serving certificate and reserves the port:
// bound for this run, not listening (see heldPort). The serve phase listens on it, so a client
// that connects while the walkthrough is paused earlier gets "connection refused" instead of a
// hung TLS handshake.
func (c *configState) applySecureServing(port int) error {
	ca, err := newCA("kubewalk-ca")
	if err != nil {
		return fmt.Errorf("--secure-port: %w", err)
	}
	ips := []net.IP{net.ParseIP(c.host)}
	if !ips[0].IsLoopback() {
		ips = append(ips, net.IPv4(127, 0, 0, 1))
	}
	serving, err := ca.newServingCert(ips, []string{"localhost"})
	if err != nil {
		return fmt.Errorf("--secure-port: %w", err)
	}
	c.ca, c.serving = ca, serving

	held, err := reservePort("--secure-port", c.host, port)
	if err != nil {
		return err
	}
	c.held, c.port = held, held.port
	cert, err := dynamiccertificates.NewStaticCertKeyContent("serving-cert", serving.CertPEM, serving.KeyPEM)
	if err != nil {
		return fmt.Errorf("serving certificate: %w", err)
	}
	c.caBundle, err = dynamiccertificates.NewStaticCAContent("client-ca", ca.CertPEM)
	if err != nil {
		return fmt.Errorf("client CA: %w", err)
	}
	c.generic.SecureServing = &genericapiserver.SecureServingInfo{
		Cert:          cert,
		ClientCA:      c.caBundle,
		MinTLSVersion: tls.VersionTLS12,
	}
	// With a port in ExternalAddress, Complete() does not ask the (not yet open) listener.
	c.generic.ExternalAddress = c.address()
	c.generic.PublicAddress = net.ParseIP(c.host)
	return nil
}

// applyLoopback builds the client config the server uses to call itself (informers, post-start
// hooks). Complete() later turns its bearer token into a system:masters identity.
func (c *configState) applyLoopback() {
	c.loopback = &rest.Config{
		Host:            "https://" + c.address(),
		BearerToken:     randomToken(),
		TLSClientConfig: rest.TLSClientConfig{CAData: c.ca.CertPEM, ServerName: "localhost"},
		QPS:             -1, // the server talking to itself must not be throttled by client-go
		// As kube-apiserver's BuildGenericConfig does: compressing traffic to itself only costs
		// CPU, and each gzip-encoded watch of the informers holds a compressor (~0.5 MB).
		DisableCompression: true,
		UserAgent:          "kubewalk-loopback",
	}
	c.generic.LoopbackClientConfig = c.loopback
	c.generic.ClientConfig = c.loopback
}

// applyVersionAndOpenAPI sets the EffectiveVersion (Complete() dereferences it) and the OpenAPI
// v2/v3 configs (InstallLegacyAPIGroup refuses to run without v3; kubectl apply, explain and
// server-side field validation read the published schemas).
func (c *configState) applyVersionAndOpenAPI() {
	c.version = kubewalkVersion{compatibility.NewEffectiveVersionFromString(KubernetesVersion, "", ""), ReadBuild()}
	c.generic.EffectiveVersion = c.version

	namer := openapinamer.NewDefinitionNamer(c.scheme.Scheme)
	c.generic.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openapi.GetOpenAPIDefinitions, namer)
	c.generic.OpenAPIConfig.Info.Title = "kubewalk"
	c.generic.OpenAPIConfig.Info.Version = "v" + KubernetesVersion
	c.generic.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openapi.GetOpenAPIDefinitions, namer)
	c.generic.OpenAPIV3Config.Info.Title = "kubewalk"
	c.generic.OpenAPIV3Config.Info.Version = "v" + KubernetesVersion
	// The serve phase installs /openapi/v2 and /openapi/v3 itself, each spec built on its first
	// request (installLazyOpenAPI); PrepareRun would build them all up front.
	c.generic.SkipOpenAPIInstallation = true
}

// kubeconfigPath returns where the serve phase writes the kubeconfig.
func (s *Server) kubeconfigPath() string {
	if s.opts.Kubeconfig != "" {
		return s.opts.Kubeconfig
	}
	return filepath.Join(s.workDir, "kubeconfig")
}
