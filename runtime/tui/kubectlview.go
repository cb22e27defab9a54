package tui

import (
	"context"

	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
)

// The kubectl view (runtime/tui/kubectl) speaks the Requests view's messages itself
// (requests.ReloadMsg, requests.OpenMsg, requests.TracesMsg, requests.LaneSummary); what the
// root hands it is what only the root knows: the run's context, the server and the runner, the
// layout's width and the learner's tab keys.

// kubectlOptions is what the kubectl view reads of the screen.
func (m *model) kubectlOptions(ctx context.Context, srv ServerInfo, opts Options) kubectlview.Options {
	o := kubectlview.Options{
		Ctx:        ctx,
		Wired:      opts.Requests != nil,
		WideWidth:  wideWidth,
		FocusNext:  m.keys.FocusNext,
		FocusPrev:  m.keys.FocusPrev,
		NewKubectl: opts.NewKubectl,
	}
	if srv != nil {
		o.Server = srv
	}
	return o
}

// kc is the kubectl view: the Requests view asks it which traces to load (requests.Options.Want)
// and shutdown closes it.
func (m *model) kc() *kubectlview.Model { return m.views[viewKubectl].(*kubectlview.Model) }
