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
	// Quiet says why no goroutine writes Value while it is offered: a reflective read of an
	// object that another goroutine writes is a data race, and on a map it can abort the
	// process ("concurrent map read and map write").
	Quiet string
}

// running says which background work the server has started. Each phase's liveObjects
// offers only the objects that none of it writes.
type running struct {
	// etcd: embedded etcd's raft, backend and compaction goroutines, from storage/etcd on.
	etcd bool
	// stores: the REST stores' watch caches, etcd3 clients and count observers, from
	// storage/rest-stores on.
	stores bool
	// serving: RunWithContext — request handlers, the informers, the post-start hooks, the
	// OpenAPI and discovery services — from serve/serving on.
	serving bool
	// chain: the apiextensions server and, later, the aggregator exist, from
	// install/apiextensions on. Their controllers' work queues run goroutines from the moment
	// they are made (delayed adds, unfinished-work loops), and the generic config and every
	// server of the chain reach them or objects they share.
	chain bool
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

// LiveObjects returns the live Go objects the phases built that the raw view may read now,
// each with why it is quiet (LiveObject.Quiet). It is safe from any goroutine: while a phase
// runs it waits until the phase pauses in the hook or returns.
//
// While the hook pauses the server, the phase goroutine writes nothing; what else runs
// depends on how far the server has got (see running), and each phase's liveObjects, next
// to its state type, leaves out what that work writes: the embedded etcd server once it
// runs, the REST stores (their watch caches start with them), and from serve/serving on
// everything the informers, the handlers and the post-start hooks reach. An object offered
// at one checkpoint may therefore be missing at a later one; a walkthrough reviewing an
// earlier stop must offer only what LiveObjects offers now (runtime/engine does).
func (s *Server) LiveObjects() []LiveObject {
	s.phaseMu.Lock()
	defer s.phaseMu.Unlock()
	if s.isClosed() {
		return nil
	}
	r := running{
		etcd:    s.st != nil && s.st.embedded != nil,
		stores:  s.st != nil && len(s.st.stores) > 0,
		serving: s.sv != nil && s.sv.cancel != nil,
		chain:   s.in != nil && s.in.extensions != nil,
	}
	var out []LiveObject
	if s.c != nil {
		out = append(out, s.c.liveObjects(r)...)
	}
	if s.an != nil {
		out = append(out, s.an.liveObjects()...)
	}
	if s.az != nil {
		out = append(out, s.az.liveObjects(r)...)
	}
	if s.ad != nil {
		out = append(out, s.ad.liveObjects(r)...)
	}
	if s.st != nil {
		out = append(out, s.st.liveObjects(r)...)
	}
	if s.in != nil {
		out = append(out, s.in.liveObjects(r)...)
	}
	if s.sv != nil {
		out = append(out, s.sv.liveObjects(r)...)
	}
	return out
}

// Secrets returns the credentials of the run so far — the loopback bearer token, the users'
// bearer tokens, the PEM private keys of the CA, the serving certificate and the client
// certificates — so that a view of the live objects can redact them wherever they occur.
func (s *Server) Secrets() []string {
	s.phaseMu.Lock()
	defer s.phaseMu.Unlock()
	var out []string
	if s.c != nil {
		out = append(out, s.c.secrets()...)
	}
	if s.an != nil {
		out = append(out, s.an.secrets()...)
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
