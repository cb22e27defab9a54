package exercises

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// State is where an exercise stands.
type State int

// States, in the order an exercise goes through them.
const (
	Locked     State = iota // the walkthrough has not reached its phase
	NeedsServe              // reached, but it needs the serving server
	Open                    // can be done now
	Done                    // its check passed
)

// String names the state.
func (s State) String() string {
	switch s {
	case Locked:
		return "locked"
	case NeedsServe:
		return "needs serve"
	case Open:
		return "open"
	case Done:
		return "done"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is one exercise with where the learner stands.
type Status struct {
	Exercise lessons.Exercise
	State    State
	// Hints is how many hint levels have been shown.
	Hints int
	// Why says why it passed, once Done.
	Why string
	// LastTry says what was wrong with the last typed answer, until the next one.
	LastTry string
}

// Server is what the tracker reads of the server: *server.Server.
type Server interface {
	Live
	// Current returns the last checkpoint reached.
	Current() server.Checkpoint
	// NextPhase returns the phase that runs next, "" once serve has run.
	NextPhase() server.Phase
}

// Options configure a Tracker.
type Options struct {
	// Exercises are the exercises to follow, in the order List returns them.
	Exercises []lessons.Exercise
	// Server is the server the walkthrough runs.
	Server Server
	// Store is where the server records requests.
	Store *tracing.Store
	// Progress are the records of earlier runs: exercises done stay done, hints shown stay
	// shown.
	Progress map[string]lessons.ExerciseProgress
	// OnDone is called (outside any lock) when an exercise passes; OnHint when a hint level is
	// shown. Either may be nil.
	OnDone func(id, why string)
	OnHint func(id string, shown int)
	// Poll is how often Run looks whether the walkthrough reached a new phase (default 200ms).
	Poll time.Duration
	// CheckTimeout bounds one evaluation against the server (default 5s).
	CheckTimeout time.Duration
	// StateEvery is the shortest time between two evaluations of the state checks (object,
	// access, etcd-key), which cost requests of their own (default 250ms): requests arriving in
	// between are answered together.
	StateEvery time.Duration
	// StateSettle is how long after the last activity (a learner's request, an exercise
	// opening) the state checks keep being evaluated even when a pass found nothing: the
	// server's own caches (RBAC's informers, the watch cache) see a write a moment after its
	// response. Zero means 5 seconds.
	StateSettle time.Duration
	// Strings say what is wrong with an answer, in the learner's language (nil: English).
	Strings *i18n.Strings
}

// Tracker follows exercises against the live server. Run evaluates them off the request path
// whenever the trace store reports requests; List, RevealHint and Answer are for the views.
// It is safe for concurrent use.
type Tracker struct {
	opts    Options
	checker *Checker
	changed chan struct{}

	passMu sync.Mutex // one evaluation pass at a time
	// Trace bookkeeping, only touched under passMu: every trace with Seq <= low has been
	// looked at after it finished; processed holds the finished ones above low.
	low       uint64
	processed map[uint64]bool
	// statePending is set when the state checks should run again; lastState is when they last
	// did (both under passMu).
	statePending bool
	lastState    time.Time
	// lastActivity is when a learner's request (or an exercise opening) last made the state
	// checks due; they keep running for Options.StateSettle after it.
	lastActivity time.Time

	mu    sync.Mutex
	items []*item
	byID  map[string]*item
	spent time.Duration // time spent in evaluation passes
}

// item is one exercise's live state.
type item struct {
	ex      lessons.Exercise
	state   State
	openSeq uint64 // traces with a higher Seq arrived after the exercise opened
	hints   int
	why     string
	lastTry string
}

// NewTracker returns a tracker of opts.Exercises; nothing is evaluated before Refresh or Run.
func NewTracker(opts Options) *Tracker {
	if opts.Poll <= 0 {
		opts.Poll = 200 * time.Millisecond
	}
	if opts.StateSettle <= 0 {
		opts.StateSettle = 5 * time.Second
	}
	if opts.StateEvery <= 0 {
		opts.StateEvery = 250 * time.Millisecond
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = 5 * time.Second
	}
	t := &Tracker{opts: opts, changed: make(chan struct{}, 1), byID: map[string]*item{}, processed: map[uint64]bool{}}
	var live Live
	if opts.Server != nil {
		live = opts.Server
	}
	t.checker = NewChecker(live, opts.Strings)
	for _, e := range opts.Exercises {
		it := &item{ex: e, state: Locked}
		if p, ok := opts.Progress[e.ID]; ok {
			it.hints = min(p.Hints, len(e.Hints))
			if p.Done {
				it.state, it.why = Done, p.Why
			}
		}
		t.items = append(t.items, it)
		t.byID[e.ID] = it
	}
	return t
}

// Changed is signalled (coalesced) whenever an exercise's state changes.
func (t *Tracker) Changed() <-chan struct{} { return t.changed }

func (t *Tracker) signal() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// List returns every exercise with its state, in the order of Options.Exercises.
func (t *Tracker) List() []Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Status, len(t.items))
	for i, it := range t.items {
		out[i] = it.status()
	}
	return out
}

