package tui

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// frame is what every pane shares: its styles and strings, size, focus, tab bar and cached
// view.
type frame struct {
	st *Styles
	tr *i18n.Strings

	w, h    int
	focused bool
	tabs    string // tab bar shown before the title when panes share a place

	view  []string
	dirty bool
}

// SetFocused shows the pane as focused (thick border) or not.
func (f *frame) SetFocused(b bool) {
	if f.focused != b {
		f.focused = b
		f.dirty = true
	}
}

// SetTabs sets the tab bar drawn in the title.
func (f *frame) SetTabs(s string) {
	if f.tabs != s {
		f.tabs = s
		f.dirty = true
	}
}

// render frames body under a title made of the pane's name (or the tab bar, which names it),
// detail and figure, reusing the last result until something changes. When the title is too
// long the name and detail are cut, never the figure (a scroll position, a count).
func (f *frame) render(name, detail, figure string, body func() []string) []string {
	if !f.dirty && f.view != nil {
		return f.view
	}
	title := name
	if f.tabs != "" {
		title = f.tabs
	}
	if detail != "" {
		title += " · " + detail
	}
	if figure != "" {
		tail := " · " + figure
		// box shows a title of at most w-6 cells: "╭─ " + title + " " ... "╮".
		if room := f.w - 6 - ansi.StringWidth(tail); ansi.StringWidth(title) > room && room >= 4 {
			title = ansi.Truncate(title, room, "…")
		}
		title += tail
	}
	f.view = box(f.st, title, body(), f.w, f.h, f.focused)
	f.dirty = false
	return f.view
}

// stripANSI removes styling, for tests of emptiness.
func stripANSI(s string) string { return ansi.Strip(s) }
