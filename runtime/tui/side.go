package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/server"
)

// kube-apiserver side by side: s splits the body into our code for the step on screen and,
// beside it, the kube-apiserver v1.37.2 function its kube: location names, read from
// k8s.io/kubernetes in the Go module cache. When the cache lacks a module (k8s.io/kubernetes
// here, k8s.io/apiserver for u), the pane says so and F fetches it with the go command, in a
// tea.Cmd that reports progress; quitting cancels it (the go command is killed) and Run waits
// for it to end.

type (
	// upstreamCheckMsg says whether k8s.io/apiserver's source is missing (for the welcome).
	upstreamCheckMsg struct{ missing *MissingModuleError }
)

// checkUpstream asks the content, off the update loop, whether u will find its source.
func (m *model) checkUpstream() tea.Cmd {
	c, ok := m.content.(UpstreamChecker)
	if !ok {
		return nil
	}
	return func() tea.Msg { return upstreamCheckMsg{missing: c.UpstreamMissing()} }
}

// sideStep gives the kube pane the step on screen; it resolves the location only while the
// side-by-side view is open.
func (m *model) sideStep(step Step, ok bool, cp server.Checkpoint) tea.Cmd {
	if m.side {
		return m.kubeSrc.SetStep(step.Code(), ok, cp)
	}
	m.kubeSrc.Point(step.Code(), ok, cp)
	return nil
}

// toggleSide opens or closes the side-by-side view.
func (m *model) toggleSide() tea.Cmd {
	if !m.side && !m.kubeSrc.HasStep() {
		m.note = m.tr.NoteSideNoStep
		return nil
	}
	m.side = !m.side
	m.sideFocus = 0
	m.resize(m.w, m.h)
	if m.side {
		return m.kubeSrc.Load()
	}
	return nil
}

// sideKey handles the keys that differ in the side-by-side view: tab switches side, the
// scrolling keys scroll the focused side, s closes it. It reports false for the rest.
func (m *model) sideKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	p := m.source
	if m.sideFocus == 1 {
		p = m.kubeSrc
	}
	switch {
	case m.source.Typing() || m.source.Searching():
		return nil, false
	case msgIs(msg, k.FocusNext), msgIs(msg, k.FocusPrev):
		m.sideFocus = 1 - m.sideFocus
		m.applyFocus()
	case msgIs(msg, k.Up):
		p.Scroll(-1)
	case msgIs(msg, k.Down):
		p.Scroll(1)
	case msgIs(msg, k.PageUp):
		p.Scroll(-p.Page())
	case msgIs(msg, k.PageDown):
		p.Scroll(p.Page())
	case msgIs(msg, k.Top):
		p.Scroll(-1 << 30)
	case msgIs(msg, k.Bottom):
		p.Scroll(1 << 30)
	case msgIs(msg, k.Wrap):
		m.source.ToggleWrap()
		m.kubeSrc.ToggleWrap()
	default:
		return nil, false
	}
	return nil, true
}

// missingOnScreen is the module a pane on screen lacks: the kube pane's (side by side), else
// the upstream source's; nil when none.
func (m *model) missingOnScreen() *MissingModuleError {
	if m.side {
		if mm := m.kubeSrc.Missing(); mm != nil {
			return mm
		}
	}
	if m.source.Upstream() {
		return m.source.Missing()
	}
	return nil
}

// startFetch downloads the module a pane on screen lacks, off the update loop.
func (m *model) startFetch() tea.Cmd {
	cmd, note := m.fetch.Start(m.ctx, m.missingOnScreen())
	if note != "" {
		m.note = note
	}
	m.fetchDirty()
	return cmd
}

// fetchMsg handles a fetch's progress and end.
func (m *model) fetchMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case source.FetchMsg:
		r := m.fetch.Update(m.ctx, msg)
		if r.Note != "" {
			m.note = r.Note
		}
		if r.Changed {
			m.fetchDirty()
		}
		if r.Fetched == "" {
			return r.Cmd
		}
		if m.upMissing != nil && m.upMissing.Module == r.Fetched {
			m.upMissing = nil
		}
		return tea.Batch(m.source.Reload(), m.reloadKube())
	case upstreamCheckMsg:
		m.upMissing = msg.missing
	}
	return nil
}

// reloadKube reloads the kube pane if it is open (else it loads when it opens).
func (m *model) reloadKube() tea.Cmd {
	if !m.side {
		m.kubeSrc.ForgetErrors()
		return nil
	}
	return m.kubeSrc.Reload()
}

// fetchDirty redraws the panes that may show a fetch's state.
func (m *model) fetchDirty() {
	m.source.Invalidate()
	m.kubeSrc.Invalidate()
}

// waitFetchEnd waits (bounded) for a fetch that Run's end cancelled, so that no go command
// outlives the program.
func (m *model) waitFetchEnd() { m.fetch.Wait() }
