package observe

import (
	"net/url"
	"strings"

	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// The audit annotations WithAuthorization adds (k8s.io/apiserver/pkg/endpoints/filters,
// authorization.go).
const (
	annotationDecision = "authorization.k8s.io/decision"
	annotationReason   = "authorization.k8s.io/reason"
)

// maxAuditIDLength is audit.GetAuditIDTruncated's limit, applied to the events' IDs too so
// that every record of a request carries the same ID.
const maxAuditIDLength = 64

// AuditBackend is an audit.Backend that hands each event to a Recorder as an *Audit record.
// It keeps nothing and never blocks beyond the Recorder's own (non-blocking) Record: the
// library calls ProcessEvents on the request's goroutine, with the audit context locked.
type AuditBackend struct {
	record recordFunc
}

var _ audit.Backend = (*AuditBackend)(nil)

// NewAuditBackend returns a backend forwarding events to rec.
func NewAuditBackend(rec Recorder) *AuditBackend { return &AuditBackend{record: recorderFunc(rec)} }

// ProcessEvents records each event. The events belong to the library (it reuses them after
// the call), so only copies of their fields are kept.
func (b *AuditBackend) ProcessEvents(events ...*auditinternal.Event) bool {
	for _, ev := range events {
		if ev == nil {
			continue
		}
		b.record(auditRecord(ev))
	}
	return true
}

// Run does nothing: the backend has no goroutines.
func (b *AuditBackend) Run(<-chan struct{}) error { return nil }

// Shutdown does nothing: every event was handed over when it came.
func (b *AuditBackend) Shutdown() {}

// String names the backend.
func (b *AuditBackend) String() string { return "kubewalk-observe" }

func auditRecord(ev *auditinternal.Event) *Audit {
	id := string(ev.AuditID)
	if len(id) > maxAuditIDLength {
		id = id[:maxAuditIDLength]
	}
	r := &Audit{
		ID:         id,
		Stage:      string(ev.Stage),
		Received:   ev.RequestReceivedTimestamp.Time,
		StageTime:  ev.StageTimestamp.Time,
		Verb:       ev.Verb,
		RequestURI: withoutAccessToken(ev.RequestURI),
		UserAgent:  ev.UserAgent,
		User:       ev.User.Username,
		Groups:     append([]string(nil), ev.User.Groups...),
	}
	if u := ev.ImpersonatedUser; u != nil {
		r.ImpersonatedUser = u.Username
		r.ImpersonatedGroups = append([]string(nil), u.Groups...)
	}
	if o := ev.ObjectRef; o != nil {
		r.APIGroup, r.APIVersion, r.Resource, r.Subresource = o.APIGroup, o.APIVersion, o.Resource, o.Subresource
		r.Namespace, r.Name = o.Namespace, o.Name
	}
	if s := ev.ResponseStatus; s != nil {
		r.Code = int(s.Code)
		r.Status, r.Reason, r.Message = s.Status, string(s.Reason), s.Message
	}
	r.Decision = ev.Annotations[annotationDecision]
	r.DecisionReason = ev.Annotations[annotationReason]
	return r
}

// withoutAccessToken drops an access_token query parameter (a bearer token passed in the URL)
// from a request URI.
func withoutAccessToken(uri string) string {
	path, query, ok := strings.Cut(uri, "?")
	if !ok || !strings.Contains(query, "access_token") {
		return uri
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return path
	}
	q.Del("access_token")
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// AuditPolicy is the audit policy kubewalk's recording runs with: level Metadata (who, what,
// when, the response status and the annotations; never a request or response body) for
// every request, so that a request refused by authentication (WithFailedAuthenticationAudit,
// which sends ResponseStarted) is recorded too. The RequestReceived stage is omitted: it
// carries nothing the Request record (made when authentication begins) does not, and it would
// cost every request one more event.
type AuditPolicy struct{}

var _ audit.PolicyRuleEvaluator = AuditPolicy{}

// omitStages is shared by every request's config: the library only reads it.
var omitStages = []auditinternal.Stage{auditinternal.StageRequestReceived}

// EvaluatePolicyRule returns level Metadata for every request, RequestReceived omitted.
func (AuditPolicy) EvaluatePolicyRule(authorizer.Attributes) audit.RequestAuditConfig {
	return audit.RequestAuditConfig{Level: auditinternal.LevelMetadata, OmitStages: omitStages}
}
