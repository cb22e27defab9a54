package exercises

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

// AuthorizationNotifier is implemented by a server that says when what its authorizer reads
// has changed (*server.Server). Without it, access checks are asked again after each of the
// learner's writes instead.
type AuthorizationNotifier interface {
	OnAuthorizationChange(fn func()) (remove func(), err error)
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
	// Poll is how often Run looks whether the walkthrough reached a new phase, while an
	// exercise still waits for one (default 200ms). Once every exercise is open or done, Run
	// stops looking.
	Poll time.Duration
	// CheckTimeout bounds one evaluation against the server (default 5s).
	CheckTimeout time.Duration
	// Strings say what is wrong with an answer, and what made a check pass, in the learner's
	// language (nil: English).
	Strings *i18n.Strings
}

// Tracker follows exercises against the live server. Nothing it does polls the server: Run
// evaluates a check when something it depends on has changed —
//
//   - trace checks when the store reports one of the learner's requests (kubewalk's own, the
//     server's loopback and the checks' requests never wake it);
//   - object and etcd-key checks when etcd reports a change to their key (an etcd watch on the
//     key, which is no request to the API server); the object is then read once;
//   - access checks when the RBAC authorizer's informer caches report a change (the server's
//     OnAuthorizationChange), so a SubjectAccessReview sent then sees it;
//   - every check once when its exercise opens.
//
// An idle tour therefore sends no request at all. List, RevealHint and Answer are for the
// views. It is safe for concurrent use.
type Tracker struct {
	opts    Options
	checker *Checker
	changed chan struct{}
	wake    chan struct{} // a trigger marked a state check due

	passMu sync.Mutex // one evaluation pass at a time
	// Trace bookkeeping, only touched under passMu. cursor is the highest Seq read from the
	// store; pending holds the learner's requests read before they could be matched (in
	// flight), by audit ID; watches the learner's recent watches, for event checks.
	cursor  uint64
	pending map[string]bool
	watches []string
	// Triggers, under passMu: whether Run's triggers are on (runCtx), each state exercise's
	// started trigger (to stop it once done), and the one authorization subscription.
	runCtx     context.Context
	triggers   map[string]context.CancelFunc
	authzStop  func()
	authzTried bool

	mu     sync.Mutex
	items  []*item
	byID   map[string]*item
	due    map[string]bool // state checks to evaluate at the next pass
	spent  time.Duration   // time spent in evaluation passes
	passes uint64          // evaluation passes run
	parked bool            // Run waits with nothing due and no phase to poll for
	events <-chan tracing.Event
}

// item is one exercise's live state.
type item struct {
	ex      lessons.Exercise
	state   State
	openSeq uint64 // traces with a higher Seq arrived after the exercise opened
	hints   int
	why     string
	lastTry string
	// triggered is set (under passMu) once Run has started what tells it that the state
	// check may have changed; fallback (under mu) for a state check without such a trigger
	// (no etcd, no authorization notifier): it is evaluated after each of the learner's writes.
	triggered bool
	fallback  bool
}

// maxWatches bounds the learner's watches an event check remembers.
const maxWatches = 32

// NewTracker returns a tracker of opts.Exercises; nothing is evaluated before Refresh or Run.
func NewTracker(opts Options) *Tracker {
	if opts.Poll <= 0 {
		opts.Poll = 200 * time.Millisecond
	}
	if opts.CheckTimeout <= 0 {
		opts.CheckTimeout = 5 * time.Second
	}
	t := &Tracker{opts: opts, changed: make(chan struct{}, 1), wake: make(chan struct{}, 1),
		byID: map[string]*item{}, due: map[string]bool{}, pending: map[string]bool{}, triggers: map[string]context.CancelFunc{}}
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

// Passes returns how many evaluation passes have run.
func (t *Tracker) Passes() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.passes
}

