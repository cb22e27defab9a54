package observe

import (
	"context"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// Authorizer decorates one authorizer of the union (name is its NamedAuthorizer name) so that
// rec learns each decision and reason, with why it was asked (Authz.Purpose).
func Authorizer(rec Recorder, name string, a authorizer.Authorizer) authorizer.Authorizer {
	return &namedAuthorizer{record: recorderFunc(rec), name: name, inner: a, source: MethodAnchor(a, "Authorize")}
}

type namedAuthorizer struct {
	record recordFunc
	name   string
	inner  authorizer.Authorizer
	source string
}

// Authorize asks the authorizer and records its decision.
func (a *namedAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	start := time.Now()
	d, reason, err := a.inner.Authorize(ctx, attrs)
	a.recordDecision(ctx, attrs, start, decisionName(d), reason, err)
	return d, reason, err
}

// ConditionsAwareAuthorize asks the authorizer and records its decision.
func (a *namedAuthorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	start := time.Now()
	d := a.inner.ConditionsAwareAuthorize(ctx, attrs)
	name := DecisionNoOpinion
	switch {
	case d.IsAllow():
		name = DecisionAllow
	case d.IsDeny():
		name = DecisionDeny
	case !d.IsNoOpinion():
		name = "conditional"
	}
	a.recordDecision(ctx, attrs, start, name, d.Reason(), d.Error())
	return d
}

// EvaluateConditions passes through: evaluating conditions is not a decision of its own.
func (a *namedAuthorizer) EvaluateConditions(ctx context.Context, d authorizer.ConditionsAwareDecision, data authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return a.inner.EvaluateConditions(ctx, d, data)
}

func (a *namedAuthorizer) recordDecision(ctx context.Context, attrs authorizer.Attributes, start time.Time, decision, reason string, err error) {
	id := audit.GetAuditIDTruncated(ctx)
	if id == "" {
		return
	}
	r := &Authz{ID: id, Purpose: Purpose(ctx, attrs), Authorizer: a.name, Source: a.source, Start: start, Duration: time.Since(start),
		Verb: attrs.GetVerb(), APIGroup: attrs.GetAPIGroup(), Resource: attrs.GetResource(), Subresource: attrs.GetSubresource(),
		Namespace: attrs.GetNamespace(), Name: attrs.GetName(), Path: attrs.GetPath(),
		Decision: decision, Reason: reason}
	if u := attrs.GetUser(); u != nil {
		r.User = u.GetName()
	}
	if err != nil {
		r.Err = err.Error()
	}
	a.record(r)
}

func decisionName(d authorizer.Decision) string {
	switch d {
	case authorizer.DecisionAllow:
		return DecisionAllow
	case authorizer.DecisionDeny:
		return DecisionDeny
	}
	return DecisionNoOpinion
}

// Purpose tells why an authorizer is asked about attrs in ctx: PurposeImpersonation for the
// impersonation filter's checks (verb "impersonate"; with constrained impersonation, on by
// default at v0.37.2, "impersonate:<mode>" and "impersonate-on:<mode>:<verb>"); PurposeAuthorization when the attributes are
// the request's own, as WithAuthorization builds them from the RequestInfo
// (filters.GetAuthorizerAttributes: same verb, resource, namespace, name and URL path);
// PurposeHandler otherwise (an access review or escalation check inside the handler, whose
// attributes carry no path or another verb).
func Purpose(ctx context.Context, attrs authorizer.Attributes) string {
	if v := attrs.GetVerb(); v == "impersonate" || strings.HasPrefix(v, "impersonate:") || strings.HasPrefix(v, "impersonate-on:") {
		return PurposeImpersonation
	}
	info, ok := request.RequestInfoFrom(ctx)
	if !ok || info == nil {
		return PurposeHandler
	}
	if attrs.GetPath() == info.Path && attrs.GetVerb() == info.Verb && attrs.IsResourceRequest() == info.IsResourceRequest &&
		attrs.GetResource() == info.Resource && attrs.GetSubresource() == info.Subresource &&
		attrs.GetNamespace() == info.Namespace && attrs.GetName() == info.Name && attrs.GetAPIGroup() == info.APIGroup {
		return PurposeAuthorization
	}
	return PurposeHandler
}

// AuthorizationGate decorates the authorizer chain (the union) so that gate is asked, at stage
// GateAuthorization, before the authorizers decide about a request's own attributes. A request
// the gate fails is denied with the gate's error as the reason, which the client sees in the
// 403's message.
func AuthorizationGate(gate Gate, a authorizer.Authorizer) authorizer.Authorizer {
	return &gatedAuthorizer{wait: gateFunc(gate), inner: a}
}

type gatedAuthorizer struct {
	wait  gateRef
	inner authorizer.Authorizer
}

// Authorize asks the gate first when WithAuthorization asks about the request itself.
func (a *gatedAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if err := a.gate(ctx, attrs); err != nil {
		return authorizer.DecisionDeny, err.Error(), nil
	}
	return a.inner.Authorize(ctx, attrs)
}

// ConditionsAwareAuthorize asks the gate first when asked about the request itself.
func (a *gatedAuthorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	if err := a.gate(ctx, attrs); err != nil {
		return authorizer.ConditionsAwareDecisionFromParts(authorizer.DecisionDeny, err.Error(), nil)
	}
	return a.inner.ConditionsAwareAuthorize(ctx, attrs)
}

// EvaluateConditions passes through.
func (a *gatedAuthorizer) EvaluateConditions(ctx context.Context, d authorizer.ConditionsAwareDecision, data authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return a.inner.EvaluateConditions(ctx, d, data)
}

func (a *gatedAuthorizer) gate(ctx context.Context, attrs authorizer.Attributes) error {
	if !a.wait.on() || Purpose(ctx, attrs) != PurposeAuthorization {
		return nil
	}
	p := Point{ID: audit.GetAuditIDTruncated(ctx), Stage: GateAuthorization,
		Verb: attrs.GetVerb(), APIGroup: attrs.GetAPIGroup(), APIVersion: attrs.GetAPIVersion(),
		Resource: attrs.GetResource(), Subresource: attrs.GetSubresource(),
		Namespace: attrs.GetNamespace(), Name: attrs.GetName(), Path: attrs.GetPath()}
	if u := attrs.GetUser(); u != nil {
		p.User, p.Groups = u.GetName(), u.GetGroups()
	}
	return a.wait.wait(ctx, p)
}
