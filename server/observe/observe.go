// Package observe lets a caller watch every request the server handles and hold it at a stage.
//
// Most of what a lane shows is recorded by k8s.io/apiserver itself: its audit events (user,
// impersonated user, status code, the authorization decision and reason) and its OpenTelemetry
// spans (the filters' "impersonation" and "authorization" spans, the HTTP server span; the
// etcd3 store's and the watch cache's spans with the audit ID and key). This package forwards
// those to a Recorder (AuditBackend, NewTracerProvider) and adds thin decorators only where the
// library records nothing: which authenticator answered, each authorizer's decision, each
// admission plugin's change, the strategy's validation verdict, the store's key and revision.
// The decorators also ask a Gate at the breakpoint stages, which may hold the request.
//
// Every record carries the request's audit ID (audit.GetAuditIDTruncated), which is also the
// Audit-Id response header a client sees. Records without one (the watch cache's own traffic)
// are not recorded.
//
// The package knows nothing of lanes, terminals or breakpoint specs: runtime/tracing assembles
// the records into lanes and implements the Gate.
package observe

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
)

// Recorder receives what the server records about its requests. Record runs on the request's
// goroutine (or the library's, for audit events and spans), so it must not block, and it is
// called from many goroutines at once. A record is the Recorder's to keep: the server never
// changes it after the call.
type Recorder interface {
	Record(r Record)
}

// recordFunc and waitFunc hold a Recorder's Record and a Gate's Wait. The decorators keep
// these funcs rather than the interfaces: the walkthrough's raw view walks the live
// authenticators, authorizers and admission plugins by reflection, and must not reach the
// Recorder behind them, whose maps requests write all the time. A func is opaque to it.
type (
	recordFunc func(Record)
	waitFunc   func(context.Context, Point) error
)

// gateRef is a Gate as the decorators keep it: its Wait, and its Active when it has one.
type gateRef struct {
	wait   waitFunc
	active func() bool
}

// on reports whether the gate may hold anything now; when it says no, a decorator skips
// building the Point.
func (g gateRef) on() bool { return g.wait != nil && (g.active == nil || g.active()) }

func recorderFunc(rec Recorder) recordFunc {
	if rec == nil {
		return nil
	}
	return rec.Record
}

func gateFunc(g Gate) gateRef {
	if g == nil {
		return gateRef{}
	}
	r := gateRef{wait: g.Wait}
	if a, ok := g.(interface{ Active() bool }); ok {
		r.active = a.Active
	}
	return r
}

// Record is one fact about one request. The concrete types are *Request, *Authn, *Authz,
// *Admission, *Validation, *Storage, *Audit, *Span and *Hop.
type Record interface {
	// RequestID returns the audit ID of the request the record belongs to.
	RequestID() string
}

// The breakpoint stages a Gate is asked at, in the order a request meets them.
const (
	// GateAuthentication: the authenticators have answered and the user is known.
	GateAuthentication = "authentication"
	// GateAuthorization: before the authorizers decide.
	GateAuthorization = "authorization"
	// GateAdmission: before the first mutating admission plugin (or, for an operation no
	// mutating plugin handles, before the first validating one).
	GateAdmission = "admission"
	// GateStorage: before the store reads or writes (for an update: once admission and
	// validation have passed, just before the write).
	GateStorage = "storage"
)

// GateStages lists the breakpoint stages in the order a request meets them.
func GateStages() []string {
	return []string{GateAuthentication, GateAuthorization, GateAdmission, GateStorage}
}

// Gate is asked at each breakpoint stage of every request. Wait returns nil to let the
// request go on, or an error to fail it there; the decorator turns the error into what the
// client sees at that stage (401 at authentication, 403 elsewhere, with the error's text). Wait
// must return promptly once ctx is done (the client went away or the request timed out).
// Wait may be asked more than once at a stage for one request (an update retried after a
// conflict, admission's validating pass after its mutating pass); an implementation that holds
// should hold once.
//
// A Gate that also has an Active() bool method is asked only while Active returns true, so
// that requests pay nothing for a gate with no breakpoint set.
type Gate interface {
	Wait(ctx context.Context, p Point) error
}

