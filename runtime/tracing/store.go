package tracing

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubewalk/kubewalk/server/observe"
)

// DefaultCapacity is how many traces a Store keeps by default.
const DefaultCapacity = 1000

// LoopbackUser is the user the server's own loopback client authenticates as.
const LoopbackUser = "system:apiserver"

// Store keeps the lanes of the last requests the server handled. It implements
// observe.Recorder: the server hands it every record, on the request's goroutine, and Record
// only appends under a short lock. Lanes are assembled from the records when a view asks
// (List, Get), outside the lock, and cached until the next record for that request arrives.
//
// The Store keeps two bounded rings: one for the learner's requests and one for the hidden
// traffic — kubewalk's own requests, whose User-Agent starts with "kubewalk-" (HiddenAgentPrefix:
// the server's loopback client, the exercise checks, the TUI's health polls). Once a ring holds
// its capacity, each new request of its kind pushes out that ring's oldest one (in arrival
// order, finished or not), and Dropped (the learner's) or HiddenDropped counts them: however
// much hidden traffic passes, it never pushes out a learner's lane. Records for a request the
// store no longer holds are ignored.
type Store struct {
	mu       sync.Mutex
	capacity int
	learner  ring
	hidden   ring
	byID     map[string]*entry
	seq      uint64
	subs     map[*subscriber]struct{}

	// Notifications are rate-limited: at most one per notifyInterval, the first at once,
	// the rest together at the end of the interval. Waking a subscriber's goroutine on each
	// request puts it in the request's way on a small machine.
	pendingID string // the one trace changed since the last notification, "" for several
	pending   bool
	// The same for the learner's traces only, for SubscribeLearner.
	pendingLearnerID string
	pendingLearner   bool
	scheduled        bool // a trailing notification is due
	lastNotify       time.Time
	notifyTimer      *time.Timer
}

// notifyInterval is the shortest time between two notifications to subscribers: a view at 60
// frames a second would not show more.
const notifyInterval = 10 * time.Millisecond

var _ observe.Recorder = (*Store)(nil)

// HiddenAgentPrefix starts the User-Agent of every request kubewalk makes itself: the server's
// loopback client ("kubewalk-loopback"), the exercise checks ("kubewalk-exercises"), the TUI's
// health polls and probes. The Store keeps them apart from the learner's (Trace.Hidden).
const HiddenAgentPrefix = "kubewalk-"

// NewStore returns a store keeping up to capacity of the learner's traces, and as many of the
// hidden traffic's (DefaultCapacity when capacity <= 0).
func NewStore(capacity int) *Store {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Store{
		capacity: capacity,
		learner:  ring{slots: make([]*entry, capacity)},
		hidden:   ring{slots: make([]*entry, capacity)},
		byID:     make(map[string]*entry, capacity),
		subs:     map[*subscriber]struct{}{},
	}
}

// ring is one bounded ring of traces, in arrival order.
type ring struct {
	slots   []*entry // circular; next is the slot the next request takes
	next    int
	dropped uint64
}

// held counts the traces the ring holds. s.mu is held.
func (r *ring) held(byID map[string]*entry) int {
	n := 0
	for _, e := range r.slots {
		if e != nil && byID[e.id] == e {
			n++
		}
	}
	return n
}

// newest returns the entries the ring holds, newest first, down to (not including) seq.
// s.mu is held.
func (r *ring) newest(byID map[string]*entry, after uint64) []*entry {
	n := len(r.slots)
	var out []*entry
	for i := 1; i <= n; i++ {
		e := r.slots[(r.next-i+n)%n]
		if e == nil || e.seq <= after {
			break
		}
		if byID[e.id] == e {
			out = append(out, e)
		}
	}
	return out
}

// entry is one request's records, in arrival order per kind.
type entry struct {
	seq    uint64
	id     string
	req    *observe.Request
	authn  []*observe.Authn
	authz  []*observe.Authz
	adm    []*observe.Admission
	val    []*observe.Validation
	stor   []*observe.Storage
	spans  []*observe.Span
	audits []*observe.Audit
	hops   []*observe.Hop
	holds  []hold
	// hidden is set for kubewalk's own requests (HiddenAgentPrefix): they live in the hidden
	// ring.
	hidden bool
	// final is set by the request's last audit event; server by the end of the HTTP server
	// span, which WithTracing ends after WithAudit's last event (it carries the response
	// size). A request refused by authentication never reaches WithTracing.
	final, server, refused bool
	done                   bool

	version      uint64 // counts the changes
	built        *Trace // the lane as last assembled, at builtVersion
	builtVersion uint64
}

