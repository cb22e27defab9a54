package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// viewID names what the body shows: the walkthrough's panes, or one of the after-serve views
// the : command line opens.
type viewID int

const (
	viewTour viewID = iota
	viewRequests
	viewKubectl
	viewEtcd
	viewGlossary
	viewExercises
	viewBoard
)

func (v viewID) String() string {
	return [...]string{"walkthrough", "Requests", "kubectl", "etcd", "glossary", "exercises", "board"}[v]
}

// viewRects are where the after-serve views' panes go.
type viewRects struct {
	kcOut, kcReqs rect
}

// layoutViews places the after-serve views' panes in the body.
func (m *model) layoutViews() {
	b := m.lay.body
	var r viewRects
	if m.lay.wide {
		outW := b.w * 60 / 100
		r.kcOut = rect{0, b.y, outW, b.h}
		r.kcReqs = rect{outW, b.y, b.w - outW, b.h}
	} else {
		outH := b.h * 60 / 100
		r.kcOut = rect{0, b.y, b.w, outH}
		r.kcReqs = rect{0, b.y + outH, b.w, b.h - outH}
	}
	if m.zoom {
		m.zoomViews(&r)
	}
	m.vr = r
	m.rqv().Layout(m.lay.body.w, m.lay.body.h)
	m.kc.SetSize(r.kcOut, r.kcReqs)
	m.applyViewFocus()
}

// applyViewFocus tells the views' panes who is focused and sets the stacked layout's tab bar.
func (m *model) applyViewFocus() {
	m.kc.out.SetFocused(m.kc.focus == kcOutput)
	m.kc.reqs.SetFocused(m.kc.focus == kcRequests)
}

// viewBody renders the body of an after-serve view.
func (m *model) viewBody() []string {
	if m.zoom {
		if body := m.zoomedViewBody(); body != nil {
			return body
		}
	}
	if v, ok := m.views[m.at]; ok {
		if z, ok := v.(view.Zoomer); ok && m.zoom {
			return z.ZoomView(m.lay.body.w, m.lay.body.h)
		}
		return v.View(m.lay.body.w, m.lay.body.h)
	}
	switch m.at {
	case viewKubectl:
		if m.lay.wide {
			return joinColumns(m.kc.out.View(), m.kc.reqs.View())
		}
		return append(append([]string{}, m.kc.out.View()...), m.kc.reqs.View()...)
	case viewBoard:
		return m.boardBody()
	}
	return nil
}

// viewTitle is the second header line of an after-serve view.
func (m *model) viewTitle() string {
	st, tr := m.st, m.tr
	var left, right string
	if v, ok := m.views[m.at]; ok {
		left, right = v.Title()
	}
	switch m.at {
	case viewKubectl:
		left = tr.ViewKubectlTitle
		right = tr.ViewKubectlHint
	case viewBoard:
		left, right = m.boardTitle()
	}
	l := st.Chain.Checkpoint.Render(left)
	room := m.w - ansi.StringWidth(right) - 2
	if room < 20 {
		return l
	}
	return fit(l, room) + "  " + st.Status.Note.Render(right)
}

// viewHelp is the help bar of an after-serve view.
func (m *model) viewHelp() []key.Binding {
	k, tr := m.keys, m.tr
	b := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	if m.at == viewKubectl && m.kc.Editing() {
		// Every other key is typed into the text box, q and : too.
		return []key.Binding{b("ctrl+d", tr.BarRunManifest), b("esc", tr.BarPutAway), b("ctrl+c", tr.BarQuitAll)}
	}
	out := []key.Binding{b(":", tr.BarCommand)}
	if v, ok := m.views[m.at]; ok {
		out = append(out, v.Keys()...)
		if _, ok := v.(view.Zoomer); ok {
			out = append(out, m.zoomBinding())
		}
	}
	switch m.at {
	case viewKubectl:
		if m.kc.running || m.kc.bg != nil {
			out = append(out, b("esc", tr.BarStop))
		}
		out = append(out, k.FocusNext, m.zoomBinding(), b("↑/↓", tr.BarScroll))
		if m.kc.focus == kcRequests {
			out = append(out, b("enter", tr.BarOpenLane))
		}
	case viewBoard:
		out = append(out, b("B", tr.BarBoardBack), b(":msg", tr.BarMsg), b("↑/↓", tr.BarScroll))
	}
	return append(out, k.Help, k.Quit)
}

