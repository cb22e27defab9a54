// Package walk holds the walkthrough's panes besides the source (runtime/tui/source): the state
// pane (State: a stop's state tree, its live objects by reflection, or a track step's live
// probe), the lesson pane (Lesson: the step's text rendered with glamour and wrapped to the
// pane) and the after-serve panel (Served: the kubeconfig, kubectl commands to try, /readyz).
// They are components, not views: the walkthrough lays them out, focuses them and hands them
// the stop on screen; each is asked through its methods, never its fields.
package walk

import (
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// frame is what the panes share: common.Frame, and the size, focus, styles and strings their
// bodies read.
type frame struct {
	common.Frame
	st *common.Styles
	tr *i18n.Strings

	w, h    int
	focused bool
}

func newFrame(c common.Common) frame {
	return frame{Frame: common.NewFrame(c.Styles), st: c.Styles, tr: c.Tr}
}

// SetFocused shows the pane as focused (thick border) or not.
func (f *frame) SetFocused(b bool) {
	f.focused = b
	f.Frame.SetFocused(b)
}

// resize records the pane's outer size.
func (f *frame) resize(w, h int) {
	f.w, f.h = w, h
	f.Frame.SetSize(w, h)
}
