package class

import (
	"errors"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
)

// fakeHost is an instructor's side of a class, changed by the test.
type fakeHost struct {
	mu       sync.Mutex
	join     string
	board    Board
	ch       chan struct{}
	places   []Place
	sent     []string
	assigned []string
}

func newFakeHost(b Board) *fakeHost {
	return &fakeHost{board: b, ch: make(chan struct{}), join: "kubewalk join 127.0.0.1:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA"}
}

func (h *fakeHost) JoinLine() string   { return h.join }
func (h *fakeHost) LoopbackOnly() bool { return true }
func (h *fakeHost) Reached(p Place) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.places = append(h.places, p)
}
func (h *fakeHost) Board() Board {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.board
}
func (h *fakeHost) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}
func (h *fakeHost) Broadcast(text string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if text == "fail" {
		return errors.New("the class has stopped")
	}
	h.sent = append(h.sent, text)
	return nil
}
func (h *fakeHost) Assign(id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.assigned = append(h.assigned, id)
	return nil
}

// fakeFollower is a student's side of a class; it records what the screen told it.
type fakeFollower struct {
	mu      sync.Mutex
	st      FollowState
	ch      chan struct{}
	calls   []string
	reports []Place
	exs     []Exercise
}

func newFakeFollower(st FollowState) *fakeFollower {
	return &fakeFollower{st: st, ch: make(chan struct{})}
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
func (f *fakeFollower) call(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}
func (f *fakeFollower) Detach() { f.call("detach") }
func (f *fakeFollower) Resync() { f.call("resync") }
func (f *fakeFollower) SetStuck(stuck bool) {
	if stuck {
		f.call("stuck")
	} else {
		f.call("unstuck")
	}
}
func (f *fakeFollower) Report(p Place, done int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reports = append(f.reports, p)
}
func (f *fakeFollower) ReportExercise(ex Exercise) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exs = append(f.exs, ex)
}

// fakeTour is the walkthrough around the class: where tells Where, and what the class asked
// of it is recorded.
type fakeTour struct {
	where    Where
	track    []string
	notes    []string
	runs     []string // the targets' descriptions
	opened   []int    // track steps opened
	exercise []string // exercises opened
	relayout int
}

func (t *fakeTour) Where() Where { return t.where }
func (t *fakeTour) TrackIndex(step string) int {
	for i, s := range t.track {
		if s == step {
			return i
		}
	}
	return -1
}
func (t *fakeTour) OpenTrack(i int) tea.Cmd {
	t.opened = append(t.opened, i)
	t.where.TrackAt = i
	return nil
}
func (t *fakeTour) RunTo(_ engine.Target, what string) tea.Cmd {
	t.runs = append(t.runs, what)
	t.where.Running = true
	return nil
}
func (t *fakeTour) OpenExercise(id string) tea.Cmd {
	t.exercise = append(t.exercise, id)
	return nil
}
func (t *fakeTour) Note(s string) { t.notes = append(t.notes, s) }
func (t *fakeTour) Relayout()     { t.relayout++ }

// fakeExercises is the exercises view as the class reads it.
type fakeExercises struct{ list []exercises.Exercise }

func (x fakeExercises) Find(id string) (exercises.Exercise, bool) {
	for _, e := range x.list {
		if e.ID == id {
			return e, true
		}
	}
	return exercises.Exercise{}, false
}
func (x fakeExercises) Done() (done, all int) {
	for _, e := range x.list {
		if e.State == exercises.Done {
			done++
		}
	}
	return done, len(x.list)
}
func (x fakeExercises) Loaded() bool              { return x.list != nil }
func (x fakeExercises) All() []exercises.Exercise { return x.list }

// someExercises are two exercises, one done.
func someExercises() fakeExercises {
	return fakeExercises{list: []exercises.Exercise{
		{ID: "authz-1", Title: "Who may list pods", State: exercises.Open},
		{ID: "authn-1", Title: "Which authenticator answered", State: exercises.Done},
	}}
}

// aBoard is a class of three students, one stuck, one offline, with an assigned exercise.
func aBoard() Board {
	return Board{Title: "walk", Place: Place{Checkpoint: "authz/rbac"}, Message: "read the RBAC step", Assigned: "authz-1",
		Students: []Student{
			{Name: "ana", Place: Place{Checkpoint: "authz/rbac"}, Done: 2, Idle: 75 * time.Second, Stuck: true, Following: true, Connected: true,
				Exercise: Exercise{ID: "authz-1", State: ExTrying, Hints: 1}},
			{Name: "bob", Place: Place{Served: true, Checkpoint: "serve/serving", Step: "03-authz/rbac"}, Idle: 2 * time.Hour, Connected: true,
				Exercise: Exercise{ID: "authz-1", State: ExDone}},
			{Name: "chen", Following: true, Connected: false},
		}}
}