// hold is one stop of a request at a breakpoint.
type hold struct {
	stage   string // an observe.Gate* stage
	since   time.Time
	until   time.Time // zero while held
	outcome string    // how it ended: "step", "continue", "abort", "timeout", "released", "client gone"
	spec    string    // the breakpoint that matched, "" when stepping
}

// Record implements observe.Recorder.
func (s *Store) Record(r observe.Record) {
	id := r.RequestID()
	if id == "" {
		return
	}
	s.mu.Lock()
	e := s.byID[id]
	if e == nil {
		req, ok := r.(*observe.Request)
		if !ok {
			// Only the *observe.Request that the decorated authenticator chain records as a
			// request arrives opens a trace (every request meets it); a record for an unknown
			// ID belongs to a request the store has dropped, and is ignored: so each request is
			// traced once or counted once as dropped.
			s.mu.Unlock()
			return
		}
		e = s.add(id, strings.HasPrefix(req.UserAgent, HiddenAgentPrefix))
	}
	// Views hear of a trace when it opens, when a long-running request's response starts,
	// when it finishes, and when it is held or let go (holdStarted, holdEnded): what a list or
	// a held lane shows. The records in between come microseconds apart, too fast to see.
	visible, wasDone := e.version == 0, e.done
	switch r := r.(type) {
	case *observe.Request:
		if e.req == nil {
			e.req = r
		}
	case *observe.Authn:
		e.authn = append(e.authn, r)
	case *observe.Authz:
		e.authz = append(e.authz, r)
	case *observe.Admission:
		e.adm = append(e.adm, r)
	case *observe.Validation:
		e.val = append(e.val, r)
	case *observe.Storage:
		e.stor = append(e.stor, r)
	case *observe.Hop:
		e.hops = append(e.hops, r)
	case *observe.Span:
		e.spans = append(e.spans, r)
		e.server = e.server || r.Server
	case *observe.Audit:
		e.audits = append(e.audits, r)
		if finished(r) {
			e.final = true
			e.refused = r.Stage == observe.AuditResponseStarted
		}
		visible = visible || r.Stage == observe.AuditResponseStarted
	}
	e.done = e.final && (e.server || e.refused)
	visible = visible || e.done != wasDone
	e.version++
	if visible {
		s.notifyLocked(e)
	}
	s.mu.Unlock()
}

// finished reports whether an audit event is the request's last: ResponseComplete or Panic,
// or, for a request refused by authentication, the ResponseStarted event
// WithFailedAuthenticationAudit sends (no other follows it).
func finished(a *observe.Audit) bool {
	switch a.Stage {
	case observe.AuditResponseComplete, observe.AuditPanic:
		return true
	case observe.AuditResponseStarted:
		return a.Code == 401 && a.User == ""
	}
	return false
}

// add opens a trace for id in the learner's ring or the hidden one, pushing out that ring's
// oldest when it is full. s.mu is held.
func (s *Store) add(id string, hidden bool) *entry {
	r := &s.learner
	if hidden {
		r = &s.hidden
	}
	if old := r.slots[r.next]; old != nil {
		if s.byID[old.id] == old {
			delete(s.byID, old.id)
		}
		r.dropped++
	}
	s.seq++
	e := &entry{seq: s.seq, id: id, hidden: hidden}
	r.slots[r.next] = e
	r.next = (r.next + 1) % len(r.slots)
	s.byID[id] = e
	return e
}

// Dropped returns how many of the learner's traces the store has pushed out (the hidden
// traffic's are HiddenDropped).
func (s *Store) Dropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.learner.dropped
}

// HiddenDropped returns how many traces of kubewalk's own requests the hidden ring has pushed
// out.
func (s *Store) HiddenDropped() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hidden.dropped
}

// Len returns how many of the learner's traces the store holds (HiddenLen the hidden
// traffic's).
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.learner.held(s.byID)
}

// HiddenLen returns how many traces of kubewalk's own requests the hidden ring holds.
func (s *Store) HiddenLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hidden.held(s.byID)
}

// Seen returns how many requests the store has opened a trace for since it was made: Len,
// HiddenLen, Dropped and HiddenDropped together. Trace.Seq numbers them.
func (s *Store) Seen() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Get returns the trace of the request with audit ID id.
func (s *Store) Get(id string) (Trace, bool) {
	s.mu.Lock()
	e := s.byID[id]
	if e == nil {
		s.mu.Unlock()
		return Trace{}, false
	}
	if t := e.cached(); t != nil {
		s.mu.Unlock()
		return *t, true
	}
	snap, v := e.snapshot(), e.version
	s.mu.Unlock()
	return *s.build(e, &snap, v), true
}

