package tui

import (
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// noteView says, on each sayMsg and on the key "n", a note (view.Noter).
type noteView struct {
	view.Notes
	said int
}

type sayMsg struct{ note string }

func (v *noteView) Init() tea.Cmd { return nil }
func (v *noteView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case sayMsg:
		v.Say(msg.note)
	case tea.KeyMsg:
		if msg.String() == "n" {
			v.said++
			v.Say("said on a key")
		}
	}
	return nil
}
func (v *noteView) View(w, h int) []string     { return make([]string, h) }
func (v *noteView) Keys() []key.Binding        { return nil }
func (v *noteView) Title() (name, hint string) { return "notes", "" }

// TestRootTakesNotes: what a view says (view.Noter) is the root's note after the very message
// it was said on, in order: a later clear is not overtaken by an earlier note, a note said on
// a key shows although the key clears the note first, and a note is taken once.
func TestRootTakesNotes(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	v := &noteView{}
	hs.model.m.views[viewGlossary] = v
	note := func() string { return hs.model.m.note }

	for _, tt := range []struct {
		name string
		msgs []tea.Msg
		want string
	}{
		{"one note", []tea.Msg{sayMsg{"stopping…"}}, "stopping…"},
		{"a clear after it", []tea.Msg{sayMsg{"stopping…"}, sayMsg{""}}, ""},
		{"a note after a clear", []tea.Msg{sayMsg{""}, sayMsg{"the watch beside has ended"}}, "the watch beside has ended"},
		{"nothing said keeps the note", []tea.Msg{sayMsg{"kept"}, recMsg{n: 1}}, "kept"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, msg := range tt.msgs {
				// Model.Update, as bubbletea calls it: the note is there before any command runs.
				hs.model.Update(msg)
			}
			if note() != tt.want {
				t.Errorf("note %q, want %q", note(), tt.want)
			}
		})
	}

	hs.model.m.at = viewGlossary
	hs.model.Update(keyMsg("n"))
	if v.said != 1 || note() != "said on a key" {
		t.Errorf("a note said on a key: said %d, note %q", v.said, note())
	}
	hs.model.Update(keyMsg("x"))
	if note() != "" {
		t.Errorf("the next key left the note %q: taken twice", note())
	}
}