// Point is where a request is when a Gate is asked: the stage and the request's attributes.
type Point struct {
	// ID is the request's audit ID.
	ID string
	// Stage is one of the Gate* constants.
	Stage string
	// User and Groups are the authenticated (impersonated, from authorization on) user.
	User   string
	Groups []string
	// The request info.
	Verb, APIGroup, APIVersion, Resource, Subresource, Namespace, Name, Path string
	// Object is the decoded object of a write at admission and storage (nil otherwise). It
	// belongs to the request: a Gate may read it only during Wait, and should render it with
	// ObjectJSON, which redacts Secret data.
	Object runtime.Object
}

// Request is what WithRequestInfo resolved about a request, recorded when authentication
// begins (the first of our decorators a request meets).
type Request struct {
	ID       string
	Received time.Time // WithRequestReceivedTimestamp's time
	Method   string
	// Path is the URL path; the query is left out (it may carry an access_token).
	Path string
	// IsResource tells a resource request (/api/v1/namespaces/default/pods) from a
	// non-resource one (/healthz).
	IsResource                                                         bool
	Verb, APIGroup, APIVersion, Resource, Subresource, Namespace, Name string
	// LongRunning is the server's LongRunningFunc verdict (watches): such requests skip
	// max-in-flight and the request timeout.
	LongRunning bool
	UserAgent   string
	// Command is the Kubectl-Command header kubectl sends with each request ("kubectl
	// explain", "kubectl create configmap"; KEP 859): which command, never its arguments.
	Command string
}

// RequestID implements Record.
func (r *Request) RequestID() string { return r.ID }

// Authn is one authenticator's answer, or with Chain set, the whole chain's.
type Authn struct {
	ID string
	// Authenticator is "x509", "token" or "anonymous"; "" when Chain is set.
	Authenticator string
	// Source is the authenticator's AuthenticateRequest, as a lessons anchor (see MethodAnchor).
	Source string
	// Chain marks the answer of the whole chain, the one WithAuthentication acts on.
	Chain    bool
	Start    time.Time
	Duration time.Duration
	// OK is set when the authenticator answered with a user.
	OK     bool
	User   string
	Groups []string
	// Err is the authenticator's error ("" when it did not answer or answered ok).
	Err string
}

// RequestID implements Record.
func (r *Authn) RequestID() string { return r.ID }

// Authz purposes: why an authorizer was asked.
const (
	// PurposeAuthorization: WithAuthorization asking about the request itself.
	PurposeAuthorization = "authorization"
	// PurposeImpersonation: the impersonation filter asking whether the user may impersonate.
	PurposeImpersonation = "impersonation"
	// PurposeHandler: code inside the handler asking (an access review, an RBAC escalation
	// check).
	PurposeHandler = "handler"
)

// Authz is one authorizer's decision.
type Authz struct {
	ID string
	// Purpose is one of the Purpose* constants.
	Purpose string
	// Authorizer is the authorizer's name in the chain: "privileged-groups", "rbac".
	Authorizer string
	// Source is the authorizer's Authorize, as a lessons anchor (see MethodAnchor).
	Source   string
	Start    time.Time
	Duration time.Duration
	// The attributes asked about.
	User                                                         string
	Verb, APIGroup, Resource, Subresource, Namespace, Name, Path string
	// Decision is "allow", "deny" or "no-opinion".
	Decision string
	Reason   string
	Err      string
}

// RequestID implements Record.
func (r *Authz) RequestID() string { return r.ID }

// Decisions an Authz record carries.
const (
	DecisionAllow     = "allow"
	DecisionDeny      = "deny"
	DecisionNoOpinion = "no-opinion"
)

// Admission is one admission plugin's pass over a request.
type Admission struct {
	ID     string
	Plugin string
	// Source is the plugin's Admit or Validate, as a lessons anchor (see MethodAnchor).
	Source string
	// Mutating tells the mutating pass (Admit) from the validating one (Validate).
	Mutating  bool
	Operation string // CREATE, UPDATE, DELETE, CONNECT
	Resource  string
	Start     time.Time
	Duration  time.Duration
	// Before and After are copies of the object a mutating plugin was handed and left (nil
	// for the validating pass, or an operation without an object). A Secret's data and
	// stringData values are "<redacted>" in them. Patch computes the change from them: the
	// request does not wait for the diff.
	Before, After runtime.Object
	// Err is the plugin's refusal, "" when it let the request through.
	Err string

	patchOnce sync.Once
	patch     string
}

// RequestID implements Record.
func (r *Admission) RequestID() string { return r.ID }

// Patch returns a mutating plugin's change as an RFC 6902 JSON patch, "" when it changed
// nothing (or there is no object). It is computed on the first call, from any goroutine.
func (r *Admission) Patch() string {
	r.patchOnce.Do(func() { r.patch = r.computePatch() })
	return r.patch
}

