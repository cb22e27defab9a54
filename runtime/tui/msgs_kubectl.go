package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
)

// This file holds what the kubectl view (runtime/tui/kubectl) asks of the requests code,
// which is still in this package: the messages the root acts on, and the lane summary. The view
// cannot import this package, so it gets them as constructors (kubectlOptions); they move to
// the requests view's package with it.

// RequestsChangedMsg says the trace store is to be read again now: a kubectl command made a
// request (or ended), and its lane is to be read. The root turns it into loadNow.
type RequestsChangedMsg struct{}

// OpenTraceMsg shows a request's trace (by audit ID) in the Requests view.
type OpenTraceMsg struct{ ID string }

// kubectlOptions is what the kubectl view reads of the screen.
func (m *model) kubectlOptions(opts Options) kubectlview.Options {
	o := kubectlview.Options{
		Ctx:       m.ctx,
		Wired:     m.reqs != nil,
		WideWidth: wideWidth,
		FocusNext: m.keys.FocusNext, FocusPrev: m.keys.FocusPrev,
		Lane:            func(t tracing.Trace) string { return laneSummary(m.tr, t) },
		RequestsChanged: func() tea.Msg { return RequestsChangedMsg{} },
		OpenTrace:       func(id string) tea.Msg { return OpenTraceMsg{ID: id} },
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

// laneSummary is a lane on one line: each stage's symbol and short name, then the code and
// time.
func laneSummary(tr *i18n.Strings, t tracing.Trace) string {
	var parts []string
	for _, s := range t.Stages {
		if s.Name == tracing.StageResponse {
			continue
		}
		name := stageLabel(tr, s.Name, true)
		if i := pathIndex(s.Name); i >= 0 && (s.Name == requestPath[i].name) {
			name = requestPath[i].short
		}
		p := stageSymbol(s.Outcome) + name
		switch s.Outcome {
		case tracing.OutcomeCache, tracing.OutcomeDenied, tracing.OutcomeRefused, tracing.OutcomeHeld, tracing.OutcomeAborted, tracing.OutcomeFailed:
			p += "(" + outcomeWord(tr, s.Outcome) + ")"
		}
		parts = append(parts, p)
	}
	end := "…"
	if t.Code != 0 {
		end = fmt.Sprint(t.Code)
	}
	if t.Done {
		end += " " + fmtDuration(t.Duration)
	}
	return strings.Join(parts, " ") + " → " + end
}
