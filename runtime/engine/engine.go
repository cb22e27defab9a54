// Package engine steps a live server through its checkpoints for a walkthrough. It implements
// server.Hook: at every checkpoint the server goroutine hands the engine a Stop (the checkpoint,
// the state tree and the live objects at that moment) and blocks until the walkthrough says how
// far to run next. The TUI and plain mode both drive the server through it.
package engine

import (
	"context"
	"errors"
	"fmt"
	"k8s.io/klog/v2"
	"reflect"
	"sync"
	"time"

	"github.com/kubewalk/kubewalk/runtime/inspect"
	"github.com/kubewalk/kubewalk/server"
)

// Stop is what the walkthrough sees at one checkpoint.
type Stop struct {
	// Index counts checkpoints reached, from 0.
	Index int
	// Checkpoint is where the server is paused.
	Checkpoint server.Checkpoint
	// State is the state tree at this checkpoint (a snapshot: later phases do not change it).
	State *server.Node
	// Live are the live objects the raw view may read, as server.LiveObjects offers them. They
	// are the server's own objects, not copies: read them only while the server is paused
	// (at this stop or a later one) or serving. At each later checkpoint the engine drops
	// from every earlier stop the objects the server no longer offers, so reviewing an
	// earlier stop never reads an object that other goroutines write by then.
	Live []server.LiveObject
	// Timings are the phases finished before this checkpoint.
	Timings []server.PhaseTiming
	// At is when the checkpoint was reached.
	At time.Time

	secrets *secretSet // the run's credentials, shared by all stops of one engine
}

// InspectOptions returns the options to walk Live with: the default limits, and the run's
// credentials as known now (an object walked at an earlier stop may hold one created since),
// so that the walk redacts them.
func (s Stop) InspectOptions() inspect.Options {
	o := inspect.DefaultOptions()
	if s.secrets != nil {
		o.Secrets = s.secrets.get()
	}
	return o
}

// secretSet holds the run's credentials; the server goroutine adds to it at each checkpoint
// while the walkthrough reads it.
type secretSet struct {
	mu     sync.Mutex
	values []string
}

func (s *secretSet) set(values []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = values
}

func (s *secretSet) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values
}

// Target says how far the server runs before the next pause.
type Target struct {
	// kind selects the rule; see the constructors.
	kind   targetKind
	phase  server.Phase
	cpID   string
	reason string
}

type targetKind int

const (
	toNextCheckpoint targetKind = iota
	toNextPhase
	toPhase
	toCheckpoint
	toEnd
)

// NextCheckpoint runs to the next checkpoint.
func NextCheckpoint() Target { return Target{kind: toNextCheckpoint} }

// NextPhase runs to the first checkpoint of the next phase.
func NextPhase() Target { return Target{kind: toNextPhase} }

// ToPhase runs forward to the first checkpoint of phase p (no-op if p is behind).
func ToPhase(p server.Phase) Target { return Target{kind: toPhase, phase: p} }

// ToCheckpoint runs forward to the checkpoint with this ID ("phase/name").
func ToCheckpoint(id string) Target { return Target{kind: toCheckpoint, cpID: id} }

// ToEnd runs through serve without pausing.
func ToEnd() Target { return Target{kind: toEnd} }

// Event is sent to the walkthrough: exactly one of its fields is set.
type Event struct {
	// Paused: the server waits at a checkpoint.
	Paused *Stop
	// Served: every phase has run; the server is serving.
	Served bool
	// Failed: a phase returned an error (not a cancellation, not server.ErrClosed).
	Failed error
}

// Engine runs one server through its phases under a walkthrough's control.
type Engine struct {
	srv *server.Server

	events chan Event
	resume chan Target

	secrets *secretSet

	mu      sync.Mutex
	stops   []Stop
	target  Target
	started bool
	runDone chan struct{}
	runErr  error
}

// New creates the server with opts (its Hook is replaced by the engine) without running it.
func New(opts server.Options) (*Engine, error) {
	return NewContext(context.Background(), opts)
}

// NewContext is New; ctx bounds server.NewContext's wait for a --kubeconfig a stopping run holds.
func NewContext(ctx context.Context, opts server.Options) (*Engine, error) {
	e := &Engine{
		secrets: &secretSet{},
		events:  make(chan Event, 1),
		resume:  make(chan Target),
		runDone: make(chan struct{}),
	}
	opts.Hook = server.HookFunc(e.checkpoint)
	srv, err := server.NewContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	e.srv = srv
	return e, nil
}

// Server returns the server being walked.
func (e *Engine) Server() *server.Server { return e.srv }

// Events delivers pauses, the end of startup, and failures. Read it until Served or Failed.
func (e *Engine) Events() <-chan Event { return e.events }

