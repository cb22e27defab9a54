// Package tracing turns what the running server records about each request — k8s.io/apiserver's
// own audit events and OpenTelemetry spans, plus the few facts kubewalk's thin decorators add
// (each authorizer's decision, each admission plugin's change, the store's key and revision) —
// into one lane per request: its stages in the order the real handler chain meets them.
//
// This file is the data model the views (TUI, plain mode, --trace-log) read. A Trace is a value:
// the Store hands out copies, so a view may keep one as long as it likes.
package tracing

import "time"

// Stage names, in the order the handler chain meets them (see
// ../shared/reference/handler-chain-v0.37.2.md and k8s.io/apiserver pkg/server/config.go
// DefaultBuildHandlerChain). Admission plugins get one stage each, named
// StageMutatingPrefix+plugin and StageValidatingPrefix+plugin.
const (
	StageAuthentication = "authentication"
	StageImpersonation  = "impersonation"
	StageFlowControl    = "flowcontrol"
	StageAuthorization  = "authorization"
	// The servers of the delegation chain a request reached once the filters had run, front to
	// back, one stage each: the aggregator (where the filters ran), the kube API server,
	// the apiextensions server and the NotFound handler; and the aggregator's proxy hop to an
	// extension server.
	StageAggregator        = "aggregator"
	StageKube              = "kube"
	StageAPIExtensions     = "apiextensions"
	StageNotFound          = "notfound"
	StageProxy             = "proxy"
	StageMutatingPrefix    = "admission/mutating/"
	StageValidation        = "validation"
	StageValidatingPrefix  = "admission/validating/"
	StageStorage           = "storage"
	StageResponse          = "response"
	StageMutatingAdmission = "admission/mutating" // breakpoint name: before the first mutating plugin
)

// Outcome is what happened at a stage.
type Outcome string

// Outcomes. A lane's stages after the one that stopped the request are absent, not "skipped".
const (
	OutcomeOK        Outcome = "ok"         // the stage passed the request on
	OutcomeAllowed   Outcome = "allowed"    // an authorizer (or the chain) allowed
	OutcomeDenied    Outcome = "denied"     // an authorizer (or the chain) denied: 403
	OutcomeNoOpinion Outcome = "no-opinion" // an authorizer had no opinion; the next one is asked
	OutcomeChanged   Outcome = "changed"    // a mutating plugin changed the object (Patch says how)
	OutcomeNoChange  Outcome = "no-change"  // a mutating plugin left the object as it was
	OutcomeRefused   Outcome = "refused"    // an admission plugin or validation refused the request
	OutcomeFailed    Outcome = "failed"     // authentication failed (401), storage error, ...
	OutcomeHeld      Outcome = "held"       // the request is held here by a breakpoint right now
	OutcomeAborted   Outcome = "aborted"    // the learner failed the request at a breakpoint
	OutcomeCache     Outcome = "cache"      // storage: served from the watch cache
	OutcomeEtcd      Outcome = "etcd"       // storage: read from or written to etcd
	OutcomeSkipped   Outcome = "skipped"    // the stage does not apply (e.g. impersonation without --as)
	OutcomeDelegated Outcome = "delegated"  // a server of the chain handed the request to the next
	OutcomeServed    Outcome = "served"     // a server of the chain answered the request itself
	OutcomeProxied   Outcome = "proxied"    // the aggregator sent the request on to an extension server
	OutcomeNotFound  Outcome = "not-found"  // the request fell through the whole chain: 404
)

// Field is one labelled line of a stage's details, e.g. {"user", "alice"}.
type Field struct {
	Label string `json:"label"`
	Value string `json:"value"`
	// LabelKey names the catalogue word for the label ("" when Label is an identifier shown
	// as it is: an authenticator, an authorizer, a field path); ValueText words the value in
	// any language (see Text; zero when Value is shown as it is).
	LabelKey  string `json:"-"`
	ValueText Text   `json:"-"`
}

// SourceRef points at the code that ran a stage: kubewalk's own server/ source (Anchor, a Go
// symbol in the form the lessons use, e.g. "server/rbac.(*Authorizer).Authorize") or an upstream
// k8s.io/apiserver symbol (Upstream, import path + "." + symbol).
type SourceRef struct {
	Anchor   string `json:"anchor,omitempty"`
	Upstream string `json:"upstream,omitempty"`
}

