package tui

import (
	"context"
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui/glossary"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// Minimum window size for the full layout.
const (
	MinWidth  = 80
	MinHeight = 24
	// wideWidth is where the layout switches from stacked to side by side.
	wideWidth = tour.WideWidth
	// headerLines are the chain, the checkpoint title and the status line; one more line at
	// the bottom holds the help bar.
	headerLines = 3
)

// Model is the walkthrough screen, a tea.Model. Create it with NewModel.
type Model struct{ m *model }

// model holds the screen's state; Model wraps a pointer so that bubbletea's value copies share
// one state and the panes' caches. It routes: the window, the global keys, the : command line,
// the overlays (welcome, ?, info boxes, toasts) and the view on screen; the walkthrough itself
// is runtime/tui/tour.
type model struct {
	inReport bool // swallowing a late terminal report (see lateReport)
	keys     KeyMap
	st       *Styles
	tr       *i18n.Strings
	help     help.Model
	done     <-chan struct{} // closed when Run's context ends; nil waits forever

	w, h int
	lay  layout
	note string // a one-off remark in the status line, cleared by the next key

	showHelp bool
	// helpOffset scrolls the ? overlay when the window is too small for it.
	helpOffset int
	zoom       bool   // z: the focused pane takes the whole body (zoom.go)
	zoomedOn   string // the view the zoom was laid out for
	welcome    bool   // the first-run welcome is shown
	onWelcome  func() // called when it is dismissed

	at     viewID             // the view shown
	cancel context.CancelFunc // ends the views' background work (shutdown)

	prompt *cmdline.Prompt // the : command line over its table (cmdline.go)
	info   *infoBox

	// views are the screens in their own packages (runtime/tui/<view>), behind the view
	// contract; the root routes to the one shown (m.at) and never reads their fields.
	views map[viewID]view.View

	// The toasts of the exercises that ticked (exercises.ToastMsg), shown until the next key.
	toasts []exercises.Toast

	// The walkthrough (runtime/tui/tour), also views[viewTour]: the header, the status line
	// and the help bar ask it what the server does.
	tour *tour.Model

	// The follow-along class (runtime/tui/class, classview.go), also the board view; inert
	// without one.
	cls classView
}

// NewModel builds the screen for an engine that has been (or is about to be) started. srv
// feeds the after-serve panel; content supplies the lessons and their source (nil shows none).
func NewModel(eng Engine, srv ServerInfo, content Content, opts Options) Model {
	st := opts.Styles
	if st == nil {
		st = DefaultStyles()
	}
	tr := i18n.For(uiLang(opts.Lang, content))
	keys := NewKeyMap(tr)
	if opts.KeyMap != nil {
		keys = *opts.KeyMap
	}
	if lc, ok := content.(*LessonContent); content == nil || (ok && lc == nil) {
		content = noContent{tr: tr}
	}
	h := help.New()
	h.Styles = st.Help
	ctx, cancel := context.WithCancel(context.Background())
	m := &model{
		keys: keys, st: st, tr: tr, help: h,
		welcome: opts.ShowWelcome, onWelcome: opts.OnWelcomeDismissed,
		cancel: cancel,
	}
	if opts.Auto > 0 {
		m.welcome = false // nobody would dismiss it: the demo runs on its own
	}
	if opts.Follow != nil {
		// A student's server follows the instructor from the start: the welcome would hide
		// it moving. Its keys (space, ←, ?) are in the key bar, and the class lines say that
		// the student follows and how to stop. It is not marked seen: a tour of the student's
		// own shows it.
		m.welcome = false
	}
	c := common.Common{Styles: st, Tr: tr, Scroll: common.ScrollKeys{
		Up: keys.Up, Down: keys.Down, PageUp: keys.PageUp, PageDown: keys.PageDown, Top: keys.Top, Bottom: keys.Bottom}}
	m.tour = newTour(m, c, eng, srv, content, opts, ctx)
	m.views = map[viewID]view.View{
		viewTour:     m.tour,
		viewEtcd:     etcd.New(c, opts.Etcd, ctx),
		viewGlossary: glossary.New(c),
		viewExercises: exercises.New(c, opts.Exercises, exercises.Env{Where: m.tour.At,
			Done: func() <-chan struct{} { return m.done }, Stop: ctx.Done()}),
		viewKubectl:  kubectlview.New(c, m.kubectlOptions(ctx, srv, opts)),
		viewRequests: newRequests(m, c, ctx, srv, content, opts),
	}
	m.cls = newClass(m, c, opts, ctx, m.exView())
	m.views[viewBoard] = m.cls
	m.prompt = cmdline.NewPrompt(cmdline.New(tr, m.commands(srv, opts.Breakpoints)...))
	return Model{m: m}
}

// shutdown stops what the views run in the background: the kubectl view's commands (its Close
// waits, bounded, for each to return, then closes the kubectl runner), the trace subscription
// and the etcd watch. Run calls it once the program has ended.
func (m *model) shutdown() error {
	m.cancel()
	m.tour.Close() // a fetch that Run's end cancelled: no go command outlives the program
	err := m.kc().Close()
	m.rqv().Close()
	return err
}

// Init starts listening for engine events and, when there is a trace store or exercises, for
// their changes.
func (m Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	for id := viewTour; id <= viewBoard; id++ { // the engine's waiter first, as always
		if v, ok := m.m.views[id]; ok {
			cmds = append(cmds, v.Init())
		}
	}
	return tea.Batch(cmds...)
}

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.m.update(msg)
	m.m.takeNotes()
	m.m.syncZoom()
	return m, cmd
}

