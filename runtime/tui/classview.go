package tui

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/class"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// This file is the root's side of the follow-along class (runtime/tui/class): making it, the
// walkthrough it follows (classTour), and the few calls the root makes into it.

// classView is what the root asks of the class (*class.Model): the board is its view.View; the
// rest are the lines under the header and the class keys (its : commands, :board, :msg and
// :assign, are its view.Commander's). The root holds it in m.cls as well as in m.views
// (viewBoard), and reads none of its fields.
type classView interface {
	view.View
	IsHost() bool
	LineCount(w int) int
	Lines(w int) []string
	Key(msg tea.KeyMsg) (tea.Cmd, bool)
	Moved() tea.Cmd
	Seen(shown string)
}

// newClass makes the class of opts for m (inert without Options.Class and Options.Follow).
func newClass(m *model, c common.Common, opts Options, ctx context.Context, ex *exercises.Model) *class.Model {
	k := m.keys
	return class.New(c, class.Options{
		Host:      opts.Class,
		Follow:    opts.Follow,
		Keys:      class.Keys{Follow: k.ClassFollow, Stuck: k.ClassStuck, Assigned: k.ClassAssigned, Board: k.ClassBoard},
		Tour:      classTour{Model: m.tour, m: m},
		Exercises: ex,
		Done:      func() <-chan struct{} { return m.done },
		Stop:      ctx.Done(),
	})
}

// classLineCount is how many lines the class takes under the header.
func (m *model) classLineCount() int { return m.cls.LineCount(m.w) }

// classLines are the lines under the header.
func (m *model) classLines() []string { return m.cls.Lines(m.w) }

// classKey handles the class keys: on the instructor's screen B opens the board and, on the
// board, goes back to the walkthrough; on a student's the class's own (D, A, !). ok is false
// when the key is not one of them.
func (m *model) classKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if m.cls.IsHost() && key.Matches(msg, m.keys.ClassBoard) {
		if m.at == viewBoard {
			m.at = viewTour
		} else {
			m.at = viewBoard
		}
		return nil, true
	}
	return m.cls.Key(msg)
}

// classSeen is called after a key and when the exercises change: the exercise selected in the
// exercises view, when it is shown, counts as opened on a student's screen.
func (m *model) classSeen() {
	shown := ""
	if m.at == viewExercises {
		if e, ok := m.exView().Selected(); ok {
			shown = e.ID
		}
	}
	m.cls.Seen(shown)
}

// openExercise opens the exercises view on exercise id.
func (m *model) openExercise(id string) tea.Cmd {
	m.at = viewExercises
	m.syncCurrent()
	m.exView().Select(id)
	m.classSeen()
	return nil
}

// classTour is the walkthrough as the class reads and moves it (class.Tour): where it is, the
// track and running the server on are the walkthrough's (runtime/tui/tour); opening an
// exercise, the note and the layout are the root's.
type classTour struct {
	*tour.Model
	m *model
}

// OpenExercise shows the exercises view on exercise id.
func (t classTour) OpenExercise(id string) tea.Cmd { return t.m.openExercise(id) }

// Note sets the status line's note.
func (t classTour) Note(s string) { t.m.note = s }

// Relayout lays the screen out again for a class line that came or went.
func (t classTour) Relayout() {
	if t.m.w > 0 {
		t.m.resize(t.m.w, t.m.h)
	}
}

// JoinPort is the port of a join line's address ("kubewalk join ADDR --code CODE"), "7443"
// when the line has none (class.JoinPort).
func JoinPort(line string) string { return class.JoinPort(line) }
