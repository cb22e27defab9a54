package tui

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/tui/class"
)

// fakeFollower is a student's side of a class, changed by the test.
type fakeFollower struct {
	mu      sync.Mutex
	st      FollowState
	ch      chan struct{}
	reports []ClassPlace
	exs     []ClassExercise
	stuck   []bool
}

func newFakeFollower(st FollowState) *fakeFollower {
	return &fakeFollower{st: st, ch: make(chan struct{})}
}

func (f *fakeFollower) set(change func(*FollowState)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.st)
	close(f.ch)
	f.ch = make(chan struct{})
}

func (f *fakeFollower) State() FollowState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

func (f *fakeFollower) Changed() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ch
}

func (f *fakeFollower) Detach() { f.set(func(s *FollowState) { s.Following = false }) }
func (f *fakeFollower) Resync() { f.set(func(s *FollowState) { s.Following = true }) }
func (f *fakeFollower) SetStuck(stuck bool) {
	f.mu.Lock()
	f.stuck = append(f.stuck, stuck)
	f.mu.Unlock()
	f.set(func(s *FollowState) { s.Stuck = stuck })
}

func (f *fakeFollower) Report(p ClassPlace, done int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reports = append(f.reports, p)
}

func (f *fakeFollower) ReportExercise(ex ClassExercise) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exs = append(f.exs, ex)
}

// reported is the checkpoints reported, in order.
func (f *fakeFollower) reported() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, p := range f.reports {
		out = append(out, p.Checkpoint)
	}
	return out
}

// lastReport is the last place reported.
func (f *fakeFollower) lastReport() ClassPlace {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.reports) == 0 {
		return ClassPlace{}
	}
	return f.reports[len(f.reports)-1]
}

// lastExercise is the last state on the assigned exercise reported.
func (f *fakeFollower) lastExercise() ClassExercise {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.exs) == 0 {
		return ClassExercise{}
	}
	return f.exs[len(f.exs)-1]
}

// fakeClassHost is an instructor's side of a class.
type fakeClassHost struct {
	mu       sync.Mutex
	board    ClassBoard
	ch       chan struct{}
	reached  []string
	places   []ClassPlace
	sent     []string
	assigned []string
}

func newFakeClassHost(b ClassBoard) *fakeClassHost {
	return &fakeClassHost{board: b, ch: make(chan struct{})}
}

func (h *fakeClassHost) JoinLine() string {
	return "kubewalk join 127.0.0.1:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA"
}
func (h *fakeClassHost) LoopbackOnly() bool { return true }
func (h *fakeClassHost) Reached(p ClassPlace) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reached = append(h.reached, p.Checkpoint)
	h.places = append(h.places, p)
}
func (h *fakeClassHost) Assign(id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.assigned = append(h.assigned, id)
	h.board.Assigned = id
	close(h.ch)
	h.ch = make(chan struct{})
	return nil
}

// update changes the board and wakes its readers.
func (h *fakeClassHost) update(change func(*ClassBoard)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	change(&h.board)
	close(h.ch)
	h.ch = make(chan struct{})
}
func (h *fakeClassHost) Board() ClassBoard {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board
}
func (h *fakeClassHost) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}
func (h *fakeClassHost) Broadcast(text string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if text == "fail" {
		return errors.New("the class has stopped")
	}
	h.sent = append(h.sent, text)
	return nil
}
func (h *fakeClassHost) snapshot() (reached, sent []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.reached), slices.Clone(h.sent)
}

// checkpointIndex is a checkpoint's position in server.Checkpoints(), -1 for an unknown ID.
func checkpointIndex(id string) int { return class.CheckpointIndex(id) }

// liveID is the checkpoint the (fake) server is paused at.
func liveID(hs *harness) string {
	if l := hs.model.m.tour.Live(); l != nil {
		return l.Checkpoint.ID()
	}
	return ""
}

