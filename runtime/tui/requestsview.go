package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// This file is the root's side of the Requests view (runtime/tui/requests): making it, the
// stage-code pane it is handed, and what the root asks of it until the views that ask move
// too (the kubectl view names its messages itself).

// newRequests makes the Requests view for m.
func newRequests(m *model, c common.Common, ctx context.Context, srv ServerInfo, content Content, opts Options) *requests.Model {
	return requests.New(c, requests.Options{
		Requests:    opts.Requests,
		Breakpoints: opts.Breakpoints,
		Code:        content,
		Listening: func() bool {
			// Whether requests can reach the server is the server's own state, not the
			// walkthrough's: paused in the serve phase, it listens already.
			return srv != nil && (srv.ServeStatus() == server.Listening || srv.ServeStatus() == server.Serving)
		},
		Want: func() []string { return m.kc().IDs() },
		Typing: func() bool {
			_, typing := m.capturing() // the active view's text box (an answer, a filter)
			return m.prompt.IsOpen() || typing
		},
		Ctx:  ctx,
		Done: func() <-chan struct{} { return m.done },
	})
}

// rqv is the Requests view.
func (m *model) rqv() *requests.Model { return m.views[viewRequests].(*requests.Model) }

// loadNow asks the Requests view to read the trace store again (after kubectl output).
func (m *model) loadNow() tea.Cmd {
	return func() tea.Msg { return requests.ReloadMsg{} }
}

// capturingView is the active view while its text box takes every key, else nil.
func (m *model) capturingView() view.View {
	if v, ok := m.capturing(); ok {
		return v
	}
	return nil
}
