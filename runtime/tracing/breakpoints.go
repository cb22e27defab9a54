package tracing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubewalk/kubewalk/server/observe"
)

// HoldLimit is how long a request stays held at a breakpoint before it is let go on its own,
// so that no client hangs forever. kubectl sets no timeout of its own by default; the server's
// --request-timeout would answer 504 first unless it is longer (the tour sets 11m).
const HoldLimit = 10 * time.Minute

// How a hold ended, as a lane shows it.
const (
	holdStep     = "stepped on"
	holdContinue = "continued to the end"
	holdAbort    = "failed"
	holdTimeout  = "let go after the hold limit"
	holdReleased = "released (kubewalk stopping or every hold released)"
	holdGone     = "the client went away"
)

// spec keys and the verbs a breakpoint may name.
var (
	specStages = observe.GateStages()
	specVerbs  = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection", "proxy", "connect"}
)

// specUsage is the grammar of a breakpoint, for error messages and help.
const specUsage = "STAGE[:user=NAME][,verb=V][,resource=R] with STAGE one of authentication, authorization, admission, storage"

// Spec says which requests a breakpoint holds, and where.
type Spec struct {
	// Stage is an observe.Gate* stage.
	Stage string
	// User, Verb and Resource narrow the requests held; empty matches any. Resource matches
	// "pods" or, with a subresource, "pods/status".
	User, Verb, Resource string
}

// ParseSpec parses STAGE[:user=NAME][,verb=V][,resource=R], as --break and :break take it.
func ParseSpec(s string) (Spec, error) {
	in := strings.TrimSpace(s)
	if in == "" {
		return Spec{}, fmt.Errorf("breakpoint %q: empty; want %s", s, specUsage)
	}
	stage, rest, hasRest := strings.Cut(in, ":")
	stage = strings.ToLower(strings.TrimSpace(stage))
	if stage == "admission/mutating" {
		stage = observe.GateAdmission
	}
	if !slices.Contains(specStages, stage) {
		return Spec{}, fmt.Errorf("breakpoint %q: unknown stage %q; want one of %s", s, stage, strings.Join(specStages, ", "))
	}
	sp := Spec{Stage: stage}
	if !hasRest {
		return sp, nil
	}
	if strings.TrimSpace(rest) == "" {
		return Spec{}, fmt.Errorf("breakpoint %q: nothing after %q; want %s", s, stage+":", specUsage)
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if !ok || v == "" {
			return Spec{}, fmt.Errorf("breakpoint %q: %q needs a value (user=NAME, verb=V or resource=R)", s, strings.TrimSpace(kv))
		}
		if seen[k] {
			return Spec{}, fmt.Errorf("breakpoint %q: %s given twice", s, k)
		}
		seen[k] = true
		switch k {
		case "user":
			sp.User = v
		case "verb":
			v = strings.ToLower(v)
			if !slices.Contains(specVerbs, v) {
				return Spec{}, fmt.Errorf("breakpoint %q: unknown verb %q; want one of %s", s, v, strings.Join(specVerbs, ", "))
			}
			sp.Verb = v
		case "resource":
			sp.Resource = strings.ToLower(v)
		default:
			return Spec{}, fmt.Errorf("breakpoint %q: unknown key %q; want user, verb or resource", s, k)
		}
	}
	return sp, nil
}

// String renders the spec as ParseSpec reads it.
func (sp Spec) String() string {
	var kv []string
	if sp.User != "" {
		kv = append(kv, "user="+sp.User)
	}
	if sp.Verb != "" {
		kv = append(kv, "verb="+sp.Verb)
	}
	if sp.Resource != "" {
		kv = append(kv, "resource="+sp.Resource)
	}
	if len(kv) == 0 {
		return sp.Stage
	}
	return sp.Stage + ":" + strings.Join(kv, ",")
}

// Matches reports whether the spec holds the request at p. Only resource requests are held:
// a client's discovery (/api, /apis), /version and the health checks go on, so that
// `kubectl get cm` under authorization:user=bob stops once, at the list. The server's loopback
// traffic (user system:apiserver) only matches a spec that names that user.
func (sp Spec) Matches(p observe.Point) bool {
	if p.Stage != sp.Stage || p.Resource == "" {
		return false
	}
	if p.User == LoopbackUser && sp.User != LoopbackUser {
		return false
	}
	if sp.User != "" && p.User != sp.User {
		return false
	}
	if sp.Verb != "" && p.Verb != sp.Verb {
		return false
	}
	if sp.Resource != "" && sp.Resource != p.Resource && sp.Resource != p.Resource+"/"+p.Subresource {
		return false
	}
	return true
}

// Breakpoint is one breakpoint set.
type Breakpoint struct {
	// ID numbers breakpoints from 1 in the order they were added; Remove takes it.
	ID   int
	Spec Spec
	// Hits counts the requests it has held.
	Hits int
}

