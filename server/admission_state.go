package server

// This file holds what the admission phase builds (admissionState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"fmt"
	"strings"

	"k8s.io/apiserver/pkg/admission"
)

// admissionPlugin is one plugin in chain order.
type admissionPlugin struct {
	Name   string
	Plugin admission.Interface
}

// admissionState is what the admission phase builds.
type admissionState struct {
	plugins []admissionPlugin
	chain   admission.Interface
	stopCh  chan struct{}
}

// liveObjects lists the admission phase's objects the raw view may read now: the chain, until
// the server runs. NamespaceLifecycle reads a namespace informer and keeps a cache of live
// lookups, which requests write from serve/serving on.
func (a *admissionState) liveObjects(r running) []LiveObject {
	if r.serving || a.chain == nil {
		return nil
	}
	return []LiveObject{{"admission.chain", a.chain, "no request has reached it: the server is not serving yet"}}
}

func (a *admissionState) describe(n *Node) {
	chain := n.Add("chain", "mutating plugins in order, then validating plugins in order")
	for i, p := range a.plugins {
		chain.Addf(fmt.Sprintf("%d. %s", i+1, p.Name), "%s", pluginKind(p.Plugin))
	}
}

// pluginKind says whether an admission plugin mutates, validates or both.
func pluginKind(p admission.Interface) string {
	_, m := p.(admission.MutationInterface)
	_, v := p.(admission.ValidationInterface)
	var ops []string
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect} {
		if p.Handles(op) {
			ops = append(ops, strings.ToLower(string(op)))
		}
	}
	kind := "validating"
	switch {
	case m && v:
		kind = "mutating + validating"
	case m:
		kind = "mutating"
	}
	return fmt.Sprintf("%s, on %s", kind, strings.Join(ops, "/"))
}
