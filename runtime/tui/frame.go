package tui

import (
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// frame is what the walkthrough's panes (source, state, lesson, served) share: common.Frame
// plus the strings, until those panes move into their own package and embed common.Frame.
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

// render frames body under the pane's title (see common.FrameTitle), reusing the last result
// until something changes.
func (f *frame) render(name, detail, figure string, body func() []string) []string {
	if !f.dirty && f.view != nil {
		return f.view
	}
	f.view = box(f.st, common.FrameTitle(f.tabs, name, detail, figure, f.w), body(), f.w, f.h, f.focused)
	f.dirty = false
	return f.view
}

// stripANSI removes styling, for tests of emptiness.
func stripANSI(s string) string { return ansi.Strip(s) }
