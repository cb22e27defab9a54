package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tracing"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
)

// This file holds what the kubectl view (runtime/tui/kubectl) is handed by the root. What it
// asks of the Requests view is that view's own (runtime/tui/requests): requests.ReloadMsg after
// a command made a request, requests.OpenMsg for enter on one, requests.LaneSummary for the
// one-line lanes; requests.TracesMsg brings it the traces. They still come through
// kubectlOptions' constructors: the kubectl package could name them itself (it may import
// requests) and drop Options.Lane/RequestsChanged/OpenTrace — left for its owner.

// kubectlOptions is what the kubectl view reads of the screen.
func (m *model) kubectlOptions(opts Options) kubectlview.Options {
	o := kubectlview.Options{
		Ctx:       m.ctx,
		Wired:     m.reqs != nil,
		WideWidth: wideWidth,
		FocusNext: m.keys.FocusNext, FocusPrev: m.keys.FocusPrev,
		Lane:            func(t tracing.Trace) string { return requests.LaneSummary(m.tr, t) },
		RequestsChanged: func() tea.Msg { return requests.ReloadMsg{} },
		OpenTrace:       func(id string) tea.Msg { return requests.OpenMsg{ID: id} },
		NewKubectl:      opts.NewKubectl,
		Note:            func(s string) { m.note = s },
	}
	if m.srv != nil {
		o.Server = m.srv
	}
	return o
}

// kc is the kubectl view: the : line runs its commands, the trace loader reads the traces it
// wants and hands it their lanes, and shutdown closes it.
func (m *model) kc() *kubectlview.Model { return m.views[viewKubectl].(*kubectlview.Model) }