// Get returns one exercise's status.
func (t *Tracker) Get(id string) (Status, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	it, ok := t.byID[id]
	if !ok {
		return Status{}, false
	}
	return it.status(), true
}

func (it *item) status() Status {
	return Status{Exercise: it.ex, State: it.state, Hints: it.hints, Why: it.why, LastTry: it.lastTry}
}

// Spent returns the time spent in evaluation passes so far (for the benchmark).
func (t *Tracker) Spent() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.spent
}

// RevealHint shows the next hint level of exercise id and records it.
func (t *Tracker) RevealHint(id string) (Status, error) {
	t.mu.Lock()
	it, ok := t.byID[id]
	if !ok {
		t.mu.Unlock()
		return Status{}, fmt.Errorf("exercise %q: no such exercise", id)
	}
	if it.hints >= len(it.ex.Hints) {
		st := it.status()
		t.mu.Unlock()
		return st, nil
	}
	it.hints++
	st := it.status()
	t.mu.Unlock()
	if t.opts.OnHint != nil {
		t.opts.OnHint(id, st.Hints)
	}
	t.signal()
	return st, nil
}

// Answer checks a typed answer or a choice's number ("1".."n") for exercise id.
func (t *Tracker) Answer(ctx context.Context, id, answer string) (Status, error) {
	t.mu.Lock()
	it, ok := t.byID[id]
	if !ok {
		t.mu.Unlock()
		return Status{}, fmt.Errorf("exercise %q: no such exercise", id)
	}
	ex, state := it.ex, it.state
	t.mu.Unlock()
	switch {
	case !ex.Typed():
		return t.statusOf(id), fmt.Errorf("exercise %q: %w", id, ErrNotTyped)
	case state == Done:
		return t.statusOf(id), nil
	case state == Locked:
		return t.statusOf(id), fmt.Errorf("exercise %q: the walkthrough has not reached the %s phase yet", id, ex.Phase)
	case state == NeedsServe:
		return t.statusOf(id), fmt.Errorf("exercise %q: it needs the serving server; continue the walkthrough through serve", id)
	}
	if t.opts.Server == nil && ex.Check.Kind == lessons.CheckEtcdRevision {
		return t.statusOf(id), fmt.Errorf("exercise %q: no server to check against", id)
	}
	ctx, cancel := context.WithTimeout(ctx, t.opts.CheckTimeout)
	defer cancel()
	res, err := t.checker.Answer(ctx, ex, answer)
	if err != nil {
		return t.statusOf(id), fmt.Errorf("exercise %q: %w", id, err)
	}
	if res.Passed {
		t.pass(id, res.Detail)
	} else {
		t.mu.Lock()
		it.lastTry = res.Wrong
		t.mu.Unlock()
		t.signal()
	}
	return t.statusOf(id), nil
}

func (t *Tracker) statusOf(id string) Status {
	st, _ := t.Get(id)
	return st
}

// pass marks exercise id done with detail, once.
func (t *Tracker) pass(id, detail string) {
	t.mu.Lock()
	it := t.byID[id]
	if it == nil || it.state == Done {
		t.mu.Unlock()
		return
	}
	it.state, it.lastTry = Done, ""
	it.why = Why(it.ex, detail)
	why := it.why
	t.mu.Unlock()
	if t.opts.OnDone != nil {
		t.opts.OnDone(id, why)
	}
	t.signal()
}

// Why fills the exercise's explanation with the check's detail.
func Why(e lessons.Exercise, detail string) string {
	if e.Why == "" {
		return detail
	}
	return strings.ReplaceAll(e.Why, "{detail}", detail)
}

// Run evaluates the exercises after requests arrive and as the walkthrough advances, until
// ctx ends. It never blocks a request: the store notifies it without waiting.
func (t *Tracker) Run(ctx context.Context) {
	var events <-chan tracing.Event
	if t.opts.Store != nil {
		ch, cancel := t.opts.Store.Subscribe()
		defer cancel()
		events = ch
	}
	tick := time.NewTicker(t.opts.Poll)
	defer tick.Stop()
	t.Refresh(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-events:
		case <-tick.C:
		}
		t.Refresh(ctx)
	}
}