// List returns the traces f selects, newest first.
func (s *Store) List(f Filter) []Trace {
	return s.list(f, 0)
}

// Since returns the traces f selects that arrived after the one numbered seq (Trace.Seq), in
// arrival order: a reader that keeps the highest Seq it has seen reads each trace once, however
// many the store holds.
func (s *Store) Since(seq uint64, f Filter) []Trace {
	out := s.list(f, seq)
	slices.Reverse(out)
	return out
}

// list returns the traces f selects with a Seq above after, newest first.
func (s *Store) list(f Filter, after uint64) []Trace {
	text := strings.ToLower(strings.TrimSpace(f.Text))
	type item struct {
		e    *entry
		t    *Trace
		snap entry
		v    uint64
	}
	s.mu.Lock()
	entries := s.learner.newest(s.byID, after)
	if f.Loopback {
		// Both rings, merged newest first.
		hidden := s.hidden.newest(s.byID, after)
		merged := make([]*entry, 0, len(entries)+len(hidden))
		i, j := 0, 0
		for i < len(entries) || j < len(hidden) {
			if j == len(hidden) || (i < len(entries) && entries[i].seq > hidden[j].seq) {
				merged = append(merged, entries[i])
				i++
			} else {
				merged = append(merged, hidden[j])
				j++
			}
		}
		entries = merged
	}
	items := make([]item, 0, len(entries))
	for _, e := range entries {
		it := item{e: e, t: e.cached()}
		if it.t == nil {
			it.snap, it.v = e.snapshot(), e.version
		}
		items = append(items, it)
	}
	s.mu.Unlock()
	out := make([]Trace, 0, len(items))
	for _, it := range items {
		t := it.t
		if t == nil {
			t = s.build(it.e, &it.snap, it.v)
		}
		if t.Loopback && !f.Loopback {
			continue
		}
		if text != "" && !matches(t, text) {
			continue
		}
		out = append(out, *t)
	}
	return out
}

// build assembles the lane of a snapshot of e taken at version v, and caches it.
func (s *Store) build(e *entry, snap *entry, v uint64) *Trace {
	t := assemble(snap)
	t.Hidden = snap.hidden || t.Loopback
	s.keep(e, &t, v)
	return &t
}

// matches reports whether text (lower case) occurs in one of the trace's listed fields.
func matches(t *Trace, text string) bool {
	for _, v := range []string{t.User, t.Verb, t.Resource, t.Namespace, t.Name, t.Path, strconv.Itoa(t.Code)} {
		if strings.Contains(strings.ToLower(v), text) {
			return true
		}
	}
	return false
}

// cached returns the lane assembled at the entry's current version, or nil. s.mu is held.
func (e *entry) cached() *Trace {
	if e.built != nil && e.builtVersion == e.version {
		return e.built
	}
	return nil
}

// snapshot copies what assemble reads, so that it can run without s.mu: the record slices
// only grow (a copy of their headers sees a stable prefix) and the records never change; the
// holds change in place, so they are copied. s.mu is held.
func (e *entry) snapshot() entry {
	c := *e
	c.holds = slices.Clone(e.holds)
	c.built = nil
	return c
}

// keep caches a lane assembled from the entry at version v, unless a record came since. A
// Trace and its slices are never changed once made: a new record makes a new one.
func (s *Store) keep(e *entry, t *Trace, v uint64) {
	s.mu.Lock()
	if e.version == v && (e.built == nil || e.builtVersion != v) {
		e.built, e.builtVersion = t, v
	}
	s.mu.Unlock()
}

// WaitDone waits until the request with audit ID id has finished, or ctx ends, and returns its
// trace (false if the store does not hold it then).
func (s *Store) WaitDone(ctx context.Context, id string) (Trace, bool) {
	events, cancel := s.Subscribe()
	defer cancel()
	for {
		if t, ok := s.Get(id); ok && t.Done {
			return t, true
		}
		select {
		case <-events:
		case <-ctx.Done():
			return s.Get(id)
		}
	}
}

// Breakpoint side: the store shows a held request's stage as held, and keeps how each hold
// ended. Breakpoints calls these.

