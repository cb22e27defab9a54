package tui

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
)

// The :exercises view is its own package (runtime/tui/exercises). What stays here is the
// root's side of it: where the walkthrough is (the view puts that lesson first), the toasts of
// the exercises that tick by themselves, drawn over whatever view is on screen until the next
// key not typed into a line, and the methods the class code asks (runtime/tui/class).

// exView is the exercises view.
func (m *model) exView() *exercises.Model { return m.views[viewExercises].(*exercises.Model) }

// syncCurrent tells the exercises view which lesson and phase the walkthrough is at.
func (m *model) syncCurrent() { m.exView().Sync() }

// toastBox is the toast of the exercises that ticked, w cells wide, or nil.
func (m *model) toastBox(w int) []string { return exercises.ToastBox(m.st, m.tr, m.toasts, w) }

// overlayRight draws over at the bottom right of body (whose lines are w cells wide).
func overlayRight(body, over []string, w int) []string {
	if len(over) == 0 || len(body) == 0 {
		return body
	}
	if len(over) > len(body) {
		over = over[len(over)-len(body):]
	}
	ow := ansi.StringWidth(over[0])
	out := append([]string{}, body...)
	for i, o := range over {
		j := len(body) - len(over) + i
		left := ansi.Cut(body[j], 0, w-ow)
		if lipgloss.ColorProfile() != termenv.Ascii {
			left += "\x1b[0m" // a style cut open must not run into the toast
		}
		out[j] = fit(left, w-ow) + o
	}
	return out
}
