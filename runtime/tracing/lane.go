package tracing

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubewalk/kubewalk/server/observe"
)

// Source anchors of the stages kubewalk's own code does not run: the library's filters and
// handlers at the pinned version (see ../shared/reference/handler-chain-v0.37.2.md).
const (
	upstreamAuthentication = "k8s.io/apiserver/pkg/endpoints/filters.WithAuthentication"
	upstreamImpersonation  = "k8s.io/apiserver/pkg/endpoints/filters/impersonation.WithImpersonation"
	upstreamConstrained    = "k8s.io/apiserver/pkg/endpoints/filters/impersonation.WithConstrainedImpersonation"
	upstreamMaxInFlight    = "k8s.io/apiserver/pkg/server/filters.WithMaxInFlightLimit"
	upstreamPriority       = "k8s.io/apiserver/pkg/server/filters.WithPriorityAndFairness"
	upstreamAuthorization  = "k8s.io/apiserver/pkg/endpoints/filters.WithAuthorization"
	upstreamBeforeCreate   = "k8s.io/apiserver/pkg/registry/rest.BeforeCreate"
	upstreamBeforeUpdate   = "k8s.io/apiserver/pkg/registry/rest.BeforeUpdate"
	anchorAuthn            = "(*Server).Authn"
	anchorAuthz            = "(*Server).Authz"
	anchorAdmission        = "(*Server).Admission"
	anchorStorage          = "(*storageState).newStores"
	anchorInstall          = "(*Server).Install"
	upstreamDirector       = "k8s.io/apiserver/pkg/server.director.ServeHTTP"
	upstreamProxyHandler   = "k8s.io/kube-aggregator/pkg/apiserver.(*proxyHandler).ServeHTTP"
	upstreamCRDHandler     = "k8s.io/apiextensions-apiserver/pkg/apiserver.(*crdHandler).ServeHTTP"
	upstreamNotFound       = "k8s.io/apiserver/pkg/util/notfoundhandler.(*Handler).ServeHTTP"
)

// assemble builds the lane of one request from its records, in the order the handler chain
// meets the stages. A stage the request has not reached yet is absent; after the stage that
// stopped the request only the response follows.
func assemble(e *entry) Trace {
	t := Trace{ID: e.id, Seq: e.seq, Done: e.done}
	t.Stages = make([]Stage, 0, 8+len(e.adm)) // the chain's stages and a box per plugin run
	b := &builder{e: e, t: &t, audit: lastAudit(e)}
	b.requestInfo()
	b.authentication()
	b.impersonation()
	b.flowControl()
	b.authorization()
	b.chain()
	b.admissionHold()
	b.admission(true)
	b.validation()
	b.admission(false)
	b.storage()
	b.response()
	for i := range t.Stages {
		t.Stages[i].DurationMicros = t.Stages[i].Duration.Microseconds()
	}
	return t
}

type builder struct {
	e       *entry
	t       *Trace
	audit   *observe.Audit // the latest audit event, nil before the first
	stopped bool
}

// add appends a stage unless an earlier one stopped the request.
func (b *builder) add(st Stage) {
	if b.stopped {
		return
	}
	if st.Stopped {
		b.stopped = true
	}
	b.t.Stages = append(b.t.Stages, st)
}

func lastAudit(e *entry) *observe.Audit {
	if len(e.audits) == 0 {
		return nil
	}
	return e.audits[len(e.audits)-1]
}

// code is the response status, 0 while none has been written.
func (b *builder) code() int {
	if b.audit == nil {
		return 0
	}
	return b.audit.Code
}

