package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// This file is the root's side of the Requests view (runtime/tui/requests): making it, the
// stage-code pane it is handed, and what the root asks of it until the views that ask move
// too (the kubectl view's constructors, msgs_kubectl.go, name its messages).

// newRequests makes the Requests view for m.
func newRequests(m *model, c common.Common, content Content) *requests.Model {
	src := newSourcePane(c.Styles, c.Tr, stageContent{content})
	src.empty = c.Tr.RqSelectStage
	return requests.New(c, requests.Options{
		Requests:    m.reqs,
		Breakpoints: m.bps,
		Source:      rqSourcePane{src},
		Listening: func() bool {
			// Whether requests can reach the server is the server's own state, not the
			// walkthrough's: paused in the serve phase, it listens already.
			return m.srv != nil && (m.srv.ServeStatus() == server.Listening || m.srv.ServeStatus() == server.Serving)
		},
		Want: func() []string { return m.kc().IDs() },
		Typing: func() bool {
			_, typing := m.capturing() // the active view's text box (an answer, a filter)
			return m.prompt.open || typing
		},
		Ctx:  m.ctx,
		Done: func() <-chan struct{} { return m.done },
	})
}

// rqv is the Requests view.
func (m *model) rqv() *requests.Model { return m.views[viewRequests].(*requests.Model) }

// loadNow asks the Requests view to read the trace store again (after kubectl output).
func (m *model) loadNow() tea.Cmd {
	return func() tea.Msg { return requests.ReloadMsg{} }
}

// rqSourcePane is the walkthrough's source pane as the Requests view's stage-code pane.
type rqSourcePane struct{ *sourcePane }

// ShowStage shows a stage's code: kubewalk's own when it has an anchor, else upstream's.
func (p rqSourcePane) ShowStage(key, title, anchor, upstream string) tea.Cmd {
	p.upstream = anchor == ""
	return p.SetStep(Step{ID: key, Title: title, Anchor: anchor, Upstream: upstream}, true, server.Checkpoint{})
}

// Invalidate drops the cached rendering.
func (p rqSourcePane) Invalidate() { p.dirty = true }

// Loading reports a resolution under way.
func (p rqSourcePane) Loading() bool { return len(p.pending) > 0 }

// stageContent emphasises the first line of a declaration the lessons' resolver returns
// without a focus, so the source pane marks the stage's function with ▶.
type stageContent struct{ Content }

func (c stageContent) Local(anchor, focus string) (Location, error) {
	loc, err := c.Content.Local(strings.TrimPrefix(anchor, "server/"), focus)
	return emphasiseStart(loc), err
}

func (c stageContent) Upstream(symbol string) (Location, error) {
	loc, err := c.Content.Upstream(symbol)
	return emphasiseStart(loc), err
}

func emphasiseStart(loc Location) Location {
	if loc.FocusStart == 0 && loc.StartLine > 0 {
		loc.FocusStart, loc.FocusEnd = loc.StartLine, loc.StartLine
	}
	return loc
}

// capturingView is the active view while its text box takes every key, else nil.
func (m *model) capturingView() view.View {
	if v, ok := m.capturing(); ok {
		return v
	}
	return nil
}