// Stage is one box of a lane.
type Stage struct {
	// Name is one of the Stage* constants (admission stages carry the plugin name).
	Name string `json:"stage"`
	// Outcome says what happened.
	Outcome Outcome `json:"outcome"`
	// Detail is a one-line summary: "x509: CN=kubewalk-admin", "rbac: allowed by RoleBinding
	// \"x\" of Role \"y\"", "GET /registry/configmaps/default/x rev 42".
	Detail string `json:"detail"`
	// DetailText words Detail in any language (see Text); zero when Detail is shown as it is.
	DetailText Text `json:"-"`
	// Fields are the stage's details, one per line, for the details pane.
	Fields []Field `json:"fields,omitempty"`
	// Patch is a mutating plugin's change as an RFC 6902 JSON patch ("" when none).
	Patch string `json:"patch,omitempty"`
	// Duration is the time spent in this stage (0 when unknown).
	Duration time.Duration `json:"-"`
	// DurationMicros is Duration in microseconds, for the JSON lines format.
	DurationMicros int64 `json:"durationMicros"`
	// Source is where the stage's code is.
	Source SourceRef `json:"-"`
	// Stopped marks the stage that ended the request (401, 403, 422, an admission refusal, an
	// abort at a breakpoint); there is at most one per trace and no stage follows it but
	// StageResponse.
	Stopped bool `json:"stopped,omitempty"`
}

// Trace is the lane of one request.
type Trace struct {
	// ID is the request's audit ID, the Audit-Id response header a client sees.
	ID string `json:"auditID"`
	// Seq numbers traces in arrival order, from 1.
	Seq uint64 `json:"-"`
	// Received is when the server received the request; Duration how long it took in all.
	Received time.Time     `json:"-"`
	Duration time.Duration `json:"-"`

	// The request info (WithRequestInfo).
	Verb        string `json:"verb"`
	Path        string `json:"path"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	LongRunning bool   `json:"longRunning,omitempty"`
	UserAgent   string `json:"userAgent,omitempty"`
	// Command is the kubectl command that sent the request ("kubectl explain"), from its
	// Kubectl-Command header; "" for other clients.
	Command string `json:"command,omitempty"`

	// Who: the authenticated user (the impersonated one when --as was used; Impersonator is
	// then the real user).
	User         string   `json:"user"`
	Groups       []string `json:"groups"`
	Impersonator string   `json:"impersonator,omitempty"`
	// Loopback is set for the server's own traffic (informers, post-start hooks).
	Loopback bool `json:"loopback,omitempty"`
	// Hidden is set for the traffic the learner did not make: the server's loopback and
	// kubewalk's own requests (a User-Agent starting with HiddenAgentPrefix). The Store keeps
	// it in a ring of its own.
	Hidden bool `json:"-"`

	// Code is the HTTP status (0 while in flight); Bytes the response size when known.
	Code  int   `json:"code"`
	Bytes int64 `json:"bytes,omitempty"`
	// Done is set once the response is complete.
	Done bool `json:"-"`

	// Server is the server of the delegation chain that answered: one of the Stage* names of
	// the chain (StageAggregator, StageKube, StageAPIExtensions, StageNotFound) or StageProxy
	// (the aggregator proxied it to an extension server); "" when nothing recorded it.
	Server string `json:"server,omitempty"`

	// Stages are the lane's boxes in chain order.
	Stages []Stage `json:"stages"`
}

// Filter selects traces for a view.
type Filter struct {
	// Loopback includes the hidden traffic (left out by default): the server's own loopback
	// requests, and kubewalk's own (the exercise checks, the health polls), which the store
	// keeps in a ring of its own.
	Loopback bool
	// Text matches user, verb, resource, namespace, name, path or code (substring, any case).
	Text string
}

// Event tells a subscriber that a trace changed (arrived, gained a stage, finished, was held or
// released). Views re-read the store; events may be coalesced.
type Event struct {
	ID string
}