// Held is a request held at a breakpoint right now.
type Held struct {
	// ID is the request's audit ID (its trace's ID).
	ID string
	// Stage is the observe.Gate* stage it is held at.
	Stage string
	Since time.Time
	// Breakpoint is the spec that held it, "" when it was stepped here.
	Breakpoint string
	// The request's attributes at this stage.
	User                                                               string
	Groups                                                             []string
	Verb, APIGroup, APIVersion, Resource, Subresource, Namespace, Name string
	Path                                                               string
	// Object is the decoded object of a write held at admission or storage, as JSON with
	// Secret data redacted; "" otherwise.
	Object string
}

// Breakpoints holds requests at the breakpoint stages. It implements observe.Gate: the server
// asks it at authentication, authorization, admission and storage, and Wait blocks a matching
// request until Step, Continue, Abort, ReleaseAll or Close, the request's context ending, or
// HoldLimit. Other requests keep flowing: only the held request's goroutine waits.
//
// A request stepped on (Step) holds again at the next breakpoint stage it reaches, matching
// or not; one continued (Continue) runs to the end without holding again. Each request holds
// at most once per stage.
type Breakpoints struct {
	store *Store
	limit time.Duration

	// active counts breakpoints plus requests being stepped: with none, Wait returns at once.
	active atomic.Int64

	mu      sync.Mutex
	nextID  int
	bps     []Breakpoint
	held    map[string]*heldRequest
	reqs    map[string]*requestState
	closed  bool
	changed chan struct{}
}

var _ observe.Gate = (*Breakpoints)(nil)

type action int

const (
	actStep action = iota
	actContinue
	actAbort
	actRelease
)

type heldRequest struct {
	h   Held
	act chan action // buffered: the first action wins
}

// requestState is what Breakpoints remembers of a request it has held.
type requestState struct {
	stepping bool            // hold at the next stage
	running  bool            // never hold again
	heldAt   map[string]bool // stages it has been held at
	last     time.Time
}

// NewBreakpoints returns breakpoints that show their holds in store's lanes (store may be
// nil), with HoldLimit.
func NewBreakpoints(store *Store) *Breakpoints {
	return NewBreakpointsWithLimit(store, HoldLimit)
}

// NewBreakpointsWithLimit is NewBreakpoints with another hold limit.
func NewBreakpointsWithLimit(store *Store, limit time.Duration) *Breakpoints {
	return &Breakpoints{store: store, limit: limit, held: map[string]*heldRequest{},
		reqs: map[string]*requestState{}, changed: make(chan struct{}, 1)}
}

// Add parses spec and sets a breakpoint.
func (b *Breakpoints) Add(spec string) (Breakpoint, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return Breakpoint{}, err
	}
	b.mu.Lock()
	for _, bp := range b.bps {
		if bp.Spec == sp {
			b.mu.Unlock()
			return bp, nil
		}
	}
	b.nextID++
	bp := Breakpoint{ID: b.nextID, Spec: sp}
	b.bps = append(b.bps, bp)
	b.active.Add(1)
	b.mu.Unlock()
	b.notify()
	return bp, nil
}

// Remove deletes breakpoint id. Requests it holds stay held until stepped, continued or
// aborted.
func (b *Breakpoints) Remove(id int) error {
	b.mu.Lock()
	i := slices.IndexFunc(b.bps, func(bp Breakpoint) bool { return bp.ID == id })
	if i < 0 {
		b.mu.Unlock()
		return fmt.Errorf("no breakpoint %d", id)
	}
	b.bps = slices.Delete(b.bps, i, i+1)
	b.active.Add(-1)
	b.mu.Unlock()
	b.notify()
	return nil
}

// Clear deletes every breakpoint.
func (b *Breakpoints) Clear() {
	b.mu.Lock()
	b.active.Add(-int64(len(b.bps)))
	b.bps = nil
	b.mu.Unlock()
	b.notify()
}

// List returns the breakpoints in the order they were added.
func (b *Breakpoints) List() []Breakpoint {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.bps)
}

// Held returns the requests held now, the longest held first.
func (b *Breakpoints) Held() []Held {
	b.mu.Lock()
	out := make([]Held, 0, len(b.held))
	for _, hr := range b.held {
		out = append(out, hr.h)
	}
	b.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Since.Equal(out[j].Since) {
			return out[i].Since.Before(out[j].Since)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Changed receives whenever a breakpoint is added or removed or a request is held or let go.
// It is coalesced: one pending notification stands for any number of changes.
func (b *Breakpoints) Changed() <-chan struct{} { return b.changed }

func (b *Breakpoints) notify() {
	select {
	case b.changed <- struct{}{}:
	default:
	}
}

// Step lets held request id go on to its next breakpoint stage, where it holds again.
func (b *Breakpoints) Step(id string) error { return b.act(id, actStep) }

// Continue lets held request id run to the end without holding again.
func (b *Breakpoints) Continue(id string) error { return b.act(id, actContinue) }

// Abort fails held request id at its stage: the client sees "held at STAGE and failed by the
// learner in kubewalk" (a 403; at authentication a 401, whose body the library fixes as
// "Unauthorized").
func (b *Breakpoints) Abort(id string) error { return b.act(id, actAbort) }

func (b *Breakpoints) act(id string, a action) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	hr := b.held[id]
	if hr == nil {
		return fmt.Errorf("request %s: %w", id, ErrNotHeld)
	}
	st := b.reqs[id]
	switch a {
	case actStep:
		// Storage is the last breakpoint stage a request meets: stepping on from it runs to the end.
		if hr.h.Stage != observe.GateStorage && !st.stepping {
			st.stepping = true
			b.active.Add(1)
		}
	case actContinue, actAbort:
		st.running = true
	}
	select {
	case hr.act <- a:
	default: // an action is already on its way
	}
	return nil
}

// ReleaseAll lets every held request run to the end. Server.Close calls it.
func (b *Breakpoints) ReleaseAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, hr := range b.held {
		if st := b.reqs[id]; st != nil {
			st.running = true
		}
		select {
		case hr.act <- actRelease:
		default:
		}
	}
}