// viewKey handles a key in an after-serve view.
func (m *model) viewKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp, m.helpOffset = true, 0
		return nil
	case key.Matches(msg, k.Served):
		m.at = viewTour
		if m.served && m.tab != paneServed {
			m.toggleServed()
		}
		return nil
	}
	if v, ok := m.views[m.at]; ok {
		return v.Update(msg)
	}
	switch m.at {
	case viewKubectl:
		return m.kubectlKey(msg)
	case viewBoard:
		return m.boardKey(msg)
	}
	return nil
}

// kubectlKey handles a key in the kubectl view.
func (m *model) kubectlKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	kc := m.kc
	switch {
	case msg.Type == tea.KeyEsc:
		switch {
		case kc.running:
			kc.run.cancel()
			m.note = m.tr.NoteStoppingKubectl
		case kc.bg != nil:
			kc.bg.cancel()
			m.note = m.tr.NoteStoppingKubectl
		}
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		kc.focus = 1 - kc.focus
		m.applyViewFocus()
	case kc.focus == kcRequests && msg.Type == tea.KeyEnter:
		id := kc.Selected()
		if id == "" || m.reqs == nil {
			m.note = m.tr.NoteNoLane
			return nil
		}
		return m.openTrace(id)
	case kc.focus == kcRequests && (key.Matches(msg, k.Up) || key.Matches(msg, k.Down)):
		d := 1
		if key.Matches(msg, k.Up) {
			d = -1
		}
		kc.MoveRequest(d)
	default:
		p := kc.out
		if kc.focus == kcRequests {
			p = kc.reqs
		}
		switch {
		case key.Matches(msg, k.Up):
			p.Scroll(-1)
		case key.Matches(msg, k.Down):
			p.Scroll(1)
		case key.Matches(msg, k.PageUp):
			p.Scroll(-p.Page())
		case key.Matches(msg, k.PageDown):
			p.Scroll(p.Page())
		case key.Matches(msg, k.Top):
			p.Top()
		case key.Matches(msg, k.Bottom):
			p.Scroll(1 << 30)
		}
	}
	return nil
}

// openTrace shows a trace in the Requests view.
func (m *model) openTrace(id string) tea.Cmd {
	m.at = viewRequests
	return m.rqv().Update(requests.OpenMsg{ID: id})
}

// Messages of the : break commands.
type (
	breakListMsg struct{ specs []string }
	breakSetMsg  struct {
		line, spec string
		remove     bool
		err        error
	}
)

// infoBox is a box of lines shown over the body until a key closes it.
type infoBox struct {
	title string
	lines []string
}

