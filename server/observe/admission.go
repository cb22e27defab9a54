package observe

import (
	"context"
	"reflect"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// AdmissionPlugin decorates one initialized admission plugin so that rec learns what it did:
// for a mutating pass, the object before and after (Admission.Patch turns them into a JSON
// patch, Secret data redacted); for either pass, a refusal. The result implements exactly the interfaces the
// plugin does (MutationInterface, ValidationInterface or both), which is what the admission
// chain looks at.
func AdmissionPlugin(rec Recorder, name string, p admission.Interface) admission.Interface {
	base := observedPlugin{record: recorderFunc(rec), name: name, inner: p,
		admitSource: MethodAnchor(p, "Admit"), validateSource: MethodAnchor(p, "Validate")}
	m, mutating := p.(admission.MutationInterface)
	v, validating := p.(admission.ValidationInterface)
	switch {
	case mutating && validating:
		return &mutatingValidatingPlugin{mutatingPlugin{base, m}, v}
	case mutating:
		return &mutatingPlugin{base, m}
	case validating:
		return &validatingPlugin{base, v}
	}
	return p
}

type observedPlugin struct {
	record         recordFunc
	name           string
	inner          admission.Interface
	admitSource    string
	validateSource string
}

// Handles asks the plugin.
func (p observedPlugin) Handles(op admission.Operation) bool { return p.inner.Handles(op) }

func (p observedPlugin) recordPass(ctx context.Context, a admission.Attributes, mutating bool, start time.Time, d time.Duration, before, after runtime.Object, err error) {
	id := audit.GetAuditIDTruncated(ctx)
	if id == "" {
		return
	}
	source := p.validateSource
	if mutating {
		source = p.admitSource
	}
	r := &Admission{ID: id, Plugin: p.name, Source: source, Mutating: mutating, Operation: string(a.GetOperation()),
		Resource: a.GetResource().Resource, Start: start, Duration: d, Before: before, After: after}
	if err != nil {
		r.Err = err.Error()
	}
	p.record(r)
}

type mutatingPlugin struct {
	observedPlugin
	m admission.MutationInterface
}

// Admit runs the plugin's mutating pass and records copies of the object before and after,
// from which the lane computes the patch later, off the request's path.
func (p *mutatingPlugin) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	before := copyObject(a.GetObject())
	start := time.Now()
	err := p.m.Admit(ctx, a, o)
	d := time.Since(start)
	var after runtime.Object
	if before != nil {
		after = copyObject(a.GetObject())
	}
	p.recordPass(ctx, a, true, start, d, before, after, err)
	return err
}

// copyObject returns a deep copy of obj, with a Secret's values redacted; nil for nil.
func copyObject(obj runtime.Object) runtime.Object {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil
	}
	c := obj.DeepCopyObject()
	if s, ok := c.(*corev1.Secret); ok {
		for k := range s.Data {
			s.Data[k] = []byte(Redacted)
		}
		for k := range s.StringData {
			s.StringData[k] = Redacted
		}
	}
	return c
}

type validatingPlugin struct {
	observedPlugin
	v admission.ValidationInterface
}

// Validate runs the plugin's validating pass and records its verdict.
func (p *validatingPlugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	start := time.Now()
	err := p.v.Validate(ctx, a, o)
	p.recordPass(ctx, a, false, start, time.Since(start), nil, nil, err)
	return err
}

type mutatingValidatingPlugin struct {
	mutatingPlugin
	v admission.ValidationInterface
}

// Validate runs the plugin's validating pass and records its verdict.
func (p *mutatingValidatingPlugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	start := time.Now()
	err := p.v.Validate(ctx, a, o)
	p.recordPass(ctx, a, false, start, time.Since(start), nil, nil, err)
	return err
}

// AdmissionGate decorates the admission chain so that gate is asked, at stage GateAdmission,
// before the first mutating plugin runs (or before the first validating one, for an operation
// no mutating plugin handles). A request the gate fails gets a 403 with the gate's error.
func AdmissionGate(gate Gate, chain admission.Interface) admission.Interface {
	g := gatedAdmission{wait: gateFunc(gate), inner: chain}
	if m, ok := chain.(admission.MutationInterface); ok {
		g.m = m
	}
	if v, ok := chain.(admission.ValidationInterface); ok {
		g.v = v
	}
	return &g
}

type gatedAdmission struct {
	wait  gateRef
	inner admission.Interface
	m     admission.MutationInterface
	v     admission.ValidationInterface
}

// Handles asks the chain.
func (g *gatedAdmission) Handles(op admission.Operation) bool { return g.inner.Handles(op) }

// Admit asks the gate, then runs the chain's mutating plugins.
func (g *gatedAdmission) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if err := g.gate(ctx, a); err != nil {
		return err
	}
	if g.m == nil {
		return nil
	}
	return g.m.Admit(ctx, a, o)
}

// Validate asks the gate (a Gate holds a request once per stage), then runs the chain's
// validating plugins.
func (g *gatedAdmission) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	if err := g.gate(ctx, a); err != nil {
		return err
	}
	if g.v == nil {
		return nil
	}
	return g.v.Validate(ctx, a, o)
}

func (g *gatedAdmission) gate(ctx context.Context, a admission.Attributes) error {
	if !g.wait.on() {
		return nil
	}
	p := Point{ID: audit.GetAuditIDTruncated(ctx), Stage: GateAdmission, Object: a.GetObject(),
		APIGroup: a.GetResource().Group, APIVersion: a.GetResource().Version, Resource: a.GetResource().Resource,
		Subresource: a.GetSubresource(), Namespace: a.GetNamespace(), Name: a.GetName()}
	if info, ok := request.RequestInfoFrom(ctx); ok && info != nil {
		p.Verb, p.Path = info.Verb, info.Path
	}
	if u := a.GetUserInfo(); u != nil {
		p.User, p.Groups = u.GetName(), u.GetGroups()
	}
	if err := g.wait.wait(ctx, p); err != nil {
		return admission.NewForbidden(a, err)
	}
	return nil
}

// compile-time checks.
var (
	_ admission.MutationInterface   = (*mutatingPlugin)(nil)
	_ admission.ValidationInterface = (*validatingPlugin)(nil)
	_ admission.MutationInterface   = (*mutatingValidatingPlugin)(nil)
	_ admission.ValidationInterface = (*mutatingValidatingPlugin)(nil)
	_ admission.MutationInterface   = (*gatedAdmission)(nil)
	_ admission.ValidationInterface = (*gatedAdmission)(nil)
)