// TestFollowRunsForward: a following student's server runs forward to the instructor's
// checkpoint, never back; detached it stays; re-synced it catches up; a reviewed step stays on
// screen while the live stop moves; the student reports where it is.
func TestFollowRunsForward(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		f := newFakeFollower(FollowState{Title: "apiserver walk", Name: "ana", Connected: true, Following: true, Instructor: ClassPlace{Checkpoint: "authz/rbac"}})
		hs := newHarnessOpts(t, size.w, size.h, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Follow: f})
		hs.until("the late joiner catches up", func() bool { return liveID(hs) == "authz/rbac" })
		hs.settle()
		hs.must("following the instructor (at authz/rbac)", "apiserver walk")
		if r := f.reported(); len(r) == 0 || r[len(r)-1] != "authz/rbac" {
			t.Errorf("reports = %v, want the last to be authz/rbac", r)
		}

		// Never back.
		n := len(hs.eng.targets())
		f.set(func(s *FollowState) { s.Instructor = ClassPlace{Checkpoint: "config/scheme"} })
		hs.settle()
		if liveID(hs) != "authz/rbac" || len(hs.eng.targets()) != n {
			t.Errorf("went to %s (targets %v) after the instructor's checkpoint went back", liveID(hs), hs.eng.targets())
		}

		// Detached: the instructor moves on, the student does not.
		hs.keys("D")
		hs.must("free pace")
		f.set(func(s *FollowState) { s.Instructor = ClassPlace{Checkpoint: "admission/chain"} })
		hs.settle()
		if liveID(hs) != "authz/rbac" {
			t.Errorf("a detached student moved to %s", liveID(hs))
		}
		// Reviewing an earlier step, then re-sync: the live stop catches up, the review stays.
		hs.keys("left")
		reviewing := hs.model.m.tour.Reviewing()
		hs.keys("D")
		hs.until("the re-synced student catches up", func() bool { return liveID(hs) == "admission/chain" })
		hs.settle()
		if hs.model.m.tour.Reviewing() != reviewing || reviewing < 0 {
			t.Errorf("review = %d, want %d kept while the live stop moved", hs.model.m.tour.Reviewing(), reviewing)
		}
		hs.must("following the instructor (at admission/chain)")
	}
}

// TestFollowStuckMessageAndConnection: ! raises and lowers the flag; the instructor's message,
// a lost connection and leaving the class show in the class lines, in words.
func TestFollowStuckMessageAndConnection(t *testing.T) {
	f := newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true})
	hs := newHarnessOpts(t, 80, 24, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Follow: f})
	hs.must("no message from the instructor yet")
	hs.keys("!")
	hs.must("✋ STUCK")
	hs.keys("!")
	hs.mustNot("✋ STUCK")
	if got := f.stuck; !slices.Equal(got, []bool{true, false}) {
		t.Errorf("SetStuck calls = %v", got)
	}
	f.set(func(s *FollowState) { s.Message, s.MessageSeq = "look at the RBAC authorizer", 1 })
	hs.settle()
	hs.must("instructor: look at the RBAC authorizer")
	f.set(func(s *FollowState) { s.Connected, s.Problem = false, "connection refused" })
	hs.settle()
	hs.must("connection lost, reconnecting; your tour goes on (connection refused)")
	f.set(func(s *FollowState) { s.Fatal = "the host has changed" })
	hs.settle()
	hs.must("left the class (the host has changed)")
	// The tour goes on.
	before := liveID(hs)
	hs.keys(" ")
	if liveID(hs) == before {
		t.Errorf("space did not step after leaving the class: still at %s", before)
	}
}

// TestClassHostBoard: every live pause is published; the join line stays in view; :board
// shows each student with the stuck flag in words; :msg broadcasts and refuses an empty line.
func TestClassHostBoard(t *testing.T) {
	h := newFakeClassHost(ClassBoard{Title: "walk", Place: ClassPlace{Checkpoint: "config/scheme"}, Students: []ClassStudent{
		{Name: "ana", Place: ClassPlace{Checkpoint: "config/scheme"}, Done: 2, Idle: 75 * time.Second, Stuck: true, Following: true, Connected: true},
		{Name: "bob", Place: ClassPlace{Checkpoint: "authn/x"}, Following: false, Connected: true},
		{Name: "chen", Following: true, Connected: false},
	}})
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		hs := newHarnessOpts(t, size.w, size.h, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Class: h})
		hs.must("JOIN: kubewalk join 127.0.0.1:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA")
		hs.keys(" ")
		second := liveID(hs)
		hs.until("both pauses published", func() bool {
			r, _ := h.snapshot()
			return slices.Contains(r, "config/scheme") && slices.Contains(r, second)
		})
		hs.typeLine("board")
		hs.must("Class board: walk — students: 3, stuck: 1", "ana", "✋ STUCK · ⇢ following", "1m",
			"bob", "◇ free pace", "chen", "✗ offline", "--listen 0.0.0.0:7443")
		hs.typeLine("msg")
		hs.must("say what to send")
		hs.keys("esc")
		hs.typeLine("msg look at the RBAC authorizer")
		hs.until("the message is sent", func() bool { _, s := h.snapshot(); return len(s) > 0 })
		if size.w >= 120 {
			hs.must("message sent to the class")
		}
	}
	_, sent := h.snapshot()
	if sent[0] != "look at the RBAC authorizer" {
		t.Errorf("sent %q", sent)
	}
}

// TestClassCommandsOnlyForTheHost: without a class, :board is neither suggested nor run.
func TestClassCommandsOnlyForTheHost(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	hs.keys(":")
	if strings.Contains(hs.view(), "class board") {
		t.Error("a plain tour suggests :board")
	}
	hs.send(keyMsg("esc"))
	hs.typeLine("board")
	hs.must("are for the instructor of a class")
}