// runLine runs a command line. It returns the reason it could not run (the line stays in the
// prompt then) or "".
func (m *model) runLine(line string) (tea.Cmd, string) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	if line == "" {
		return nil, ""
	}
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	c, ok := lookupCommand(name)
	if !ok {
		return nil, fmt.Sprintf(m.tr.CmdUnknown, name)
	}
	if rest != "" && c.args == "" {
		return nil, fmt.Sprintf(m.tr.CmdNoArgs, c.name)
	}
	switch c.name {
	case "requests":
		if rest != "" && rest != "all" {
			return nil, m.tr.CmdRequestsArg
		}
		m.at = viewRequests
		return m.rqv().Update(requests.ListMsg{All: rest == "all"}), ""
	case "kubectl":
		return m.kubectlLine(rest)
	case "etcd":
		return m.viewMsg(etcd.OpenKeyMsg{}), ""
	case "break", "unbreak":
		if m.bps == nil {
			m.note = m.tr.NoteBreakNotWired
			return nil, ""
		}
		bps := m.bps
		if rest == "" {
			if c.name == "unbreak" {
				return nil, m.tr.CmdUnbreakWhich
			}
			return func() tea.Msg { return breakListMsg{specs: bps.List()} }, ""
		}
		remove := c.name == "unbreak"
		return func() tea.Msg {
			var err error
			if remove {
				err = bps.Remove(rest)
			} else {
				err = bps.Add(rest)
			}
			return breakSetMsg{line: line, spec: rest, remove: remove, err: err}
		}, ""
	case "clear":
		m.at = viewRequests
		m.note = m.tr.NoteCleared
		return m.rqv().Update(requests.ClearMsg{}), ""
	case "lesson":
		m.at = viewTour
	case "track":
		m.at = viewTour
		return m.trackCommand(strings.Fields(rest))
	case "glossary":
		m.at = viewGlossary
	case "exercises":
		m.at = viewExercises
		m.syncCurrent()
	case "board":
		if m.cls == nil || m.cls.host == nil {
			return nil, m.tr.BoardNotHost
		}
		m.at = viewBoard
	case "msg":
		return m.msgLine(rest)
	case "assign":
		return m.assignLine(rest)
	case "help":
		m.info = commandsHelp(m.st, m.tr, m.cls != nil && m.cls.host != nil)
	case "quit":
		return tea.Quit, ""
	}
	return nil, ""
}

// kubectlLine runs `:kubectl ARGS` (no ARGS shows the pane with the last command).
func (m *model) kubectlLine(rest string) (tea.Cmd, string) {
	if rest == "" {
		m.at = viewKubectl
		return nil, ""
	}
	args, err := kubectl.Split(rest)
	if err != nil {
		var pe *kubectl.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Sprintf(m.tr.CmdColumn, pe.Col+len(":k "), pe.MsgIn(m.tr))
		}
		return nil, err.Error()
	}
	if len(args) > 0 && args[0] == "kubectl" {
		args = args[1:]
	}
	if why := m.kubectlBusy(); why != "" {
		return nil, why
	}
	m.at = viewKubectl
	m.kc.focus = kcOutput
	m.applyViewFocus()
	// What the server answers is the server's own state, not how far the walkthrough has
	// gone: paused at serve/kubeconfig (a student following an instructor who ran to the end
	// stopped there), the server serves and its kubeconfig is written.
	status := server.NotListening
	if m.srv != nil {
		status = m.srv.ServeStatus()
	}
	switch {
	case m.srv == nil || status == server.NotListening:
		m.kc.Notice(rest, args,
			m.st.Served.Failing.Render(m.tr.KubectlNotServing),
			m.tr.KubectlRunToEnd)
		return nil, ""
	case status == server.Listening:
		m.kc.Notice(rest, args, m.tr.KubectlNoKubeconfigYet, m.tr.KubectlRunToEnd)
		return nil, ""
	case status == server.Stopped:
		m.kc.Notice(rest, args, m.st.Served.Failing.Render(m.tr.KubectlServerStopped))
		return nil, ""
	case m.kube == nil:
		m.kc.Notice(rest, args, m.tr.KubectlNotWired,
			"  KUBECONFIG="+m.srv.Kubeconfig()+" kubectl "+kubectl.Quote(args))
		return nil, ""
	}
	if kubectl.ReadsStdin(args) {
		return m.kc.OpenBox(rest, args), ""
	}
	return m.startKubectl(rest, args, "", false), ""
}

// kubectlBusy says why no kubectl command may start now ("" if one may): one runs that has
// no watch open yet, or one runs beside already.
func (m *model) kubectlBusy() string {
	switch {
	case m.kc.CanStart():
		return ""
	case m.kc.bg != nil && m.kc.run.watchOpen():
		return fmt.Sprintf(m.tr.CmdKubectlBesideBusy, kubectl.Quote(m.kc.bg.args))
	}
	return fmt.Sprintf(m.tr.CmdKubectlRunning, kubectl.Quote(m.kc.run.args))
}

