package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

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

// layoutViews lays the moved views out for the body before they are first drawn: the Requests
// view sizes its panes now, so that code resolved for a held request that takes the screen
// scrolls to its focus in a pane of its final size. The others lay out as they draw.
func (m *model) layoutViews() {
	m.rqv().Layout(m.lay.body.w, m.lay.body.h)
}

// viewBody renders the body of an after-serve view.
func (m *model) viewBody() []string {
	if v, ok := m.views[m.at]; ok {
		if z, ok := v.(view.Zoomer); ok && m.zoom {
			return z.ZoomView(m.lay.body.w, m.lay.body.h)
		}
		return v.View(m.lay.body.w, m.lay.body.h)
	}
	switch m.at {
	case viewBoard:
		return m.boardBody()
	}
	return nil
}

// viewTitle is the second header line of an after-serve view.
func (m *model) viewTitle() string {
	st := m.st
	var left, right string
	if v, ok := m.views[m.at]; ok {
		left, right = v.Title()
	}
	switch m.at {
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
	if v, ok := m.capturing(); ok {
		// Every other key is typed into the view's text box, q and : too: its keys alone.
		return v.Keys()
	}
	out := []key.Binding{b(":", tr.BarCommand)}
	if v, ok := m.views[m.at]; ok {
		out = append(out, v.Keys()...)
		if _, ok := v.(view.Zoomer); ok {
			out = append(out, m.zoomBinding())
		}
	}
	switch m.at {
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
	case viewBoard:
		return m.boardKey(msg)
	}
	return nil
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

// kubectlLine runs `:kubectl ARGS` in the kubectl view (no ARGS shows it with the last
// command), or says why the line cannot run.
func (m *model) kubectlLine(rest string) (tea.Cmd, string) {
	cmd, problem := m.kc().Line(rest)
	if problem == "" {
		m.at = viewKubectl
	}
	return cmd, problem
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
