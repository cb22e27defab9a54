package requests

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
)

// fakeStore is a Requests over a fixed list of traces.
type fakeStore struct {
	mu      sync.Mutex
	traces  []tracing.Trace
	dropped uint64
	ch      chan tracing.Event
	unsub   int
}

func newFakeStore(ts ...tracing.Trace) *fakeStore {
	s := &fakeStore{ch: make(chan tracing.Event, 1)}
	for i, t := range ts {
		t.Seq = uint64(i + 1)
		s.traces = append(s.traces, t)
	}
	return s
}

func (s *fakeStore) List(f tracing.Filter) []tracing.Trace {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []tracing.Trace
	q := strings.ToLower(f.Text)
	for _, t := range s.traces {
		if t.Loopback && !f.Loopback {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(t.User+" "+t.Verb+" "+t.Resource+" "+t.Name), q) {
			continue
		}
		out = append(out, t)
	}
	return out
}

func (s *fakeStore) Get(id string) (tracing.Trace, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.traces {
		if t.ID == id {
			return t, true
		}
	}
	return tracing.Trace{}, false
}

func (s *fakeStore) Subscribe() (<-chan tracing.Event, func()) {
	return s.ch, func() { s.mu.Lock(); s.unsub++; s.mu.Unlock() }
}

func (s *fakeStore) Dropped() uint64 { return s.dropped }

// fakeBreakpoints holds the requests it is told to and records what it was asked.
type fakeBreakpoints struct {
	mu    sync.Mutex
	specs []string
	held  []HeldRequest
	calls []string
	err   error
}

func (b *fakeBreakpoints) Add(spec string) error    { b.specs = append(b.specs, spec); return nil }
func (b *fakeBreakpoints) Remove(spec string) error { return nil }
func (b *fakeBreakpoints) List() []string           { return b.specs }
func (b *fakeBreakpoints) Held() []HeldRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]HeldRequest(nil), b.held...)
}
func (b *fakeBreakpoints) call(what, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, what+" "+id)
	return b.err
}
func (b *fakeBreakpoints) Step(id string) error     { return b.call("step", id) }
func (b *fakeBreakpoints) Continue(id string) error { return b.call("continue", id) }
func (b *fakeBreakpoints) Abort(id string) error    { return b.call("abort", id) }

// fakeCode resolves a stage's code to a small file of its own, naming what was asked.
type fakeCode struct{}

func (fakeCode) Local(anchor, focus string) (source.Location, error) {
	return fakeLocation("server/authn.go", "func (s *Server) Authn() {} // "+anchor), nil
}

func (fakeCode) Upstream(symbol string) (source.Location, error) {
	return fakeLocation("k8s.io/apiserver/filters.go", "func WithAuthorization() {} // "+symbol), nil
}

// fakeLocation is a file of forty lines whose fifth declares the function.
func fakeLocation(file, decl string) source.Location {
	var b strings.Builder
	b.WriteString("package x\n\n// The stage's function, and lines around it to scroll.\n\n")
	b.WriteString(decl + "\n")
	for i := range 35 {
		fmt.Fprintf(&b, "// line %d of the file, long enough to be wrapped or cut in a narrow pane: a b c d e f\n", i+6)
	}
	return source.Location{File: file, StartLine: 5, EndLine: 5, Source: []byte(b.String())}
}

// Traces for the tests.
var traceBase = time.Date(2025, 5, 1, 10, 30, 0, 0, time.UTC)

func stage(name string, o tracing.Outcome, detail string, d time.Duration) tracing.Stage {
	return tracing.Stage{Name: name, Outcome: o, Detail: detail, Duration: d, DurationMicros: d.Microseconds()}
}

// okCreate is alice creating configmap NAME: CreatedBy adds its annotation, etcd stores it.
func okCreate(id, name string, at int) tracing.Trace {
	authn := stage(tracing.StageAuthentication, tracing.OutcomeOK, "token: alice", 80*time.Microsecond)
	authn.Source = tracing.SourceRef{Anchor: "server/(*Server).Authn"}
	authz := stage(tracing.StageAuthorization, tracing.OutcomeAllowed, `rbac: allowed by RoleBinding "developers"`, 120*time.Microsecond)
	authz.Source = tracing.SourceRef{Upstream: "k8s.io/apiserver/pkg/endpoints/filters.WithAuthorization"}
	mut := stage(tracing.StageMutatingPrefix+"CreatedBy", tracing.OutcomeChanged, "added the created-by annotation", 40*time.Microsecond)
	sto := stage(tracing.StageStorage, tracing.OutcomeEtcd, "CREATE /registry/configmaps/default/"+name+" rev 57", 900*time.Microsecond)
	sto.Fields = []tracing.Field{{Label: "key", Value: "/registry/configmaps/default/" + name}}
	return tracing.Trace{
		ID: id, Received: traceBase.Add(time.Duration(at) * time.Second), Duration: 2100 * time.Microsecond,
		Verb: "create", Path: "/api/v1/namespaces/default/configmaps", APIVersion: "v1", Resource: "configmaps",
		Namespace: "default", Name: name, User: "alice", Groups: []string{"developers", "system:authenticated"},
		UserAgent: "kubectl/v1.37.2", Code: 201, Bytes: 412, Done: true,
		Stages: []tracing.Stage{
			authn,
			stage(tracing.StageImpersonation, tracing.OutcomeSkipped, "no --as", 0),
			authz, mut, sto,
			stage(tracing.StageResponse, tracing.OutcomeOK, "201 Created", 60*time.Microsecond),
		},
	}
}

// forbidden is bob listing configmaps: 403 at authorization.
func forbidden(id string, at int) tracing.Trace {
	t := okCreate(id, "", at)
	t.Verb, t.Name, t.User, t.Groups, t.Code = "list", "", "bob", []string{"system:authenticated"}, 403
	z := stage(tracing.StageAuthorization, tracing.OutcomeDenied, `rbac: bob cannot list resource "configmaps"`, 90*time.Microsecond)
	z.Stopped = true
	t.Stages = append(t.Stages[:2:2], z, stage(tracing.StageResponse, tracing.OutcomeOK, "403 Forbidden", 30*time.Microsecond))
	return t
}

// loopback is the server's own informer listing roles.
func loopback(id string, at int) tracing.Trace {
	t := okCreate(id, "", at)
	t.Verb, t.Name, t.User, t.Loopback, t.Resource = "list", "", "system:apiserver", true, "roles"
	t.Stages = t.Stages[:3]
	return t
}

// held is t held at authorization: its lane stops there.
func held(t tracing.Trace) tracing.Trace {
	t.Done, t.Code, t.Duration = false, 0, 0
	t.Stages = append([]tracing.Stage(nil), t.Stages[:3]...)
	t.Stages[2] = stage(tracing.StageAuthorization, tracing.OutcomeHeld, "held by a breakpoint", 0)
	t.Stages[2].Source = tracing.SourceRef{Upstream: "k8s.io/apiserver/pkg/endpoints/filters.WithAuthorization"}
	return t
}

// someTraces are five requests, the newest (c-3) first in the list.
func someTraces() []tracing.Trace {
	return []tracing.Trace{
		okCreate("c-1", "demo", 1), forbidden("f-1", 2), loopback("l-1", 3),
		okCreate("c-2", "other", 4), okCreate("c-3", "third", 5),
	}
}