// startKubectl runs a kubectl command line in the pane, with input as its standard input when
// hasInput (the text box's manifest). A command running with its watch open goes on beside it.
func (m *model) startKubectl(line string, args []string, input string, hasInput bool) tea.Cmd {
	if why := m.kubectlBusy(); why != "" {
		m.note = why
		return nil
	}
	if m.kc.running {
		m.note = fmt.Sprintf(m.tr.NoteKubectlBeside, kubectl.Quote(m.kc.run.args))
	}
	ctx, cancel := context.WithCancel(m.ctx)
	run := newKcRun(line, args, cancel)
	run.input, run.hasInput = input, hasInput
	m.kc.wired = m.reqs != nil
	m.kc.Start(run)
	return tea.Batch(runKubectl(m.kube, m.srv.Kubeconfig(), run, ctx), waitOutput(run))
}

// boxKey handles a key while the text box for `-f -` is open: ctrl+d runs the command with the
// manifest, esc puts the box away, anything else is typed into it.
func (m *model) boxKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyCtrlD:
		line, args, manifest := m.kc.CloseBox()
		if strings.TrimSpace(manifest) == "" {
			m.note = m.tr.KubectlBoxEmpty
			return nil
		}
		return m.startKubectl(line, args, manifest, true)
	case tea.KeyEsc:
		m.kc.CloseBox()
		m.note = m.tr.KubectlBoxCancelled
		return nil
	}
	return m.kc.BoxKey(msg)
}

// completer is what the command line's suggestions draw on now.
func (m *model) completer() completer {
	c := completer{tr: m.tr, breakpoints: m.rqv().Breakpoints(), host: m.cls != nil && m.cls.host != nil}
	seen := map[string]bool{}
	if m.srv != nil && m.srv.ServeStatus() == server.Serving {
		for _, id := range m.srv.Identities() {
			c.contexts = append(c.contexts, id.Context)
			if !seen[id.User] {
				seen[id.User] = true
				c.users = append(c.users, id.User)
			}
		}
	}
	if len(c.contexts) == 0 {
		c.contexts = []string{"admin", "alice", "bob"}
	}
	c.contexts = append(c.contexts, server.ContextAnonymous, server.ContextBadToken)
	if c.host {
		for _, e := range m.exView().All() {
			c.exercises = append(c.exercises, suggestion{text: e.ID, desc: e.Title})
		}
	}
	for _, u := range []string{"alice", "bob", "system:apiserver"} {
		if !seen[u] {
			c.users = append(c.users, u)
		}
	}
	return c
}

// promptKey handles a key while the command line is open.
func (m *model) promptKey(msg tea.KeyMsg) tea.Cmd {
	run, _ := m.prompt.Key(msg, m.completer())
	if !run {
		return nil
	}
	line := m.prompt.Line()
	cmd, problem := m.runLine(line)
	if problem != "" {
		m.prompt.err = problem
		return nil
	}
	m.prompt.hist.Add(strings.TrimSpace(line))
	m.prompt.Close()
	return cmd
}

// viewMouse handles the mouse in an after-serve view: the wheel scrolls the pane under it
// (focusing it), a click focuses.
func (m *model) viewMouse(msg tea.MouseMsg) {
	r := m.vr
	type target struct {
		at    rect
		focus func()
	}
	var ts []target
	switch m.at {
	case viewKubectl:
		ts = []target{{r.kcOut, func() { m.kc.focus = kcOutput }}, {r.kcReqs, func() { m.kc.focus = kcRequests }}}
	}
	for _, t := range ts {
		if t.at.contains(msg.X, msg.Y) {
			t.focus()
			m.applyViewFocus()
			break
		}
	}
	n := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		n = -3
	case tea.MouseButtonWheelDown:
		n = 3
	default:
		return
	}
	switch m.at {
	case viewKubectl:
		if m.kc.focus == kcOutput {
			m.kc.out.Scroll(n)
		} else {
			m.kc.reqs.Scroll(n)
		}
	}
}