// View renders the whole screen: never taller or wider than the window.
func (m Model) View() string { return m.m.view() }

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case tour.EventMsg:
		// The walkthrough moves first; the exercises view then puts the lesson on screen
		// first, and every view hears that the server moved.
		cmd := m.tour.Update(msg)
		m.syncCurrent()
		ev := msg.Ev
		return tea.Batch(cmd, m.forward(view.ServerMsg{Paused: ev.Paused != nil, Served: ev.Served, Failed: ev.Failed != nil}))
	case tea.KeyMsg:
		cmd := m.key(msg)
		m.classSeen()
		return cmd
	case tea.MouseMsg:
		return m.mouse(msg)
	default:
		return m.viewMsg(msg)
	}
	return nil
}

// viewMsg handles the after-serve views' messages.
func (m *model) viewMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case exercises.ToastMsg:
		m.toasts = append(m.toasts, msg...)
	case exercises.ChangedMsg:
		m.classSeen()
	case requests.ShowMsg:
		m.showHelp, m.info = false, nil
		m.at = viewRequests
		m.note = msg.Note
	case breakListMsg:
		lines := []string{m.tr.BreakListIntro, ""}
		if len(msg.specs) == 0 {
			lines = append(lines, m.tr.BreakListNone)
		}
		for _, s := range msg.specs {
			lines = append(lines, "  ⏸ "+s)
		}
		if n := m.rqv().HeldCount(); n > 0 {
			lines = append(lines, "", fmt.Sprintf(m.tr.BreakListHeld, n))
		}
		m.info = &infoBox{title: m.tr.BreakListTitle, lines: lines}
		return m.loadNow() // the view's breakpoints (the completer's) as listed
	case breakSetMsg:
		if msg.err != nil {
			m.prompt.Reopen(msg.line, oneLine(msg.err.Error()))
			return nil
		}
		if msg.remove {
			m.note = fmt.Sprintf(m.tr.NoteBreakRemoved, msg.spec)
		} else {
			m.note = fmt.Sprintf(m.tr.NoteBreakSet, msg.spec)
		}
		return m.loadNow()
	case etcd.OpenKeyMsg:
		m.at = viewEtcd
		return m.views[viewEtcd].Update(msg)
	case view.NoteMsg:
		m.note = string(msg)
	default:
		return m.forward(msg)
	}
	return nil
}

// capturing is the active view when it holds a text box that sees keys before the global
// ones (view.Capturer).
func (m *model) capturing() (view.View, bool) {
	v, ok := m.views[m.at]
	if !ok {
		return nil, false
	}
	c, ok := v.(view.Capturer)
	return v, ok && c.Capturing()
}