// Parked reports whether Run is waiting for a change with nothing left to do: no check due,
// no phase to poll for. Parked, it sends no request and runs no timer until the server
// reports a change.
func (t *Tracker) Parked() bool {
	if t.opts.Store != nil && t.opts.Store.LearnerNotifyPending() {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.parked && len(t.due) == 0 && len(t.wake) == 0 && len(t.events) == 0
}

// RevealHint shows the next hint level of exercise id and records it. A done exercise shows
// every hint and counts none: it was solved, with or without them.
func (t *Tracker) RevealHint(id string) (Status, error) {
	t.mu.Lock()
	it, ok := t.byID[id]
	if !ok {
		t.mu.Unlock()
		return Status{}, fmt.Errorf("exercise %q: no such exercise", id)
	}
	if it.state == Done || it.hints >= len(it.ex.Hints) {
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
	delete(t.due, id)
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

// markDue asks for state exercise id to be evaluated at the next pass, and wakes Run. Triggers
// call it from their own goroutines.
func (t *Tracker) markDue(ids ...string) {
	t.mu.Lock()
	for _, id := range ids {
		if it := t.byID[id]; it != nil && it.state == Open {
			t.due[id] = true
		}
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Run evaluates the exercises as the walkthrough advances and as the server reports changes,
// until ctx ends. It never blocks a request: the store notifies it without waiting. While it
// runs, a check is evaluated only when what it reads has changed (see Tracker).
func (t *Tracker) Run(ctx context.Context) {
	var events <-chan tracing.Event
	if t.opts.Store != nil {
		ch, cancel := t.opts.Store.SubscribeLearner()
		defer cancel()
		events = ch
	}
	t.mu.Lock()
	t.events = events
	t.mu.Unlock()
	t.passMu.Lock()
	t.runCtx = ctx
	t.passMu.Unlock()
	defer t.stopTriggers()
	var tick *time.Ticker
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		t.run(ctx, false)
		// Look for the walkthrough's progress only while an exercise waits for it.
		var ticks <-chan time.Time
		if t.waiting() {
			if tick == nil {
				tick = time.NewTicker(t.opts.Poll)
			}
			ticks = tick.C
		} else if tick != nil {
			tick.Stop()
			tick = nil
		}
		t.setParked(ticks == nil)
		select {
		case <-ctx.Done():
			t.setParked(false)
			return
		case <-events:
		case <-t.wake:
		case <-ticks:
		}
		t.setParked(false)
	}
}

func (t *Tracker) setParked(p bool) {
	t.mu.Lock()
	t.parked = p
	t.mu.Unlock()
}

// stopTriggers ends every trigger Run started.
func (t *Tracker) stopTriggers() {
	t.passMu.Lock()
	defer t.passMu.Unlock()
	for id, stop := range t.triggers {
		stop()
		delete(t.triggers, id)
	}
	if t.authzStop != nil {
		t.authzStop()
		t.authzStop = nil
	}
	t.authzTried = false
	t.runCtx = nil
	for _, it := range t.items {
		it.triggered = false
	}
}

// waiting reports whether an exercise still waits for the walkthrough to reach its phase or
// serve.
func (t *Tracker) waiting() bool {
	if t.opts.Server == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, it := range t.items {
		if it.state == Locked || it.state == NeedsServe {
			return true
		}
	}
	return false
}

// Refresh runs one evaluation pass now and evaluates every open check, whatever changed: it
// opens the exercises whose phase the walkthrough has reached, matches the requests recorded
// since each opened against the trace checks, and evaluates each state check on the server's
// present state (object reads and SubjectAccessReviews: requests of their own).
func (t *Tracker) Refresh(ctx context.Context) {
	t.run(ctx, true)
}

// run is one evaluation pass: every open state check when all is set, else the due ones.
func (t *Tracker) run(ctx context.Context, all bool) {
	t.passMu.Lock()
	defer t.passMu.Unlock()
	start := time.Now()
	t.open()
	t.startTriggers()
	wrote := t.matchTraces()
	t.mu.Lock()
	var state []*item
	for _, it := range t.items {
		if it.state != Open || !isStateKind(it.ex.Check.Kind) {
			continue
		}
		if all || t.due[it.ex.ID] || (wrote && it.fallback) {
			state = append(state, it)
			delete(t.due, it.ex.ID)
		}
	}
	t.mu.Unlock()
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
	t.stopDoneTriggers()
	t.mu.Lock()
	t.spent += time.Since(start)
	t.passes++
	t.mu.Unlock()
}

func isStateKind(kind string) bool {
	return kind == lessons.CheckObject || kind == lessons.CheckAccess || kind == lessons.CheckEtcdKey
}

// open moves exercises out of Locked and NeedsServe as the walkthrough advances; the state
// checks of those that open are due. passMu is held.
func (t *Tracker) open() {
	if t.opts.Server == nil {
		return
	}
	reached := slices.Index(server.Phases(), t.opts.Server.Current().Phase)
	serving := reached >= 0 && t.opts.Server.NextPhase() == ""
	var seen uint64
	if t.opts.Store != nil {
		seen = t.opts.Store.Seen()
	}
	changed := false
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
				it.openSeq = seen
				if isStateKind(it.ex.Check.Kind) {
					t.due[it.ex.ID] = true
				}
			}
		}
	}
	t.mu.Unlock()
	if changed {
		t.signal()
	}
}

// startTriggers starts, while Run runs, what tells the tracker that the state checks of the
// open exercises may have changed: an etcd watch on an object's or a key's key, the
// authorizer's change notifications for access checks. A check whose trigger cannot start
// falls back to being evaluated after each of the learner's writes. passMu is held.
func (t *Tracker) startTriggers() {
	ctx := t.runCtx
	if ctx == nil {
		return
	}
	t.mu.Lock()
	var opened []*item
	for _, it := range t.items {
		if it.state == Open && !it.triggered && isStateKind(it.ex.Check.Kind) {
			opened = append(opened, it)
		}
	}
	t.mu.Unlock()
	var etcd *server.EtcdAccess
	var etcdErr error
	etcdOnce := func() (*server.EtcdAccess, error) {
		if etcd == nil && etcdErr == nil {
			etcd, etcdErr = t.opts.Server.Etcd()
		}
		return etcd, etcdErr
	}
	for _, it := range opened {
		it.triggered = true
		ok := false
		switch it.ex.Check.Kind {
		case lessons.CheckAccess:
			ok = t.watchAuthorization()
		case lessons.CheckObject, lessons.CheckEtcdKey:
			if acc, err := etcdOnce(); err == nil {
				ok = t.watchKey(ctx, acc, it)
			}
		}
		t.mu.Lock()
		it.fallback = !ok
		t.mu.Unlock()
	}
}

// watchAuthorization subscribes, once, to the authorizer's changes: each marks every open
// access check due. passMu is held.
func (t *Tracker) watchAuthorization() bool {
	if t.authzStop != nil {
		return true
	}
	if t.authzTried {
		return false
	}
	t.authzTried = true
	n, ok := t.opts.Server.(AuthorizationNotifier)
	if !ok {
		return false
	}
	stop, err := n.OnAuthorizationChange(func() {
		t.mu.Lock()
		var ids []string
		for _, it := range t.items {
			if it.state == Open && it.ex.Check.Kind == lessons.CheckAccess {
				ids = append(ids, it.ex.ID)
			}
		}
		t.mu.Unlock()
		if len(ids) > 0 {
			t.markDue(ids...)
		}
	})
	if err != nil {
		return false
	}
	t.authzStop = stop
	return true
}

// watchKey starts an etcd watch on the key state check it reads (the object's key, or the
// etcd-key check's key or prefix): each change marks it due. It reports false when the key
// cannot be told. passMu is held.
//
// No change may fall between the check's last evaluation and the watch: the watch starts at
// the revision after the one etcd is at now (read here, before the goroutine), and the check
// is marked due once, so a change made before that revision is seen by an evaluation that
// comes after it. A watch that breaks resumes after the last revision it saw; one whose
// revision was compacted meanwhile looks once and watches from then on.
func (t *Tracker) watchKey(ctx context.Context, acc *server.EtcdAccess, it *item) bool {
	key, prefix, ok := etcdKeyOf(acc, it.ex.Check)
	if !ok {
		return false
	}
	var opts []clientv3.OpOption
	if prefix {
		opts = append(opts, clientv3.WithPrefix())
	}
	now, err := acc.Get(ctx, key, append(slices.Clone(opts), clientv3.WithCountOnly())...)
	if err != nil {
		return false
	}
	rev := now.Header.Revision
	id := it.ex.ID
	wctx, cancel := context.WithCancel(ctx)
	t.triggers[id] = cancel
	t.markDue(id)
	go func() {
		for wctx.Err() == nil {
			for resp := range acc.Watch(clientv3.WithRequireLeader(wctx), key, append(slices.Clone(opts), clientv3.WithRev(rev+1))...) {
				if resp.CompactRevision > 0 {
					// What happened before it is gone: look once, and watch from now on.
					rev = resp.CompactRevision - 1
					t.markDue(id)
					break
				}
				if resp.Err() != nil {
					break
				}
				if resp.Header.Revision > rev {
					rev = resp.Header.Revision
				}
				if len(resp.Events) > 0 {
					t.markDue(id)
				}
			}
			if wctx.Err() != nil {
				return
			}
			select {
			case <-wctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
	return true
}

// etcdKeyOf returns the full etcd key a state check reads: an object's (from the store that
// keeps its resource) or an etcd-key check's.
func etcdKeyOf(acc *server.EtcdAccess, c lessons.ExerciseCheck) (key string, prefix, ok bool) {
	switch c.Kind {
	case lessons.CheckEtcdKey:
		return acc.KeyPrefix() + c.Key, c.Prefix, true
	case lessons.CheckObject:
		gv, err := schema.ParseGroupVersion(c.APIVersion)
		if err != nil {
			return "", false, false
		}
		for _, r := range acc.Resources() {
			if r.Resource != (schema.GroupResource{Group: gv.Group, Resource: c.Resource}) {
				continue
			}
			if r.Namespaced {
				return r.KeyPrefix + c.Namespace + "/" + c.Name, false, true
			}
			return r.KeyPrefix + c.Name, false, true
		}
		if gv.Group == "" {
			return "", false, false
		}
		// Not one of kubewalk's own stores: one of the chain's other two servers keeps it
		// (CustomResourceDefinitions, APIServices) or a CRD defines it. Their stores use the
		// storage factory's default resource prefix, <group>/<resource>, as the apiextensions
		// server does for each CRD's custom resources (/registry/<group>/<plural>/).
		key := acc.KeyPrefix() + gv.Group + "/" + c.Resource + "/"
		if c.Namespace != "" {
			key += c.Namespace + "/"
		}
		return key + c.Name, false, true
	}
	return "", false, false
}

// stopDoneTriggers ends the etcd watches of exercises that are done. passMu is held.
func (t *Tracker) stopDoneTriggers() {
	if len(t.triggers) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, stop := range t.triggers {
		if it := t.byID[id]; it == nil || it.state == Done {
			stop()
			delete(t.triggers, id)
		}
	}
}

// matchTraces reads the learner's requests not read yet (and those read in flight) and matches
// them against the open trace checks, each once it has its answer. It reports whether one of
// them was a write that finished (for the state checks without a trigger). passMu is held.
func (t *Tracker) matchTraces() (wrote bool) {
	if t.opts.Store == nil {
		return false
	}
	t.mu.Lock()
	var open []*item
	fallback := false
	for _, it := range t.items {
		if it.state != Open {
			continue
		}
		if it.ex.Check.Kind == lessons.CheckTrace {
			open = append(open, it)
		}
		fallback = fallback || it.fallback
	}
	t.mu.Unlock()
	if len(open) == 0 && !fallback {
		// Nothing reads requests: only move the cursor on.
		t.cursor = max(t.cursor, t.opts.Store.Seen())
		clear(t.pending)
		t.watches = nil
		return false
	}
	var ready []tracing.Trace
	for id := range t.pending {
		tr, ok := t.opts.Store.Get(id)
		switch {
		case !ok:
			delete(t.pending, id) // the ring dropped it
		case answered(tr):
			delete(t.pending, id)
			ready = append(ready, tr)
		}
	}
	for _, tr := range t.opts.Store.Since(t.cursor, tracing.Filter{}) {
		t.cursor = max(t.cursor, tr.Seq)
		if tr.Hidden {
			continue
		}
		if tr.Verb == "watch" {
			t.watches = append(t.watches, tr.ID)
			if n := len(t.watches); n > maxWatches {
				t.watches = t.watches[n-maxWatches:]
			}
		}
		if answered(tr) {
			ready = append(ready, tr)
		} else {
			t.pending[tr.ID] = true
		}
	}
	slices.SortFunc(ready, func(a, b tracing.Trace) int { return cmp.Compare(a.Seq, b.Seq) })
	for i := range ready {
		tr := &ready[i]
		write := tr.Done && isWrite(tr.Verb) && tr.Code >= 200 && tr.Code < 300
		wrote = wrote || write
		for _, it := range open {
			if tr.Seq <= it.openSeq {
				continue
			}
			if it.ex.Check.Event {
				if write {
					if detail, ok := t.watchReached(it, tr); ok {
						t.pass(it.ex.ID, detail)
					}
				}
				continue
			}
			if detail, ok := matchTrace(it.ex.Check, tr, t.checker.tr); ok {
				t.pass(it.ex.ID, detail)
			}
		}
	}
	return wrote
}

// answered reports whether a trace has its answer: it finished, or it is a long-running
// request (a watch) whose response started.
func answered(tr tracing.Trace) bool {
	return tr.Done || (tr.LongRunning && tr.Code != 0)
}

// watchReached looks for one of the learner's watches, opened since exercise it opened, that
// write's event reached. passMu is held.
func (t *Tracker) watchReached(it *item, write *tracing.Trace) (string, bool) {
	for _, id := range t.watches {
		w, ok := t.opts.Store.Get(id)
		if !ok || w.Seq <= it.openSeq {
			continue
		}
		if WatchEvent(it.ex.Check, &w, write) {
			return watchEventDetail(&w, write, t.checker.tr), true
		}
	}
	return "", false
}
