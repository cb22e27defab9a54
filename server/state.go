package server

import (
	"fmt"
	"strings"
)

// Node is one entry of the inspectable state tree: a label, an optional value and children.
type Node struct {
	Label    string  `json:"label"`
	Value    string  `json:"value,omitempty"`
	Children []*Node `json:"children,omitempty"`
}

// Add appends a child and returns it.
func (n *Node) Add(label, value string) *Node {
	c := &Node{Label: label, Value: value}
	n.Children = append(n.Children, c)
	return c
}

// Addf appends a child whose value is formatted.
func (n *Node) Addf(label, format string, args ...any) *Node {
	return n.Add(label, fmt.Sprintf(format, args...))
}

// Find returns the first node, depth first, whose label is label, or nil.
func (n *Node) Find(label string) *Node {
	if n == nil {
		return nil
	}
	if n.Label == label {
		return n
	}
	for _, c := range n.Children {
		if f := c.Find(label); f != nil {
			return f
		}
	}
	return nil
}

// String renders the tree as indented text, one node a line.
func (n *Node) String() string {
	var b strings.Builder
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(n.Label)
		if n.Value != "" {
			b.WriteString(": ")
			b.WriteString(n.Value)
		}
		b.WriteByte('\n')
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// LiveObject is a named pointer to a live object the server built, for a debugger-style view.
type LiveObject struct {
	Name  string
	Value any
}

// State describes what the phases have built so far, read from the live objects. It is safe
// from any goroutine: called while a phase runs, it waits until the phase pauses in the hook
// or returns.
func (s *Server) State() *Node {
	s.phaseMu.Lock()
	defer s.phaseMu.Unlock()
	root := &Node{Label: "kubewalk"}
	if s.c != nil {
		s.c.describe(root.Add(string(PhaseConfig), ""))
	}
	if s.an != nil {
		s.an.describe(root.Add(string(PhaseAuthn), ""))
	}
	if s.az != nil {
		s.az.describe(root.Add(string(PhaseAuthz), ""))
	}
	if s.ad != nil {
		s.ad.describe(root.Add(string(PhaseAdmission), ""))
	}
	if s.st != nil {
		s.st.describe(root.Add(string(PhaseStorage), ""), s.opts.EtcdPrefix, s.c.scheme.Scheme)
	}
	if s.in != nil {
		s.in.describe(root.Add(string(PhaseInstall), ""))
	}
	if s.sv != nil {
		s.describeServe(root.Add(string(PhaseServe), ""))
	}
	return root
}

// PhaseState returns the subtree of one phase, or nil if it has not started.
func (s *Server) PhaseState(p Phase) *Node {
	for _, c := range s.State().Children {
		if c.Label == string(p) {
			return c
		}
	}
	return nil
}

// LiveObjects returns the live Go objects each started phase built, for raw inspection.
//
// Once the serve phase has started the server, informers, watch caches and handlers change
// their maps on other goroutines; reading those maps by reflection without their locks can
// stop the process ("concurrent map read and map write"). From then on only objects that no
// longer change are returned, plus a note naming what was left out.
func (s *Server) LiveObjects() []LiveObject {
	s.phaseMu.Lock()
	defer s.phaseMu.Unlock()
	if s.isClosed() {
		return nil
	}
	if s.sv != nil && s.sv.cancel != nil {
		out := []LiveObject{{"config.scheme", s.c.scheme.Scheme}, {"authn.authenticator", s.an.final}}
		return append(out, LiveObject{"note", "the server is running: informer caches, watch caches, " +
			"the authorizer, admission chain, stores and handlers are hidden from the raw view, " +
			"because reading their maps without their locks could crash it; the state tree still describes them"})
	}
	var out []LiveObject
	if s.c != nil {
		out = append(out, s.c.liveObjects()...)
	}
	if s.an != nil {
		out = append(out, s.an.liveObjects()...)
	}
	if s.az != nil {
		out = append(out, s.az.liveObjects()...)
	}
	if s.ad != nil {
		out = append(out, s.ad.liveObjects()...)
	}
	if s.st != nil {
		out = append(out, s.st.liveObjects()...)
	}
	if s.in != nil {
		out = append(out, s.in.liveObjects()...)
	}
	if s.sv != nil {
		out = append(out, s.sv.liveObjects()...)
	}
	return out
}

func listeningState(listening bool) string {
	if listening {
		return "yes"
	}
	return "no (the serve phase opens the listener)"
}

// maskToken shows enough of a secret to recognise it, not to use it.
func maskToken(t string) string {
	if len(t) <= 8 {
		return "****"
	}
	return t[:6] + "…" + fmt.Sprintf(" (%d hex chars)", len(t))
}