// Close releases every held request and stops holding: Wait returns at once from then on.
func (b *Breakpoints) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.ReleaseAll()
	b.notify()
}

// Active reports whether any request may be held now: a breakpoint is set or a request is
// being stepped. The server's decorators ask Wait only while it is.
func (b *Breakpoints) Active() bool { return b.active.Load() > 0 }

// Wait implements observe.Gate.
func (b *Breakpoints) Wait(ctx context.Context, p observe.Point) error {
	if b.active.Load() == 0 || p.ID == "" {
		return nil
	}
	hr, spec := b.hold(p)
	if hr == nil {
		return nil
	}
	if b.store != nil {
		b.store.holdStarted(p.ID, p.Stage, spec, hr.h.Since)
	}
	b.notify()

	timer := time.NewTimer(b.limit)
	defer timer.Stop()
	outcome, err := "", error(nil)
	select {
	case a := <-hr.act:
		switch a {
		case actStep:
			outcome = holdStep
		case actContinue:
			outcome = holdContinue
		case actAbort:
			outcome = holdAbort
			err = fmt.Errorf("held at %s and failed by the learner in kubewalk", p.Stage)
		case actRelease:
			outcome = holdReleased
		}
	case <-timer.C:
		outcome = holdTimeout
	case <-ctx.Done():
		outcome = holdGone
		err = context.Cause(ctx)
	}

	b.mu.Lock()
	if b.held[p.ID] == hr {
		delete(b.held, p.ID)
	}
	if outcome == holdTimeout || outcome == holdGone {
		if st := b.reqs[p.ID]; st != nil {
			st.running = true
		}
	}
	b.mu.Unlock()
	if b.store != nil {
		b.store.holdEnded(p.ID, p.Stage, outcome, time.Now())
	}
	b.notify()
	return err
}

// hold decides whether p holds and, if so, registers the hold; it returns nil to go on.
func (b *Breakpoints) hold(p observe.Point) (*heldRequest, string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, ""
	}
	st := b.reqs[p.ID]
	if st != nil && (st.running || st.heldAt[p.Stage]) {
		return nil, ""
	}
	spec := ""
	if st == nil || !st.stepping {
		i := slices.IndexFunc(b.bps, func(bp Breakpoint) bool { return bp.Spec.Matches(p) })
		if i < 0 {
			return nil, ""
		}
		b.bps[i].Hits++
		spec = b.bps[i].Spec.String()
	}
	if _, busy := b.held[p.ID]; busy {
		return nil, "" // held at another stage by a concurrent call: never hold twice at once
	}
	now := time.Now()
	if st == nil {
		b.forgetOldLocked(now)
		st = &requestState{heldAt: map[string]bool{}}
		b.reqs[p.ID] = st
	}
	if st.stepping {
		st.stepping = false
		b.active.Add(-1)
	}
	st.heldAt[p.Stage] = true
	st.last = now
	hr := &heldRequest{act: make(chan action, 1), h: Held{ID: p.ID, Stage: p.Stage, Since: now, Breakpoint: spec,
		User: p.User, Groups: slices.Clone(p.Groups), Verb: p.Verb, APIGroup: p.APIGroup, APIVersion: p.APIVersion,
		Resource: p.Resource, Subresource: p.Subresource, Namespace: p.Namespace, Name: p.Name, Path: p.Path}}
	if p.Object != nil {
		hr.h.Object = string(observe.ObjectJSON(p.Object))
	}
	b.held[p.ID] = hr
	return hr, spec
}

// forgetOldLocked drops what is remembered of requests last held longer ago than the hold
// limit and a minute: they have finished (or been let go) long since.
func (b *Breakpoints) forgetOldLocked(now time.Time) {
	for id, st := range b.reqs {
		if _, held := b.held[id]; held || now.Sub(st.last) < b.limit+time.Minute {
			continue
		}
		if st.stepping {
			b.active.Add(-1)
		}
		delete(b.reqs, id)
	}
}

// ErrNotHeld is returned by Step, Continue and Abort for a request that is not held.
var ErrNotHeld = errors.New("not held")
