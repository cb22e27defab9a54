package requests

import "github.com/kubewalk/kubewalk/runtime/tui/common"

// listFrame is the list pane's frame: its size, focus and cached rendering. The list is not a
// common.TextPane because it renders only the rows in view (1,000 traces in the ring; the
// frame budget is 2 ms at 200×60, BenchmarkRequestsView200x60), where a TextPane takes every
// line.
type listFrame struct {
	w, h    int
	focused bool
	view    []string
	dirty   bool
}

// SetFocused shows the list as focused (thick border) or not.
func (f *listFrame) SetFocused(b bool) {
	if f.focused != b {
		f.focused = b
		f.dirty = true
	}
}

// render frames body under the list's title, reusing the last result until something changes.
func (f *listFrame) render(st *common.Styles, name, detail, figure string, body func() []string) []string {
	if !f.dirty && f.view != nil {
		return f.view
	}
	f.view = common.Box(st, common.FrameTitle("", name, detail, figure, f.w), body(), f.w, f.h, f.focused)
	f.dirty = false
	return f.view
}
