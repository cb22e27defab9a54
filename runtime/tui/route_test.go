package tui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// recView is a view that records what the root hands it.
type recView struct {
	capture bool
	got     []tea.Msg
}

type recMsg struct{ n int }

func (v *recView) Init() tea.Cmd              { return nil }
func (v *recView) Update(msg tea.Msg) tea.Cmd { v.got = append(v.got, msg); return nil }
func (v *recView) View(w, h int) []string     { return make([]string, h) }
func (v *recView) Keys() []key.Binding        { return nil }
func (v *recView) Title() (name, hint string) { return "rec", "" }
func (v *recView) Capturing() bool            { return v.capture }
func (v *recView) count(pred func(tea.Msg) bool) int {
	n := 0
	for _, m := range v.got {
		if pred(m) {
			n++
		}
	}
	return n
}

// TestRootRoutes: a message the root does not know reaches every view, each engine event is
// told to every view as a view.ServerMsg, a capturing view gets the global keys (q, :) typed
// into it, and a view's NoteMsg shows as the root's note.
func TestRootRoutes(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	active, other := &recView{}, &recView{}
	hs.model.m.views[viewGlossary] = active
	hs.model.m.views[viewBoard] = other

	hs.send(recMsg{n: 7})
	isRec := func(m tea.Msg) bool { r, ok := m.(recMsg); return ok && r.n == 7 }
	if active.count(isRec) != 1 || other.count(isRec) != 1 {
		t.Fatalf("an unknown message reached the views %d and %d times, want 1 and 1", active.count(isRec), other.count(isRec))
	}

	hs.keys(" ") // the fake engine pauses at the next checkpoint
	hs.settle()
	isPaused := func(m tea.Msg) bool { s, ok := m.(view.ServerMsg); return ok && s.Paused }
	if active.count(isPaused) == 0 || other.count(isPaused) == 0 {
		t.Fatalf("no view.ServerMsg{Paused} after a pause: %v / %v", active.got, other.got)
	}

	hs.model.m.at = viewGlossary
	for _, tc := range []struct {
		capture  bool
		key      string
		toView   bool
		quitting bool
	}{
		{capture: true, key: "q", toView: true},
		{capture: true, key: ":", toView: true},
		{capture: false, key: "x", toView: true},
	} {
		active.capture = tc.capture
		before := len(active.got)
		hs.send(keyMsg(tc.key))
		if got := len(active.got) > before; got != tc.toView {
			t.Errorf("capture %v, key %q: reached the view %v, want %v", tc.capture, tc.key, got, tc.toView)
		}
		if hs.quit || hs.model.m.prompt.IsOpen() {
			t.Fatalf("capture %v, key %q: the root acted on it (quit %v, prompt %v)", tc.capture, tc.key, hs.quit, hs.model.m.prompt.IsOpen())
		}
	}
	active.capture = false

	hs.send(view.NoteMsg("hello from a view"))
	if hs.model.m.note != "hello from a view" {
		t.Errorf("note %q after a view.NoteMsg", hs.model.m.note)
	}
}
