package common

import "github.com/charmbracelet/x/ansi"

// Frame is what every pane shares: its styles, size, focus, tab bar and cached view. Embed it
// and call Render from the pane's View.
type Frame struct {
	st *Styles

	w, h    int
	focused bool
	tabs    string // tab bar shown before the title when panes share a place

	view  []string
	dirty bool
}

// NewFrame returns an empty frame drawn with st, for a pane that draws its own body (a list with
// a cursor); a pane of text lines is a TextPane.
func NewFrame(st *Styles) Frame { return Frame{st: st, dirty: true} }

// SetSize sets the frame's outer size.
func (f *Frame) SetSize(w, h int) {
	if f.w != w || f.h != h {
		f.w, f.h = w, h
		f.dirty = true
	}
}

// SetFocused shows the pane as focused (thick border) or not.
func (f *Frame) SetFocused(b bool) {
	if f.focused != b {
		f.focused = b
		f.dirty = true
	}
}

// SetTabs sets the tab bar drawn in the title.
func (f *Frame) SetTabs(s string) {
	if f.tabs != s {
		f.tabs = s
		f.dirty = true
	}
}

// Size is the pane's outer size.
func (f *Frame) Size() (w, h int) { return f.w, f.h }

// Invalidate drops the cached view: the next Render draws again.
func (f *Frame) Invalidate() { f.dirty = true }

// Render frames body under a title made of the pane's name (or the tab bar, which names it),
// detail and figure, reusing the last result until something changes.
func (f *Frame) Render(name, detail, figure string, body func() []string) []string {
	if !f.dirty && f.view != nil {
		return f.view
	}
	f.view = Box(f.st, FrameTitle(f.tabs, name, detail, figure, f.w), body(), f.w, f.h, f.focused)
	f.dirty = false
	return f.view
}

// FrameTitle is the title of a pane w cells wide: its name (or the tab bar, which names it),
// detail and figure. When the title is too long the name and detail are cut, never the figure
// (a scroll position, a count).
func FrameTitle(tabs, name, detail, figure string, w int) string {
	title := name
	if tabs != "" {
		title = tabs
	}
	if detail != "" {
		title += " · " + detail
	}
	if figure != "" {
		tail := " · " + figure
		// Box shows a title of at most w-6 cells: "╭─ " + title + " " ... "╮".
		if room := w - 6 - ansi.StringWidth(tail); ansi.StringWidth(title) > room && room >= 4 {
			title = ansi.Truncate(title, room, "…")
		}
		title += tail
	}
	return title
}
