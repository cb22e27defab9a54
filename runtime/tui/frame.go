package tui

import "github.com/charmbracelet/x/ansi"

// frame is what every pane shares: its size, focus, tab bar and cached view.
type frame struct {
	st *Styles

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

// render frames body under a title made of the pane's name (or the tab bar, which names it)
// and detail, reusing the last result until something changes.
func (f *frame) render(name, detail string, body func() []string) []string {
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
	f.view = box(f.st, title, body(), f.w, f.h, f.focused)
	f.dirty = false
	return f.view
}

// stripANSI removes styling, for tests of emptiness.
func stripANSI(s string) string { return ansi.Strip(s) }