func (b *builder) requestInfo() {
	t, e, a := b.t, b.e, b.audit
	if r := e.req; r != nil {
		t.Received = r.Received
		t.Verb, t.Path, t.APIGroup, t.APIVersion = r.Verb, r.Path, r.APIGroup, r.APIVersion
		t.Resource, t.Subresource, t.Namespace, t.Name = r.Resource, r.Subresource, r.Namespace, r.Name
		t.LongRunning, t.UserAgent, t.Command = r.LongRunning, r.UserAgent, r.Command
	}
	if a != nil {
		if t.Received.IsZero() {
			t.Received = a.Received
		}
		if t.Verb == "" {
			t.Verb = a.Verb
		}
		if t.Path == "" {
			t.Path, _, _ = strings.Cut(a.RequestURI, "?")
		}
		if t.Resource == "" {
			t.APIGroup, t.APIVersion, t.Resource, t.Subresource = a.APIGroup, a.APIVersion, a.Resource, a.Subresource
		}
		if t.Namespace == "" {
			t.Namespace = a.Namespace
		}
		if t.Name == "" { // a create learns its name from the object
			t.Name = a.Name
		}
		if t.UserAgent == "" {
			t.UserAgent = a.UserAgent
		}
		t.Code = a.Code
		if e.done && !a.StageTime.IsZero() && !t.Received.IsZero() {
			t.Duration = a.StageTime.Sub(t.Received)
		}
	}
	// Who: the chain's answer, then what audit knows (the impersonated user among it).
	real := ""
	if c := b.chainAuthn(); c != nil && c.OK {
		real = c.User
		t.User, t.Groups = c.User, c.Groups
	}
	if a != nil && a.User != "" {
		real = a.User
		t.User, t.Groups = a.User, a.Groups
		if a.ImpersonatedUser != "" {
			t.Impersonator = a.User
			t.User, t.Groups = a.ImpersonatedUser, a.ImpersonatedGroups
		}
	}
	t.Loopback = real == LoopbackUser
	if t.Groups == nil {
		t.Groups = []string{}
	}
	for _, s := range e.spans {
		if s.Server {
			if n, err := strconv.ParseInt(s.Attributes["http.response.body.size"], 10, 64); err == nil {
				t.Bytes = n
			}
		}
	}
}

// chainAuthn is the chain's answer, nil before it.
func (b *builder) chainAuthn() *observe.Authn {
	for i := len(b.e.authn) - 1; i >= 0; i-- {
		if b.e.authn[i].Chain {
			return b.e.authn[i]
		}
	}
	return nil
}

// spanStart is when the filter span name started, zero if it has not.
func (b *builder) spanStart(names ...string) (time.Time, string) {
	for _, s := range b.e.spans {
		for _, n := range names {
			if s.Name == n && s.End.IsZero() {
				return s.Start, n
			}
		}
	}
	return time.Time{}, ""
}

// holdAt is the request's last hold at gate stage, nil if it was never held there.
func (b *builder) holdAt(stage string) *hold {
	for i := len(b.e.holds) - 1; i >= 0; i-- {
		if b.e.holds[i].stage == stage {
			return &b.e.holds[i]
		}
	}
	return nil
}

// applyHold marks a stage with its breakpoint hold: held now, failed by the learner (the
// stage that stopped the request), or how long it was held and how it went on.
func applyHold(st *Stage, h *hold) {
	if h == nil {
		return
	}
	if h.until.IsZero() {
		st.Outcome = OutcomeHeld
		since := h.since.Format("15:04:05")
		if h.spec == "" {
			st.setDetail(say("LaneHeldStepping", since)) // no field repeating it
		} else {
			st.setDetail(say("LaneHeldBreakpoint", h.spec, since))
		}
		return
	}
	if h.outcome == holdAbort {
		st.Outcome, st.Stopped = OutcomeAborted, true
		st.setDetail(say("LaneAbortedAt", st.Name))
	}
	held := round(h.until.Sub(h.since)).String()
	if h.spec == "" {
		st.addWordedField("LaneFieldBreakpoint", say("LaneHoldStepping", held, holdOutcome(h.outcome)))
	} else {
		st.addWordedField("LaneFieldBreakpoint", say("LaneHoldBreakpoint", h.spec, held, holdOutcome(h.outcome)))
	}
}