// Refresh runs one evaluation pass now: it opens the exercises whose phase the walkthrough
// has reached, matches the requests recorded since each opened against the trace checks, and,
// after a request from the learner (or when an exercise just opened), evaluates the checks
// on the server's state.
func (t *Tracker) Refresh(ctx context.Context) {
	t.passMu.Lock()
	defer t.passMu.Unlock()
	start := time.Now()
	changed := t.open()
	activity := t.matchTraces()
	t.mu.Lock()
	var state []*item
	for _, it := range t.items {
		if it.state == Open && isStateKind(it.ex.Check.Kind) {
			state = append(state, it)
		}
	}
	t.mu.Unlock()
	if activity || changed {
		t.lastActivity = start
	}
	t.statePending = t.statePending || activity || changed || time.Since(t.lastActivity) < t.opts.StateSettle
	if t.statePending && len(state) > 0 && time.Since(t.lastState) >= t.opts.StateEvery {
		t.statePending, t.lastState = false, time.Now()
		for _, it := range state {
			if ctx.Err() != nil {
				break
			}
			cctx, cancel := context.WithTimeout(ctx, t.opts.CheckTimeout)
			res, err := t.checker.State(cctx, it.ex.Check)
			cancel()
			if err == nil && res.Passed {
				t.pass(it.ex.ID, res.Detail)
			}
		}
	}
	t.mu.Lock()
	t.spent += time.Since(start)
	t.mu.Unlock()
}

func isStateKind(kind string) bool {
	return kind == lessons.CheckObject || kind == lessons.CheckAccess || kind == lessons.CheckEtcdKey
}

// open moves exercises out of Locked and NeedsServe as the walkthrough advances; it reports
// whether any opened.
func (t *Tracker) open() bool {
	if t.opts.Server == nil {
		return false
	}
	reached := slices.Index(server.Phases(), t.opts.Server.Current().Phase)
	serving := reached >= 0 && t.opts.Server.NextPhase() == ""
	var seen uint64
	if t.opts.Store != nil {
		seen = t.opts.Store.Seen()
	}
	opened, changed := false, false
	t.mu.Lock()
	for _, it := range t.items {
		if it.state == Done || it.state == Open {
			continue
		}
		want := Locked
		if p := slices.Index(server.Phases(), server.Phase(it.ex.Phase)); p >= 0 && p <= reached {
			want = Open
			if it.ex.NeedsServer() && !serving {
				want = NeedsServe
			}
		}
		if want != it.state {
			it.state, changed = want, true
			if want == Open {
				it.openSeq, opened = seen, true
			}
		}
	}
	t.mu.Unlock()
	if changed {
		t.signal()
	}
	return opened
}

// matchTraces matches the requests not looked at yet against the open trace checks. It
// reports whether any of them came from the learner (not the server's own loopback traffic,
// nor the checks' requests).
func (t *Tracker) matchTraces() bool {
	if t.opts.Store == nil {
		return false
	}
	t.mu.Lock()
	var open []*item
	for _, it := range t.items {
		if it.state == Open && it.ex.Check.Kind == lessons.CheckTrace {
			open = append(open, it)
		}
	}
	hasState := false
	for _, it := range t.items {
		if it.state == Open && isStateKind(it.ex.Check.Kind) {
			hasState = true
		}
	}
	t.mu.Unlock()
	if len(open) == 0 && !hasState {
		// Nothing reads requests: only move the bookkeeping on.
		t.low = max(t.low, t.opts.Store.Seen())
		clear(t.processed)
		return false
	}
	activity := false
	traces := t.opts.Store.List(tracing.Filter{Loopback: true})
	for i := range traces {
		tr := &traces[i]
		if tr.Seq <= t.low {
			break
		}
		if t.processed[tr.Seq] {
			continue
		}
		if tr.Done {
			t.processed[tr.Seq] = true
		}
		if tr.UserAgent == UserAgent {
			continue
		}
		if !tr.Loopback {
			activity = true
		}
		for _, it := range open {
			if tr.Seq <= it.openSeq {
				continue
			}
			if detail, ok := MatchTrace(it.ex.Check, tr); ok {
				t.pass(it.ex.ID, detail)
			}
		}
	}
	// Traces the ring dropped never come back: start after the oldest one still held.
	if n := len(traces); n > 0 && traces[n-1].Seq > 0 && traces[n-1].Seq-1 > t.low {
		for _, s := range slices.Collect(maps.Keys(t.processed)) {
			if s < traces[n-1].Seq {
				delete(t.processed, s)
			}
		}
		t.low = traces[n-1].Seq - 1
	}
	for t.processed[t.low+1] {
		delete(t.processed, t.low+1)
		t.low++
	}
	return activity
}