func (r *Admission) computePatch() string {
	if r.Before == nil || r.After == nil {
		return ""
	}
	before, after := ObjectJSON(r.Before), ObjectJSON(r.After)
	if before == nil || after == nil {
		return ""
	}
	patch, err := Diff(before, after)
	if err != nil {
		return ""
	}
	if IsSecretResource(r.Resource) {
		patch = RedactPatch(patch)
	}
	return patch
}

// Validation is the REST strategy's verdict on a create or update.
type Validation struct {
	ID string
	// Strategy is the function that validated, as a lessons anchor relative to server/,
	// e.g. "registry/core/configmap.strategy.Validate".
	Strategy  string
	Operation string // "create" or "update"
	Resource  string
	Start     time.Time
	Duration  time.Duration
	// Errors are the field errors the strategy returned; none means valid.
	Errors []FieldError
}

// RequestID implements Record.
func (r *Validation) RequestID() string { return r.ID }

// FieldError is one field error of a validation.
type FieldError struct {
	Field  string // "metadata.name"
	Type   string // "Invalid value"
	Value  string // the bad value, "<redacted>" for Secrets, "" when the error has none
	Detail string
}

// Storage ops a Storage record carries.
const (
	OpGet    = "get"
	OpList   = "list"
	OpWatch  = "watch"
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Storage is one call into the resource's storage (the watch cache in front of the etcd3
// store): what, where, and the resource version that came back.
type Storage struct {
	ID string
	// Op is one of the Op* constants.
	Op string
	// Key is the etcd key ("/registry/configmaps/default/x"; a prefix ending in "/" for
	// lists and watches).
	Key string
	// ResourceVersion is the version a read asked for ("" = the latest, from etcd; "0" = any,
	// from the watch cache).
	ResourceVersion string
	// Revision is the resource version of the object (or list) that came back: the etcd
	// revision that last wrote it.
	Revision string
	Start    time.Time
	Duration time.Duration
	Err      string
}

// RequestID implements Record.
func (r *Storage) RequestID() string { return r.ID }

// Audit is one k8s.io/apiserver audit event (level Metadata: no bodies), as its backend got it.
type Audit struct {
	ID string
	// Stage is the audit stage: RequestReceived, ResponseStarted, ResponseComplete, Panic.
	Stage     string
	Received  time.Time
	StageTime time.Time
	Verb      string
	// RequestURI is the URI without an access_token query parameter.
	RequestURI string
	UserAgent  string
	User       string
	Groups     []string
	// ImpersonatedUser is set when the request was made with --as.
	ImpersonatedUser   string
	ImpersonatedGroups []string
	// The object reference (resource requests only).
	APIGroup, APIVersion, Resource, Subresource, Namespace, Name string
	// The response status: Code is 0 before the response has started.
	Code                    int
	Status, Reason, Message string
	// Decision and DecisionReason are WithAuthorization's audit annotations
	// (authorization.k8s.io/decision and /reason).
	Decision, DecisionReason string
}

// RequestID implements Record.
func (r *Audit) RequestID() string { return r.ID }

// Audit stages, as k8s.io/apiserver/pkg/apis/audit names them.
const (
	AuditRequestReceived  = "RequestReceived"
	AuditResponseStarted  = "ResponseStarted"
	AuditResponseComplete = "ResponseComplete"
	AuditPanic            = "Panic"
)

// Span is one OpenTelemetry span the library emitted for a request. Filter spans
// ("impersonation" or "constrainedimpersonation", "priorityandfairness", "authorization") are
// recorded when they start (End is zero): they last until the request ends, so their start
// times are what tells when each filter began. The server span and the storage spans ("Get
// etcd3", "cacher.GetList", ...) are recorded when they end.
type Span struct {
	ID    string
	Name  string
	Start time.Time
	End   time.Time
	// Server marks the HTTP server span WithTracing starts.
	Server bool
	// Client marks the span of an outgoing request: the aggregator's proxy hop to an
	// extension server ("HTTP GET", otelhttp's Transport), ended when the response body is
	// closed, so its time is the hop's round trip with the response copied.
	Client bool
	// Attributes are the span's string and int attributes (key, resource, http.response.body.size, ...).
	Attributes map[string]string
	// Err is the span's error status description, or the error an event named.
	Err string
}

// RequestID implements Record.
func (r *Span) RequestID() string { return r.ID }