// holdStarted notes that request id is held at stage.
func (s *Store) holdStarted(id, stage, spec string, since time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byID[id]
	if e == nil {
		return
	}
	e.holds = append(e.holds, hold{stage: stage, since: since, spec: spec})
	e.version++
	s.notifyLocked(e)
}

// holdEnded notes how request id's hold at stage ended.
func (s *Store) holdEnded(id, stage, outcome string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byID[id]
	if e == nil {
		return
	}
	for i := len(e.holds) - 1; i >= 0; i-- {
		if e.holds[i].stage == stage && e.holds[i].until.IsZero() {
			e.holds[i].until, e.holds[i].outcome = at, outcome
			break
		}
	}
	e.version++
	s.notifyLocked(e)
}

// Subscriptions.

// subscriber is one Subscribe call. Its channel holds at most one event: a new change
// replaces a pending one, for another trace with Event{} ("several changed"), so a slow
// subscriber never blocks recording and never misses that something changed.
type subscriber struct {
	ch      chan Event
	learner bool // hears only of the learner's traces
}

// Subscribe returns a channel that receives an Event whenever a trace arrives, finishes, is
// held or let go, or (a watch) starts its response, and a cancel func that ends the
// subscription. (The records in between, a few microseconds apart, do not each send one: a
// view that re-read the lane on each would cost every request more than the recording does.)
// Events are coalesced and spaced: at most one every 10 ms (the first change after a quiet
// spell is sent at once), and Event.ID is "" when several traces changed since the subscriber
// last received. Views re-read the store (List, Get) on each event.
func (s *Store) Subscribe() (<-chan Event, func()) {
	return s.subscribe(false)
}

// SubscribeLearner is Subscribe for the learner's traces only: the hidden traffic (the
// server's loopback, kubewalk's own requests) sends it nothing, so a reader that only cares
// about the learner is not woken by kubewalk's own polls.
func (s *Store) SubscribeLearner() (<-chan Event, func()) {
	return s.subscribe(true)
}

func (s *Store) subscribe(learner bool) (<-chan Event, func()) {
	sub := &subscriber{ch: make(chan Event, 1), learner: learner}
	s.mu.Lock()
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	var once sync.Once
	return sub.ch, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.subs, sub)
			s.mu.Unlock()
		})
	}
}

// notifyLocked notes that e's trace changed and tells the subscribers: at once if the last
// notification is older than notifyInterval, else once the interval is over (with Event.ID ""
// if several traces changed meanwhile). s.mu is held.
func (s *Store) notifyLocked(e *entry) {
	if len(s.subs) == 0 {
		return
	}
	id := e.id
	switch {
	case !s.pending:
		s.pending, s.pendingID = true, id
	case s.pendingID != id:
		s.pendingID = ""
	}
	if !e.hidden {
		switch {
		case !s.pendingLearner:
			s.pendingLearner, s.pendingLearnerID = true, id
		case s.pendingLearnerID != id:
			s.pendingLearnerID = ""
		}
	}
	if s.scheduled {
		return
	}
	since := time.Since(s.lastNotify)
	if since >= notifyInterval {
		s.deliverLocked()
		return
	}
	s.scheduled = true
	if s.notifyTimer == nil {
		s.notifyTimer = time.AfterFunc(notifyInterval-since, s.trailingNotify)
	} else {
		s.notifyTimer.Reset(notifyInterval - since)
	}
}

// LearnerNotifyPending reports whether a change to one of the learner's traces waits to be
// told to the subscribers (notifications are spaced by 10 ms).
func (s *Store) LearnerNotifyPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pendingLearner
}

// trailingNotify delivers what changed since the last notification.
func (s *Store) trailingNotify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scheduled = false
	if s.pending {
		s.deliverLocked()
	}
}

// deliverLocked sends the pending change to every subscriber. s.mu is held, which also keeps
// two deliveries from racing on one channel.
func (s *Store) deliverLocked() {
	id, learnerID, learner := s.pendingID, s.pendingLearnerID, s.pendingLearner
	s.pending, s.pendingID = false, ""
	s.pendingLearner, s.pendingLearnerID = false, ""
	s.lastNotify = time.Now()
	for sub := range s.subs {
		ev := Event{ID: id}
		if sub.learner {
			if !learner {
				continue
			}
			ev.ID = learnerID
		}
		select {
		case pending := <-sub.ch:
			if pending.ID != ev.ID {
				ev.ID = ""
			}
		default:
		}
		sub.ch <- ev // never blocks: the channel has room for one and only we send
	}
}