// holdOutcome words how a hold ended (one of the hold* constants).
func holdOutcome(outcome string) Text {
	switch outcome {
	case holdStep:
		return say("LaneHoldStepped")
	case holdContinue:
		return say("LaneHoldContinued")
	case holdAbort:
		return say("LaneHoldFailed")
	case holdTimeout:
		return say("LaneHoldTimeout")
	case holdReleased:
		return say("LaneHoldReleased")
	case holdGone:
		return say("LaneHoldGone")
	}
	return verbatim(outcome)
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// source turns a lessons anchor from observe (kubewalk's own, or a k8s.io/ import path) into
// a SourceRef, with fallback as the other half when given.
func source(anchor, kubewalk, upstream string) SourceRef {
	ref := SourceRef{Anchor: kubewalk, Upstream: upstream}
	switch {
	case anchor == "":
	case strings.HasPrefix(anchor, "k8s.io/"):
		ref.Upstream = anchor
	default:
		ref.Anchor = anchor
	}
	return ref
}

func (b *builder) authentication() {
	chain := b.chainAuthn()
	h := b.holdAt(observe.GateAuthentication)
	st := Stage{Name: StageAuthentication, Source: SourceRef{Anchor: anchorAuthn, Upstream: upstreamAuthentication}}
	var answered *observe.Authn
	for _, r := range b.e.authn {
		if r.Chain {
			continue
		}
		st.addField(r.Authenticator, describeAuthn(r))
		if r.OK {
			answered = r
		}
	}
	switch {
	case chain == nil && b.code() == http.StatusUnauthorized:
		st.Outcome, st.Stopped = OutcomeFailed, true
		st.setDetail(say("LaneAuthnNone"))
	case chain == nil:
		return // not answered yet
	case chain.OK:
		st.Outcome = OutcomeOK
		st.Duration = chain.Duration
		who := userGroups(chain.User, chain.Groups)
		switch {
		case answered != nil:
			st.setDetail(say("LaneNamed", answered.Authenticator, who))
			st.Source = source(answered.Source, anchorAuthn, upstreamAuthentication)
		case chain.User == LoopbackUser:
			// genericapiserver's Complete() puts the loopback token's authenticator in front
			// of the chain (AuthorizeClientBearerToken); it is not one of ours.
			st.setDetail(say("LaneAuthnLoopback", who))
			st.Source.Upstream = "k8s.io/apiserver/pkg/server.AuthorizeClientBearerToken"
		default:
			st.setDetail(who)
		}
	default:
		st.Outcome, st.Stopped = OutcomeFailed, true
		st.Duration = chain.Duration
		st.setDetail(say("LaneAuthnNone"))
		if chain.Err != "" {
			st.setDetail(say("LaneAuthnErr", chain.Err))
		}
	}
	applyHold(&st, h)
	b.add(st)
}

// describeAuthn reads one authenticator's answer. An authenticator that neither accepts nor
// refuses had nothing to check: kubewalk's x509 and token authenticators answer only when
// their credential is in the request, the anonymous one only on its paths.
func describeAuthn(r *observe.Authn) Text {
	switch {
	case r.OK:
		return say("LaneAuthnAccepted", userGroups(r.User, r.Groups))
	case r.Err != "":
		return say("LaneAuthnRefused", r.Err)
	}
	switch r.Authenticator {
	case "x509":
		return say("LaneAuthnNoCert")
	case "token":
		return say("LaneAuthnNoToken")
	case "anonymous":
		return say("LaneAuthnNoAnon")
	}
	return say("LaneAuthnNoAnswer")
}

// userGroups is a user with its groups, "alice (groups system:authenticated)".
func userGroups(user string, groups []string) Text {
	if len(groups) == 0 {
		return verbatim(user)
	}
	return say("LaneUserGroups", user, strings.Join(groups, ", "))
}

// passedAuthentication reports whether the request went on past authentication.
func (b *builder) passedAuthentication() bool {
	if len(b.t.Stages) == 0 || b.stopped {
		return false
	}
	st := b.t.Stages[len(b.t.Stages)-1]
	return st.Name == StageAuthentication && st.Outcome == OutcomeOK
}

func (b *builder) impersonation() {
	if !b.passedAuthentication() {
		return
	}
	start, span := b.spanStart("impersonation", "constrainedimpersonation")
	upstream := upstreamConstrained
	if span == "impersonation" {
		upstream = upstreamImpersonation
	}
	st := Stage{Name: StageImpersonation, Source: SourceRef{Upstream: upstream}}
	var checks []*observe.Authz
	for _, r := range b.e.authz {
		if r.Purpose == observe.PurposeImpersonation {
			checks = append(checks, r)
			st.addField(r.Authorizer, say("LaneAccessCheck", r.Verb, r.Resource, r.Name, describeDecision(r)))
		}
	}
	a := b.audit
	authzStart, _ := b.spanStart("authorization")
	if !start.IsZero() && !authzStart.IsZero() {
		st.Duration = authzStart.Sub(start)
		st.addWordedField("LaneFieldTime", say("LaneImpTime"))
	}
	switch {
	case a != nil && a.ImpersonatedUser != "":
		st.Outcome = OutcomeOK
		st.setDetail(say("LaneImpActingAs", a.User, userGroups(a.ImpersonatedUser, a.ImpersonatedGroups)))
	case len(checks) > 0 && b.code() == http.StatusForbidden && !b.asked(observe.PurposeAuthorization):
		st.Outcome, st.Stopped = OutcomeDenied, true
		st.setDetail(say("LaneImpDenied"))
		if a != nil && a.Message != "" {
			st.setDetail(verbatim("403: " + a.Message))
		}
	case len(checks) > 0:
		st.Outcome = OutcomeOK
		st.setDetail(say("LaneImpChecked"))
	case start.IsZero() && b.code() == 0:
		return // not reached yet
	default:
		st.Outcome = OutcomeSkipped
		st.setDetail(say("LaneImpSkipped"))
		st.Duration = 0
		st.Fields = nil
	}
	b.add(st)
}

// asked reports whether an authorizer was asked for purpose.
func (b *builder) asked(purpose string) bool {
	for _, r := range b.e.authz {
		if r.Purpose == purpose {
			return true
		}
	}
	return false
}

func (b *builder) flowControl() {
	if b.stopped || len(b.t.Stages) == 0 || b.t.Stages[len(b.t.Stages)-1].Name != StageImpersonation {
		return
	}
	authzStart, _ := b.spanStart("authorization")
	pf, _ := b.spanStart("priorityandfairness")
	st := Stage{Name: StageFlowControl, Source: SourceRef{Upstream: upstreamMaxInFlight}}
	switch {
	case b.code() == http.StatusTooManyRequests && authzStart.IsZero():
		st.Outcome, st.Stopped = OutcomeFailed, true
		st.setDetail(say("LaneFlowTooMany"))
	case !pf.IsZero():
		st.Outcome, st.Source.Upstream = OutcomeOK, upstreamPriority
		st.setDetail(say("LaneFlowPF"))
		if !authzStart.IsZero() {
			st.Duration = authzStart.Sub(pf)
		}
	case authzStart.IsZero() && !b.asked(observe.PurposeAuthorization) && b.holdAt(observe.GateAuthorization) == nil:
		return // not past it yet
	case b.t.LongRunning:
		st.Outcome = OutcomeOK
		st.setDetail(say("LaneFlowLongRunning"))
	default:
		st.Outcome = OutcomeOK
		st.setDetail(say("LaneFlowAdmitted"))
		st.addWordedField("LaneFieldNote", say("LaneFlowNote"))
	}
	b.add(st)
}

func (b *builder) authorization() {
	if b.stopped || len(b.t.Stages) == 0 || b.t.Stages[len(b.t.Stages)-1].Name != StageFlowControl {
		return
	}
	h := b.holdAt(observe.GateAuthorization)
	var recs []*observe.Authz
	for _, r := range b.e.authz {
		if r.Purpose == observe.PurposeAuthorization {
			recs = append(recs, r)
		}
	}
	a := b.audit
	decision := ""
	if a != nil {
		decision = a.Decision
	}
	if len(recs) == 0 && h == nil && decision == "" {
		return
	}
	st := Stage{Name: StageAuthorization, Source: SourceRef{Anchor: anchorAuthz, Upstream: upstreamAuthorization}}
	var decider *observe.Authz
	var opinions Texts
	for _, r := range recs {
		st.Duration += r.Duration
		d := describeDecision(r)
		st.addField(r.Authorizer, d)
		opinions = append(opinions, say("LaneNamed", r.Authorizer, d))
		if r.Decision == observe.DecisionAllow || r.Decision == observe.DecisionDeny {
			decider = r
		}
	}
	switch {
	case decision == "allow" || (decider != nil && decider.Decision == observe.DecisionAllow):
		st.Outcome = OutcomeAllowed
		st.setDetail(say("LaneAllowed"))
		if decider != nil {
			st.setDetail(say("LaneNamed", decider.Authorizer, allowedReason(decider)))
			st.Source = source(decider.Source, anchorAuthz, upstreamAuthorization)
		}
	case decision == "forbid" || (decider != nil && decider.Decision == observe.DecisionDeny):
		st.Outcome, st.Stopped = OutcomeDenied, true
		st.setDetail(say("LaneForbidden", opinions))
		if decider != nil {
			st.setDetail(say("LaneForbidden", say("LaneNamed", decider.Authorizer, describeDecision(decider))))
			st.Source = source(decider.Source, anchorAuthz, upstreamAuthorization)
		} else if len(recs) == 0 && a != nil && a.DecisionReason != "" {
			st.setDetail(say("LaneForbidden", a.DecisionReason))
		}
		if len(recs) > 0 {
			st.addWordedField("LaneFieldChain", say("LaneAuthzUnion"))
			if decider == nil {
				st.Source = source(recs[len(recs)-1].Source, anchorAuthz, upstreamAuthorization)
			}
		}
	default:
		st.Outcome = OutcomeNoOpinion
		st.setDetail(list(opinions))
	}
	applyHold(&st, h)
	b.add(st)
}

// describeDecision reads an authorizer's decision: "no opinion", "allowed by …", "denied: …".
func describeDecision(r *observe.Authz) Text {
	var s Text
	reason := trimReason(r)
	switch {
	case r.Decision == observe.DecisionAllow:
		s = allowedReason(r)
	case r.Decision == observe.DecisionDeny && reason == "":
		s = say("LaneDenied")
	case r.Decision == observe.DecisionDeny:
		s = say("LaneDeniedReason", reason)
	case reason == "":
		s = say("LaneNoOpinion")
	default:
		s = say("LaneNoOpinionReason", reason)
	}
	if r.Err != "" {
		s = say("LaneDecisionErr", s, r.Err)
	}
	return s
}

// allowedReason words an Allow with the authorizer's reason, which RBAC already starts with
// "allowed by …" (shown as it is in English, after the word in another language).
func allowedReason(r *observe.Authz) Text {
	reason := trimReason(r)
	switch {
	case reason == "":
		return say("LaneAllowed")
	case strings.HasPrefix(reason, "allowed"):
		return say("LaneAllowedBy", reason)
	}
	return say("LaneAllowedReason", reason)
}

// trimReason drops the authorizer's own name from its reason ("RBAC: allowed by …").
func trimReason(r *observe.Authz) string {
	reason := strings.TrimSpace(r.Reason)
	if i := strings.Index(reason, ": "); i > 0 && strings.EqualFold(reason[:i], r.Authorizer) {
		reason = reason[i+2:]
	}
	return reason
}

// admissionHold adds the box of a hold before the first mutating plugin.
func (b *builder) admissionHold() {
	h := b.holdAt(observe.GateAdmission)
	if h == nil || b.stopped {
		return
	}
	st := Stage{Name: StageMutatingAdmission, Outcome: OutcomeOK, Source: SourceRef{Anchor: anchorAdmission}}
	st.setDetail(say("LaneHeldBeforeAdmission"))
	if !h.until.IsZero() {
		st.Duration = h.until.Sub(h.since)
	}
	applyHold(&st, h)
	b.add(st)
}

// admission adds one box per admission plugin of the mutating or validating pass, in the
// order they ran. A pass that ran twice (an update retried after a conflict) shows its last
// run.
func (b *builder) admission(mutating bool) {
	var order []string
	last := map[string]*observe.Admission{}
	for _, r := range b.e.adm {
		if r.Mutating != mutating {
			continue
		}
		if _, ok := last[r.Plugin]; !ok {
			order = append(order, r.Plugin)
		}
		last[r.Plugin] = r
	}
	prefix := StageValidatingPrefix
	if mutating {
		prefix = StageMutatingPrefix
	}
	for _, name := range order {
		r := last[name]
		st := Stage{Name: prefix + name, Duration: r.Duration, Source: source(r.Source, anchorAdmission, "")}
		switch {
		case r.Err != "":
			st.Outcome, st.Stopped = OutcomeRefused, true
			st.setDetail(verbatim(r.Err))
		case mutating && patchOf(r) != "":
			st.Outcome = OutcomeChanged
			st.Patch = patchOf(r)
			if observe.IsSecretResource(b.t.Resource) || observe.IsSecretResource(r.Resource) {
				st.Patch = observe.RedactPatch(st.Patch)
			}
			st.setDetail(summarizePatch(st.Patch))
		case mutating:
			st.Outcome = OutcomeNoChange
			st.setDetail(say("LaneNoChange"))
		default:
			st.Outcome = OutcomeOK
			st.setDetail(say("LaneAllowed"))
		}
		st.addWordedField("LaneFieldOperation", verbatim(r.Operation))
		b.add(st)
	}
}

// patchOf returns a mutating plugin's patch (observe computes it once per record).
func patchOf(r *observe.Admission) string { return r.Patch() }

// summarizePatch names a patch's operations: "add /metadata/annotations" (JSON patch words,
// the same in every language).
func summarizePatch(patch string) Text {
	var ops []string
	rest := patch
	for len(ops) < 4 {
		i := strings.Index(rest, `"op":"`)
		if i < 0 {
			break
		}
		rest = rest[i+6:]
		op, after, _ := strings.Cut(rest, `"`)
		j := strings.Index(after, `"path":"`)
		if j < 0 {
			break
		}
		path, tail, _ := strings.Cut(after[j+8:], `"`)
		ops = append(ops, op+" "+path)
		rest = tail
	}
	if len(ops) == 0 {
		return say("LaneChanged")
	}
	return verbatim(strings.Join(ops, ", "))
}

func (b *builder) validation() {
	if b.stopped {
		return
	}
	var v *observe.Validation
	if n := len(b.e.val); n > 0 {
		v = b.e.val[n-1]
	}
	code := b.code()
	upstream := upstreamBeforeCreate
	if b.t.Verb == "update" || b.t.Verb == "patch" || (v != nil && v.Operation == "update") {
		upstream = upstreamBeforeUpdate
	}
	st := Stage{Name: StageValidation, Source: SourceRef{Upstream: upstream}}
	switch {
	case v == nil && code == http.StatusUnprocessableEntity:
		st.Outcome, st.Stopped = OutcomeRefused, true
		st.setDetail(verbatim("422 Unprocessable Entity: " + b.message()))
	case v == nil:
		return
	case len(v.Errors) > 0:
		st.Source.Anchor = v.Strategy
		st.Duration = v.Duration
		st.Outcome, st.Stopped = OutcomeRefused, true
		if len(v.Errors) == 1 {
			st.setDetail(say("LaneFieldErrors1", v.Strategy))
		} else {
			st.setDetail(say("LaneFieldErrors", len(v.Errors), v.Strategy))
		}
		for _, fe := range v.Errors { // the server's words: type, value, detail
			val := fe.Type
			if fe.Value != "" {
				val += ": " + strconv.Quote(fe.Value)
			}
			if fe.Detail != "" {
				val += ": " + fe.Detail
			}
			st.addField(fe.Field, verbatim(val))
		}
		st.addWordedField("LaneFieldStrategy", verbatim(v.Strategy))
	case code == http.StatusUnprocessableEntity && !b.pastValidation():
		// The strategy passed; rest.ValidateCreate's generic ObjectMeta checks, which run
		// after it, refused.
		st.Source.Anchor = v.Strategy
		st.Outcome, st.Stopped = OutcomeRefused, true
		st.setDetail(verbatim("422: " + b.message()))
		st.addWordedField("LaneFieldStrategy", say("LaneStrategyValid", v.Strategy))
		st.addWordedField("LaneFieldThen", say("LaneGenericRefused", upstream))
	default:
		st.Source.Anchor = v.Strategy
		st.Duration = v.Duration
		st.Outcome = OutcomeOK
		st.setDetail(say("LaneValid", v.Strategy))
		st.addWordedField("LaneFieldStrategy", verbatim(v.Strategy))
	}
	b.add(st)
}

// pastValidation reports whether the request got beyond validation: a validating plugin or
// the store saw it.
func (b *builder) pastValidation() bool {
	for _, r := range b.e.adm {
		if !r.Mutating {
			return true
		}
	}
	for _, r := range b.e.stor {
		if r.Op == observe.OpCreate || r.Op == observe.OpUpdate {
			return true
		}
	}
	return false
}

// message is the response's status message, or "" (it is left out for a Secret's 422, whose
// field errors may quote a value).
func (b *builder) message() string {
	a := b.audit
	if a == nil {
		return ""
	}
	if observe.IsSecretResource(b.t.Resource) && a.Code == http.StatusUnprocessableEntity {
		return observe.Redacted
	}
	return a.Message
}

func (b *builder) storage() {
	if b.stopped {
		return
	}
	h := b.holdAt(observe.GateStorage)
	ops := b.e.stor
	if len(ops) == 0 && h == nil {
		return
	}
	st := Stage{Name: StageStorage, Source: SourceRef{Anchor: anchorStorage}}
	var main *observe.Storage
	var where string
	for _, op := range ops {
		w := b.servedFrom(op)
		st.Duration += op.Duration
		line := []Text{verbatim(op.Key)}
		if op.Revision != "" {
			line = append(line, say("LaneStorageRev", op.Revision))
		}
		if op.ResourceVersion != "" {
			line = append(line, say("LaneStorageAskedRV", op.ResourceVersion))
		}
		switch {
		case op.Err != "":
			line = append(line, verbatim(": "+op.Err))
		case w != "":
			line = append(line, say("LaneStorageWhere", describeWhere(w)))
		}
		st.addField(op.Op, joined(line...))
		main, where = op, w
	}
	switch {
	case main == nil:
		st.Outcome = OutcomeOK
	case main.Err != "":
		st.Outcome = OutcomeFailed
		st.Stopped = b.code() >= 400
		st.setDetail(joined(verbatim(strings.ToUpper(main.Op)+" "+main.Key+": "), shortStorageError(main.Err)))
	default:
		st.Outcome = OutcomeEtcd
		if where == "cache" {
			st.Outcome = OutcomeCache
		}
		detail := []Text{verbatim(strings.ToUpper(main.Op) + " " + main.Key)}
		if main.Revision != "" {
			detail = append(detail, say("LaneDetailRev", main.Revision))
		}
		if where != "" {
			detail = append(detail, say("LaneDetailWhere", describeWhere(where)))
		}
		st.setDetail(joined(detail...))
	}
	if main != nil {
		st.Source.Upstream = storageUpstream(main.Op, where)
		st.addWordedField("LaneFieldKey", verbatim(main.Key))
		if main.Revision != "" {
			st.addWordedField("LaneFieldRevision", verbatim(main.Revision))
		}
	}
	applyHold(&st, h)
	b.add(st)
}

// shortStorageError says "not found" for the storage layer's long NotFound text.
func shortStorageError(err string) Text {
	if strings.Contains(err, "key not found") {
		return say("LaneNotFound")
	}
	return verbatim(err)
}

func describeWhere(w string) Text {
	if w == "cache" {
		return say("LaneFromCache")
	}
	return verbatim("etcd")
}

// servedFrom tells where a storage call was served, from the spans the library emitted
// during it: "etcd" when the etcd3 store ran ("Get etcd3", "Create etcd3", ...), "cache" when
// only the watch cache did ("cacher.Get", "cacher.GetList", "cacher.Watch"); writes always
// reach etcd. "" when no span says (tracing off).
func (b *builder) servedFrom(op *observe.Storage) string {
	switch op.Op {
	case observe.OpCreate, observe.OpUpdate, observe.OpDelete:
		return "etcd"
	}
	end := op.Start.Add(op.Duration)
	cache := false
	for _, s := range b.e.spans {
		if s.End.IsZero() || s.Server || s.Start.Before(op.Start) || s.Start.After(end) {
			continue
		}
		switch {
		case strings.HasSuffix(s.Name, " etcd3"):
			return "etcd"
		case strings.HasPrefix(s.Name, "cacher."):
			cache = true
		}
	}
	if cache {
		return "cache"
	}
	return ""
}

// storageUpstream names the library function that served a storage call.
func storageUpstream(op, where string) string {
	method := map[string]string{observe.OpGet: "Get", observe.OpList: "GetList", observe.OpWatch: "Watch",
		observe.OpCreate: "Create", observe.OpUpdate: "GuaranteedUpdate", observe.OpDelete: "Delete"}[op]
	if method == "" {
		return ""
	}
	if where == "cache" {
		return "k8s.io/apiserver/pkg/storage/cacher.(*Cacher)." + method
	}
	return "k8s.io/apiserver/pkg/storage/etcd3.(*store)." + method
}

func (b *builder) response() {
	a := b.audit
	if a == nil || a.Code == 0 {
		return
	}
	t := b.t
	st := Stage{Name: StageResponse, Duration: t.Duration}
	st.Outcome = OutcomeOK
	if a.Code >= 400 {
		st.Outcome = OutcomeFailed
	}
	detail := fmt.Sprintf("%d %s", a.Code, http.StatusText(a.Code))
	if t.Bytes > 0 {
		detail += fmt.Sprintf(" · %d B", t.Bytes)
	}
	if !t.Done && t.LongRunning {
		st.setDetail(joined(verbatim(detail+" · "), say("LaneStreaming")))
	} else {
		st.setDetail(verbatim(detail))
	}
	if m := b.message(); m != "" && a.Code >= 400 {
		st.addWordedField("LaneFieldMessage", verbatim(m))
	}
	for _, r := range b.e.authz {
		if r.Purpose == observe.PurposeHandler {
			st.addWordedField("LaneFieldAskedInHandler", say("LaneAccessCheck", r.Verb, r.Resource, r.Name, say("LaneNamed", r.Authorizer, describeDecision(r))))
		}
	}
	b.t.Stages = append(b.t.Stages, st)
}

// serverNames are the GenericAPIServers of the chain as their New names them (and the state
// pane shows them), by Hop server.
var serverNames = map[string]string{
	observe.ServerAggregator:    "kube-aggregator",
	observe.ServerKube:          "kubewalk-apiserver",
	observe.ServerAPIExtensions: "apiextensions-apiserver",
	observe.ServerNotFound:      "NotFound handler",
}

// chain adds a box for each server of the delegation chain the request reached once the
// filters had run — the aggregator, where they ran, then each delegate it fell through to —
// and, for a request the aggregator proxies, the hop to the extension server. The last
// server reached answered, unless the aggregator proxied it.
func (b *builder) chain() {
	if b.stopped || len(b.e.hops) == 0 {
		return
	}
	t := b.t
	hops := b.e.hops
	code := b.code()
	for i, h := range hops {
		st := Stage{Name: h.Server, Source: SourceRef{Anchor: anchorInstall, Upstream: upstreamDirector}}
		st.addWordedField("LaneFieldServer", verbatim(serverNames[h.Server]))
		last := i == len(hops)-1
		if !last {
			st.Duration = hops[i+1].Start.Sub(h.Start)
		}
		switch h.Server {
		case observe.ServerAggregator:
			st.addWordedField("LaneFieldFilters", say("LaneChainFilters"))
			if h.Remote != nil || t.APIVersion != "" {
				st.Source.Upstream = upstreamProxyHandler
			}
		case observe.ServerAPIExtensions:
			if last && t.Resource != "" && t.APIGroup != "apiextensions.k8s.io" {
				st.Source.Upstream = upstreamCRDHandler
			}
		case observe.ServerNotFound:
			st.Source.Upstream = upstreamNotFound
		}
		switch {
		case h.Server == observe.ServerNotFound:
			st.Outcome, st.Stopped = OutcomeNotFound, code != 0
			switch code {
			case 0:
				st.Outcome = OutcomeOK
				st.setDetail(say("LaneChainReached"))
			case http.StatusServiceUnavailable:
				st.Outcome = OutcomeFailed
				st.setDetail(say("LaneChainNotReady"))
			default:
				st.setDetail(say("LaneChainNotFound", code, t.Path))
			}
			st.addWordedField("LaneFieldPath", verbatim(chainPath(hops)))
		case !last:
			st.Outcome = OutcomeDelegated
			st.setDetail(say("LaneChainHanded", hops[i+1].Server))
		case h.Remote != nil:
			r := h.Remote
			st.Outcome = OutcomeProxied
			st.setDetail(say("LaneChainProxied", r.Name, r.Service))
			st.addWordedField("LaneFieldAPIService", verbatim(r.Name))
			st.addWordedField("LaneFieldService", verbatim(r.Service))
			if r.Available {
				st.addWordedField("LaneFieldAvailable", verbatim("True"))
			} else {
				st.addWordedField("LaneFieldAvailable", verbatim(strings.TrimSpace("False "+r.Reason)))
			}
		default:
			st.Outcome = OutcomeServed
			st.setDetail(say("LaneChainServed", serverNames[h.Server]))
			if h.Server == observe.ServerAggregator {
				st.setDetail(say("LaneChainServedAgg"))
			}
		}
		t.Server = h.Server
		b.add(st)
	}
	if r := hops[0].Remote; r != nil && hops[0].Server == observe.ServerAggregator && len(hops) == 1 {
		t.Server = StageProxy
		b.proxy(hops[0], r)
	}
}

// chainPath is the servers a request went through, "aggregator → kube → apiextensions →
// notfound".
func chainPath(hops []*observe.Hop) string {
	names := make([]string, len(hops))
	for i, h := range hops {
		names[i] = h.Server
	}
	return strings.Join(names, " → ")
}

// proxy adds the aggregator's hop to the extension server: the client span otelhttp records
// around the proxy's round trip (its time, the address, the status), or, when no hop was
// made, why the aggregator answered itself.
func (b *builder) proxy(h *observe.Hop, r *observe.RemoteAPIService) {
	st := Stage{Name: StageProxy, Source: SourceRef{Upstream: upstreamProxyHandler}}
	var span *observe.Span
	for _, s := range b.e.spans {
		if s.Client && !s.Start.Before(h.Start) {
			span = s
		}
	}
	code := b.code()
	switch {
	case span != nil && span.End.IsZero():
		return // cannot happen: client spans are recorded when they end
	case span != nil:
		st.Duration = span.End.Sub(span.Start)
		addr := span.Attributes["server.address"]
		if p := span.Attributes["server.port"]; p != "" {
			addr += ":" + p
		}
		status := span.Attributes["http.response.status_code"]
		st.addWordedField("LaneFieldAddress", verbatim("https://"+addr))
		st.addWordedField("LaneFieldAs", say("LaneProxyAs", b.t.User))
		switch n, _ := strconv.Atoi(status); {
		case span.Err != "" && status == "":
			st.Outcome, st.Stopped = OutcomeFailed, code >= 400
			st.setDetail(say("LaneProxyErr", addr, span.Err))
		case n >= 400:
			st.Outcome = OutcomeFailed
			st.setDetail(say("LaneProxyTo", addr, status+" "+http.StatusText(n)))
		default:
			st.Outcome = OutcomeOK
			st.setDetail(say("LaneProxyTo", addr, status+" "+http.StatusText(n)))
		}
		st.addWordedField("LaneFieldTime", say("LaneProxyTime"))
	case code == 0:
		return // not yet answered
	default:
		st.Outcome, st.Stopped = OutcomeFailed, code >= 400
		st.setDetail(say("LaneProxyNoHop", code, r.Name))
		if !r.Available && r.Message != "" {
			st.addWordedField("LaneFieldAvailable", verbatim("False "+r.Reason+": "+r.Message))
		}
	}
	b.add(st)
}
