package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tui/view"
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
	return nil
}

// viewTitle is the second header line of an after-serve view.
func (m *model) viewTitle() string {
	st := m.st
	var left, right string
	if v, ok := m.views[m.at]; ok {
		left, right = v.Title()
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
	return append(out, k.Help, k.Quit)
}

// viewKey handles a key in the view on screen: q and ? are the root's; K in an after-serve view
// goes back to the walkthrough, on its after-serve panel.
func (m *model) viewKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp, m.helpOffset = true, 0
		return nil
	case m.at != viewTour && key.Matches(msg, k.Served):
		m.at = viewTour
		m.tour.ShowServed()
		return nil
	}
	if v, ok := m.views[m.at]; ok {
		return v.Update(msg)
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

// runLine runs a command line from the table (cmdline.go). It returns the reason it could not
// run (the line stays in the prompt then) or "".
func (m *model) runLine(line string) (tea.Cmd, string) {
	a := m.prompt.Table().Run(line)
	return a.Cmd, a.Problem
}

// promptKey handles a key while the command line is open.
func (m *model) promptKey(msg tea.KeyMsg) tea.Cmd {
	run, _ := m.prompt.Key(msg)
	if !run {
		return nil
	}
	line := m.prompt.Line()
	cmd, problem := m.runLine(line)
	if problem != "" {
		m.prompt.Fail(problem)
		return nil
	}
	m.prompt.Ran(line)
	return cmd
}
