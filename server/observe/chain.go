package observe

import (
	"net/http"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/audit"
	genericapiserver "k8s.io/apiserver/pkg/server"
)

// The servers of kube-apiserver's delegation chain (CreateServerChain), front to back, as a
// Hop names them.
const (
	// ServerAggregator is kube-aggregator, the front: the only server whose filters run.
	ServerAggregator = "aggregator"
	// ServerKube is the kube API server (kubewalk's own), the aggregator's delegate.
	ServerKube = "kube"
	// ServerAPIExtensions is the apiextensions server (CRDs), the kube server's delegate.
	ServerAPIExtensions = "apiextensions"
	// ServerNotFound is the NotFound handler behind the apiextensions server.
	ServerNotFound = "notfound"
)

// Hop is a request reaching one server of the delegation chain. The aggregator's Hop is
// recorded once its filters have run (authentication, impersonation, flow control,
// authorization: the only time they run); a delegate's when the server in front of it hands
// the request to its UnprotectedHandler (the delegate's mux, without filters), and the
// NotFound handler's when the apiextensions server hands it on. The last Hop of a request is
// the server that answered it, unless the aggregator proxied it (see Remote).
type Hop struct {
	ID     string
	Server string // one of the Server* constants
	Start  time.Time
	// Remote is set on the aggregator's Hop when the request's group version belongs to an
	// APIService that names a Service: the aggregator's proxy handler sends such a request to
	// that server instead of to its delegate.
	Remote *RemoteAPIService
}

// RemoteAPIService is the APIService the aggregator proxies a request for, as its lister had it
// when the request arrived.
type RemoteAPIService struct {
	// Name is the APIService's name, "v1alpha1.extension.learn.kubewalk.io".
	Name string
	// Service is its spec.service, "kube-system/kubewalk-extension:443".
	Service string
	// Available is its Available condition; the proxy answers 503 without a hop when false.
	Available bool
	// Reason and Message are the Available condition's.
	Reason, Message string
}

// RequestID implements Record.
func (r *Hop) RequestID() string { return r.ID }

// Handler records a Hop to server for each request before h serves it. rec may be nil: then h
// is returned as it is.
func Handler(rec Recorder, server string, h http.Handler) http.Handler {
	if rec == nil || h == nil {
		return h
	}
	return &hopHandler{record: recorderFunc(rec), server: server, inner: h}
}

// RemoteLookup tells the APIService that serves a group version when it names a Service
// (nil for a local one or none).
type RemoteLookup func(group, version string) *RemoteAPIService

// FrontHandler records the aggregator's Hop for each request before h (its director, inside
// its filters) serves it, with the remote APIService lookup names for the request's path.
func FrontHandler(rec Recorder, lookup RemoteLookup, h http.Handler) http.Handler {
	if rec == nil {
		return h
	}
	return &hopHandler{record: recorderFunc(rec), server: ServerAggregator, inner: h, lookup: lookup}
}

type hopHandler struct {
	record recordFunc
	server string
	inner  http.Handler
	lookup RemoteLookup
}

// ServeHTTP records the Hop and hands the request on.
func (h *hopHandler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if id := audit.GetAuditIDTruncated(req.Context()); id != "" {
		r := &Hop{ID: id, Server: h.server, Start: time.Now()}
		if h.lookup != nil {
			if group, version, ok := apisGroupVersion(req.URL.Path); ok {
				r.Remote = h.lookup(group, version)
			}
		}
		h.record(r)
	}
	h.inner.ServeHTTP(w, req)
}

// apisGroupVersion reads the group and version of a path under /apis/<group>/<version>, the
// paths the aggregator's proxy handlers take (AddAPIService: the group version's path and
// everything under it).
func apisGroupVersion(path string) (group, version string, ok bool) {
	rest, found := strings.CutPrefix(path, "/apis/")
	if !found {
		return "", "", false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// Delegate returns d with its UnprotectedHandler recording a Hop to server: what the server
// built on d (with New or NewWithDelegate) hands the requests it does not serve. rec may be
// nil: then d is returned as it is.
func Delegate(rec Recorder, server string, d genericapiserver.DelegationTarget) genericapiserver.DelegationTarget {
	if rec == nil {
		return d
	}
	return &hopDelegate{DelegationTarget: d, handler: Handler(rec, server, d.UnprotectedHandler())}
}

// hopDelegate is a DelegationTarget whose UnprotectedHandler records; everything else is d's.
type hopDelegate struct {
	genericapiserver.DelegationTarget
	handler http.Handler
}

// UnprotectedHandler returns the delegate's handler, recording.
func (d *hopDelegate) UnprotectedHandler() http.Handler { return d.handler }