// Start runs the phases in a goroutine, first stopping where t says (NextCheckpoint stops at
// the very first checkpoint).
func (e *Engine) Start(ctx context.Context, t Target) error {
	e.mu.Lock()
	if e.started {
		e.mu.Unlock()
		return errors.New("engine: already started")
	}
	e.started = true
	e.target = t
	e.mu.Unlock()
	go func() {
		defer close(e.runDone)
		err := e.srv.Start(ctx)
		e.mu.Lock()
		e.runErr = err
		e.mu.Unlock()
		switch {
		case err == nil:
			e.send(ctx, Event{Served: true})
		case canceled(ctx, err):
			// Ctrl-C or Close: not a failure; the walkthrough is ending anyway.
			klog.InfoS("startup ended by a cancellation", "err", err, "ctxErr", ctx.Err())
		default:
			// Also in the log: a student's screen says FAILED, the log the class keeps says why.
			klog.ErrorS(err, "startup failed")
			e.send(ctx, Event{Failed: err})
		}
	}()
	return nil
}

// canceled reports whether err ended the startup because the walkthrough asked it to: ctx
// ended, or the server was closed (server.ErrClosed, from Close at any point).
func canceled(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, server.ErrClosed)
}

// send delivers ev unless ctx ends first.
func (e *Engine) send(ctx context.Context, ev Event) {
	select {
	case e.events <- ev:
	case <-ctx.Done():
	}
}

// Continue resumes a paused server until t is reached. It returns an error if the server is
// not paused.
func (e *Engine) Continue(t Target) error {
	select {
	case e.resume <- t:
		return nil
	case <-e.runDone:
		return errors.New("engine: startup has finished")
	case <-time.After(5 * time.Second):
		return errors.New("engine: server is not paused")
	}
}

// Stops returns every pause so far, oldest first, for reviewing earlier steps.
func (e *Engine) Stops() []Stop {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Stop(nil), e.stops...)
}

// Close cancels the startup wherever it is and shuts the server, etcd and temp files down.
func (e *Engine) Close() error {
	err := e.srv.Close()
	e.mu.Lock()
	started := e.started
	e.mu.Unlock()
	if started {
		<-e.runDone
	}
	return err
}

// checkpoint is the server.Hook: it records the stop, decides whether the target is reached,
// and if so reports the pause and blocks for the next target.
func (e *Engine) checkpoint(ctx context.Context, cp server.Checkpoint, s *server.Server) error {
	e.secrets.set(s.Secrets())
	stop := Stop{
		Checkpoint: cp,
		State:      s.State(),
		Live:       s.LiveObjects(),
		Timings:    s.Timings(),
		At:         time.Now(),
		secrets:    e.secrets,
	}
	e.mu.Lock()
	for i := range e.stops {
		e.stops[i].Live = stillOffered(e.stops[i].Live, stop.Live)
	}
	stop.Index = len(e.stops)
	e.stops = append(e.stops, stop)
	t := e.target
	prev := server.Checkpoint{}
	if len(e.stops) > 1 {
		prev = e.stops[len(e.stops)-2].Checkpoint
	}
	e.mu.Unlock()

	if !reached(t, cp, prev, stop.Index == 0) {
		return nil
	}
	select {
	case e.events <- Event{Paused: &stop}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case next := <-e.resume:
		e.mu.Lock()
		e.target = next
		e.mu.Unlock()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stillOffered returns the objects of an earlier stop that the server still offers now (same
// name, same object): the others are written by goroutines that have started since.
func stillOffered(earlier, now []server.LiveObject) []server.LiveObject {
	out := make([]server.LiveObject, 0, len(earlier))
	for _, lo := range earlier {
		for _, cur := range now {
			if cur.Name == lo.Name && sameObject(cur.Value, lo.Value) {
				out = append(out, lo)
				break
			}
		}
	}
	return out
}

// sameObject reports whether a and b are the same object: the same pointer (or map, slice,
// func, chan), or equal values of another kind.
func sameObject(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return va.Pointer() == vb.Pointer()
	}
	return va.Comparable() && va.Equal(vb)
}

// reached reports whether the server should pause at cp given the target set at the previous
// pause (prev) — or at the start, when first is true.
func reached(t Target, cp, prev server.Checkpoint, first bool) bool {
	switch t.kind {
	case toNextCheckpoint:
		return true
	case toNextPhase:
		return first || cp.Phase != prev.Phase
	case toPhase:
		return cp.Phase == t.phase || phaseIndex(cp.Phase) > phaseIndex(t.phase)
	case toCheckpoint:
		return cp.ID() == t.cpID || checkpointIndex(cp.ID()) > checkpointIndex(t.cpID)
	case toEnd:
		return false
	}
	panic(fmt.Sprintf("engine: unknown target kind %d", t.kind))
}

func phaseIndex(p server.Phase) int {
	for i, q := range server.Phases() {
		if q == p {
			return i
		}
	}
	return -1
}

func checkpointIndex(id string) int {
	for i, c := range server.Checkpoints() {
		if c.ID() == id {
			return i
		}
	}
	return -1
}
