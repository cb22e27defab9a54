package server

// This file holds what the config phase builds (configState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/compatibility"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/kubewalk/kubewalk/server/apis"
)

// configState is what the config phase builds.
type configState struct {
	scheme   *apis.Scheme
	generic  *genericapiserver.RecommendedConfig
	ca       *keyPair
	serving  *keyPair
	caBundle dynamiccertificates.CAContentProvider
	host     string // bind address
	port     int
	held     *heldPort // the port, bound until the serve phase listens on it
	loopback *rest.Config
	version  compatibility.EffectiveVersion
}

// liveObjects lists the config phase's objects the raw view may read now.
func (c *configState) liveObjects(r running) []LiveObject {
	var out []LiveObject
	if c.scheme != nil {
		out = append(out, LiveObject{"config.scheme", c.scheme.Scheme,
			"filled by apis.NewScheme in the config phase; from then on every phase and every request only reads it"})
	}
	if c.generic != nil && !r.serving && !r.chain {
		out = append(out, LiveObject{"config.genericConfig", c.generic,
			"only the phase goroutine writes it (each phase applies its part) until install builds the chain; " +
				"from install/apiextensions on the chain's servers share parts of it with controllers whose queues run, " +
				"and from serve/serving on it reaches the informers' caches and the admission plugins, which requests write"})
	}
	return out
}

// secrets lists the config phase's credentials: the loopback token and the PEM private keys.
func (c *configState) secrets() []string {
	var out []string
	if c.loopback != nil {
		out = append(out, c.loopback.BearerToken)
	}
	for _, kp := range []*keyPair{c.ca, c.serving} {
		if kp != nil {
			out = append(out, string(kp.KeyPEM))
		}
	}
	return out
}

func (c *configState) describe(n *Node) {
	sch := n.Add("scheme", "")
	gvs := map[schema.GroupVersion]int{}
	for gvk := range c.scheme.AllKnownTypes() {
		gvs[gvk.GroupVersion()]++
	}
	keys := make([]schema.GroupVersion, 0, len(gvs))
	for gv := range gvs {
		keys = append(keys, gv)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, gv := range keys {
		label := gv.String()
		if gv.Group == "" {
			label = "core/" + gv.Version
		}
		sch.Addf(label, "%d kinds", gvs[gv])
	}
	var media []string
	for _, m := range c.scheme.Codecs.SupportedMediaTypes() {
		media = append(media, m.MediaType)
	}
	n.Add("codecs", strings.Join(media, ", "))

	g := c.generic
	if g == nil {
		return
	}
	gen := n.Add("genericConfig", "genericapiserver.RecommendedConfig")
	gen.Add("RequestTimeout", g.RequestTimeout.String())
	if g.AuditBackend != nil {
		gen.Add("AuditBackend", g.AuditBackend.String()+": in memory, level Metadata for every request, to the request trace")
		gen.Addf("TracerProvider", "%T, every span sampled, to the request trace", g.TracerProvider)
	}
	gen.Addf("MaxRequestsInFlight", "%d (mutating %d)", g.MaxRequestsInFlight, g.MaxMutatingRequestsInFlight)
	gen.Add("LegacyAPIGroupPrefixes", strings.Join(g.LegacyAPIGroupPrefixes.List(), ", "))
	var checks []string
	for _, h := range g.ReadyzChecks {
		checks = append(checks, h.Name())
	}
	gen.Add("ReadyzChecks", strings.Join(checks, ", "))

	if c.ca != nil {
		ss := n.Add("secureServing", "")
		ss.Add("bindAddress", c.host)
		ss.Addf("port", "%d", c.port)
		ss.Add("listening", listeningState(g.SecureServing != nil && g.SecureServing.Listener != nil))
		ss.Addf("CA", "CN=%s, ECDSA P-256, valid until %s", c.ca.Cert.Subject.CommonName, c.ca.Cert.NotAfter.Format(time.RFC3339))
		var sans []string
		for _, ip := range c.serving.Cert.IPAddresses {
			sans = append(sans, ip.String())
		}
		sans = append(sans, c.serving.Cert.DNSNames...)
		ss.Addf("servingCert", "CN=%s, SANs %s", c.serving.Cert.Subject.CommonName, strings.Join(sans, ", "))
	}
	if c.loopback != nil {
		lb := n.Add("loopback", "")
		lb.Add("host", c.loopback.Host)
		lb.Add("bearerToken", maskToken(c.loopback.BearerToken))
		lb.Add("user", "system:apiserver (groups system:authenticated, system:masters) once Complete() runs")
	}
	if c.version != nil {
		v := n.Add("effectiveVersion", "")
		v.Add("binary", c.version.BinaryVersion().String())
		v.Add("emulation", c.version.EmulationVersion().String())
		v.Add("minCompatibility", c.version.MinCompatibilityVersion().String())
		v.Add("gitVersion", c.version.Info().GitVersion)
	}
	if g.OpenAPIV3Config != nil {
		o := n.Add("openAPI", "")
		o.Addf("definitions", "%d", len(g.OpenAPIV3Config.GetDefinitions(func(string) spec.Ref { return spec.Ref{} })))
		o.Add("title", g.OpenAPIV3Config.Info.Title)
	}
}