// forward hands a message the root does not know to every view: each view's messages are
// defined in its own package, and a view ignores what is not its own. The views are asked in a
// fixed order (by viewID), so their commands batch the same way every run.
func (m *model) forward(msg tea.Msg) tea.Cmd {
	ids := make([]viewID, 0, len(m.views))
	for id := range m.views {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	cmds := make([]tea.Cmd, 0, len(ids))
	for _, id := range ids {
		cmds = append(cmds, m.views[id].Update(msg))
	}
	return tea.Batch(cmds...)
}

// takeNotes sets the status note to what a view said while the message was handled
// (view.Noter), in viewID order, so a view's notes keep the order it said them in.
func (m *model) takeNotes() {
	for id := viewTour; id <= viewBoard; id++ { // every viewID, without allocating per message
		if n, ok := m.views[id].(view.Noter); ok {
			if s, ok := n.Note(); ok {
				m.note = s
			}
		}
	}
}

// key handles a key press.
func (m *model) key(msg tea.KeyMsg) tea.Cmd {
	if m.lateReport(msg) {
		return nil
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.typingLine() {
		// Keys that arrive in one read (typed fast over SSH, or on a busy machine) come as one
		// KeyRunes, which matches no binding: outside a text line each is a key of its own.
		var cmds []tea.Cmd
		for _, r := range msg.Runes {
			cmds = append(cmds, m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}}))
		}
		return tea.Batch(cmds...)
	}
	k := m.keys
	m.note = ""
	if _, typing := m.capturing(); !m.prompt.IsOpen() && !typing {
		// A key closes the toast, but not one typed into a line: the learner may not have
		// looked up yet (and the command line covers the toast).
		m.toasts = nil
	}
	if msg.Type == tea.KeyCtrlC {
		return tea.Quit
	}
	// A walkthrough that runs on its own hands over to the learner: this key does what it
	// always does.
	m.tour.TakeOver()
	if m.lay.small {
		if key.Matches(msg, k.Quit) {
			return tea.Quit
		}
		return nil
	}
	if m.welcome {
		if key.Matches(msg, k.Quit) {
			return tea.Quit
		}
		m.dismissWelcome()
		return nil
	}
	if m.prompt.IsOpen() {
		return m.promptKey(msg)
	}
	if v, ok := m.capturing(); ok {
		return v.Update(msg)
	}
	if m.info != nil {
		if key.Matches(msg, k.Quit) {
			return tea.Quit
		}
		m.info = nil
		return nil
	}
	if m.at == viewTour && m.tour.Typing() {
		return m.tour.Update(msg) // the source pane's search line
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Quit):
			return tea.Quit
		case common.ScrollKeyOf(msg, common.ScrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown}, helpScroll{m}):
		default:
			m.showHelp = false // any other key (home and end too) closes it
		}
		return nil
	}
	if key.Matches(msg, k.Command) {
		m.prompt.Open()
		return nil
	}
	if cmd, ok := m.classKey(msg); ok {
		return cmd
	}
	if key.Matches(msg, k.Zoom) {
		m.toggleZoom()
		return nil
	}
	return m.viewKey(msg)
}

// helpScroll scrolls the ? overlay: a line, or half the body a page.
type helpScroll struct{ m *model }

func (h helpScroll) Scroll(n int) { h.m.helpOffset = max(h.m.helpOffset+n, 0) } // the view clamps the other end
func (h helpScroll) Page() int    { return h.m.lay.body.h / 2 }

// dismissWelcome closes the welcome for good.
func (m *model) dismissWelcome() {
	m.welcome = false
	if m.onWelcome != nil {
		m.onWelcome()
		m.onWelcome = nil
	}
}

// typingLine reports whether keys go into a line of text: the command line, an answer, a
// search or the requests filter.
func (m *model) typingLine() bool {
	if _, ok := m.capturing(); ok {
		return true
	}
	return m.prompt.IsOpen() || (m.at == viewTour && m.tour.Typing())
}

// mouse hands a press to the view on screen, relative to the body's corner: the wheel scrolls
// and a click focuses a pane.
func (m *model) mouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action == tea.MouseActionPress {
		m.tour.TakeOver() // a click or the wheel takes over, as a key does
	}
	if m.lay.small || m.showHelp || m.welcome || m.prompt.IsOpen() || m.info != nil || msg.Action != tea.MouseActionPress {
		return nil
	}
	if m.zoom && msg.Button == tea.MouseButtonLeft {
		return nil // one pane fills the body: a click picks nothing else
	}
	if v, ok := m.views[m.at]; ok {
		msg.X, msg.Y = msg.X-m.lay.body.x, msg.Y-m.lay.body.y
		return v.Update(msg)
	}
	return nil
}
