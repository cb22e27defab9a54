package tui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui/glossary"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

// Minimum window size for the full layout.
const (
	MinWidth  = 80
	MinHeight = 24
	// wideWidth is where the layout switches from stacked to side by side.
	wideWidth = 120
	// headerLines are the chain, the checkpoint title and the status line; one more line at
	// the bottom holds the help bar.
	headerLines = 3
)

// paneID names a pane.
type paneID int

const (
	paneSource paneID = iota
	paneState
	paneLesson
	paneServed
)

// name is the pane's name in the title and the tab bar.
func (p paneID) name(tr *i18n.Strings) string {
	return [...]string{tr.PaneSource, tr.PaneState, tr.PaneLesson, tr.PaneKubectl}[p]
}

// Model is the walkthrough screen, a tea.Model. Create it with NewModel.
type Model struct{ m *model }

// model holds the screen's state; Model wraps a pointer so that bubbletea's value copies share
// one state and the panes' caches.
type model struct {
	inReport bool // swallowing a late terminal report (see lateReport)
	eng      Engine
	srv      ServerInfo
	content  Content
	keys     KeyMap
	st       *Styles
	tr       *i18n.Strings
	help     help.Model
	done     <-chan struct{} // closed when Run's context ends; nil waits forever
	now      func() time.Time

	w, h int
	lay  layout

	history []engine.Stop // every stop so far (engine.Stops), oldest first
	review  int           // index into history being reviewed, -1 when live
	shown   int           // index into history on screen, -1 before the first stop
	running bool          // Continue was sent; waiting for the next event
	target  string        // what the server is running to, for the status line
	served  bool
	failed  error
	note    string // a one-off remark in the status line, cleared by the next key

	// auto is the pause at each checkpoint when the walkthrough runs on its own (Options.Auto),
	// 0 once a key took over; autoGen tells the current pause's timer from older ones, and
	// autoArmed says one is running.
	auto       time.Duration
	autoGen    int
	autoArmed  bool
	autoCancel chan struct{} // closed to end the running timer early

	focus    paneID
	tab      paneID // the pane shown in the shared (tabbed) place
	showHelp bool
	// helpOffset scrolls the ? overlay when the window is too small for it.
	helpOffset int
	zoom       bool   // z: the focused pane takes the whole body (zoom.go)
	zoomedOn   string // the view and pane the zoom was laid out for
	welcome    bool   // the first-run welcome is shown
	onWelcome  func() // called when it is dismissed
	// lessonForReview is set when reviewing put the lesson in place of the kubectl panel;
	// going back to live brings the panel back.
	lessonForReview bool

	source *source.Pane
	state  *walk.State
	lesson *walk.Lesson
	kubect *walk.Served

	readyClient *http.Client
	polling     bool

	// The after-serve views and what they read.
	at     viewID // the view shown
	reqs   Requests
	bps    Breakpoints
	ctx    context.Context
	cancel context.CancelFunc // ends the views' background work (shutdown)

	prompt *cmdline.Prompt // the : command line over its table (cmdline.go)
	info   *infoBox

	// views are the screens moved into their own packages (runtime/tui/<view>), behind the
	// view contract; the root routes to the one shown (m.at) and never reads their fields.
	views map[viewID]view.View

	// The toasts of the exercises that ticked (exercises.ToastMsg), shown until the next key.
	toasts []exercises.Toast

	// The after-serve track (track.go): its steps, the one on screen (-1: none) and the one
	// last shown; the probes' results and those running.
	track     []Step
	trackAt   int
	trackLast int
	probe     Probe
	probes    map[string]probeResult
	probing   map[string]bool
	progress  func(lessonID, stepID string)

	// kube-apiserver side by side (side.go): open or not, which side has focus (0 ours, 1
	// kube-apiserver's), the kube pane, the downloads, and whether k8s.io/apiserver is missing.
	side      bool
	sideFocus int
	kubeSrc   *source.Pane
	fetch     *source.Fetches
	upMissing *MissingModuleError

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
		eng: eng, srv: srv, content: content, keys: keys, st: st, tr: tr, help: h,
		now:    time.Now,
		review: -1, shown: -1,
		focus: paneSource, tab: paneLesson,
		welcome: opts.ShowWelcome, onWelcome: opts.OnWelcomeDismissed,
		state:  walk.NewState(common.Common{Styles: st, Tr: tr}),
		lesson: walk.NewLesson(common.Common{Styles: st, Tr: tr}, opts.GlamourStyle),
		kubect: walk.NewServed(common.Common{Styles: st, Tr: tr}),

		reqs: opts.Requests, bps: opts.Breakpoints,
		ctx: ctx, cancel: cancel,
		auto: max(opts.Auto, 0),
	}
	if m.auto > 0 {
		m.welcome = false // nobody would dismiss it: the demo runs on its own
	}
	if opts.Follow != nil {
		// A student's server follows the instructor from the start: the welcome would hide
		// it moving. Its keys (space, ←, ?) are in the key bar, and the class lines say that
		// the student follows and how to stop. It is not marked seen: a tour of the student's
		// own shows it.
		m.welcome = false
	}
	if t, ok := content.(Track); ok {
		m.track = t.TrackSteps()
	}
	m.trackAt = -1
	m.probe, m.progress = opts.Probe, opts.Progress
	m.probes, m.probing = map[string]probeResult{}, map[string]bool{}
	m.fetch = source.NewFetches(tr, opts.NoFetch, opts.Fetch)
	m.source = source.New(common.Common{Styles: st, Tr: tr}, content, source.Options{Fetches: m.fetch})
	m.kubeSrc = source.New(common.Common{Styles: st, Tr: tr}, content, source.Options{Kube: true, Fetches: m.fetch})
	c := common.Common{Styles: st, Tr: tr, Scroll: common.ScrollKeys{
		Up: keys.Up, Down: keys.Down, PageUp: keys.PageUp, PageDown: keys.PageDown, Top: keys.Top, Bottom: keys.Bottom}}
	m.views = map[viewID]view.View{
		viewEtcd:     etcd.New(c, opts.Etcd, ctx),
		viewGlossary: glossary.New(c),
		viewExercises: exercises.New(c, opts.Exercises, exercises.Env{Where: m.where,
			Done: func() <-chan struct{} { return m.done }, Stop: ctx.Done()}),
		viewKubectl:  kubectlview.New(c, m.kubectlOptions(opts)),
		viewRequests: newRequests(m, c, content),
	}
	m.cls = newClass(m, c, opts, m.exView())
	m.views[viewBoard] = m.cls
	m.prompt = cmdline.NewPrompt(cmdline.New(tr, m.commands()...))
	m.applyFocus()
	return Model{m: m}
}

// autoWait starts the auto pause at the checkpoint just reached, when the walkthrough runs on
// its own.
func (m *model) autoWait() tea.Cmd {
	if m.auto <= 0 {
		return nil
	}
	m.disarmAuto()
	m.autoGen++
	m.autoArmed = true
	gen, d, cancel, done := m.autoGen, m.auto, make(chan struct{}), m.done
	m.autoCancel = cancel
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return autoMsg{gen: gen}
		case <-cancel:
		case <-done:
		}
		return nil
	}
}

// disarmAuto ends the auto pause's timer, if one runs; a message it already sent is stale.
func (m *model) disarmAuto() {
	if m.autoCancel != nil {
		close(m.autoCancel)
		m.autoCancel = nil
	}
	m.autoArmed = false
	m.autoGen++
}

// autoNext continues to the next checkpoint when the auto pause at the current one is over,
// unless a key took over meanwhile (or the server cannot move: it serves or failed).
func (m *model) autoNext(msg autoMsg) tea.Cmd {
	if msg.gen != m.autoGen {
		return nil
	}
	m.disarmAuto()
	if m.auto <= 0 || m.running || m.served || m.failed != nil {
		return nil
	}
	return m.resume(engine.NextCheckpoint(), m.tr.TargetNextCheckpoint)
}

// stopAuto hands the walkthrough back to the learner and says so in the status line.
func (m *model) stopAuto() {
	m.auto = 0
	m.disarmAuto()
	m.note = m.tr.NoteAutoOff
}

// shutdown stops what the views run in the background: the kubectl view's commands (its Close
// waits, bounded, for each to return, then closes the kubectl runner), the trace subscription
// and the etcd watch. Run calls it once the program has ended.
func (m *model) shutdown() error {
	m.cancel()
	m.waitFetchEnd()
	err := m.kc().Close()
	m.rqv().Close()
	return err
}

// Init starts listening for engine events and, when there is a trace store or exercises, for
// their changes.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.m.waitEvent(), m.m.checkUpstream()}
	for _, v := range m.m.views {
		cmds = append(cmds, v.Init())
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

// noContent is the Content of a walkthrough without lessons.
type noContent struct{ tr *i18n.Strings }

func (noContent) Step(string) (Step, bool) { return Step{}, false }
func (c noContent) Local(string, string) (Location, error) {
	return Location{}, errors.New(c.tr.ErrNoLessons)
}
func (c noContent) Upstream(string) (Location, error) {
	return Location{}, errors.New(c.tr.ErrNoLessons)
}

// Messages from commands.
type (
	// eventMsg carries one engine event.
	eventMsg struct{ ev engine.Event }
	// continuedMsg reports the result of Continue.
	continuedMsg struct{ err error }
	// autoMsg says the auto pause at the gen'th checkpoint is over.
	autoMsg struct{ gen int }
)

// waitEvent waits for the next engine event off the update loop; it is re-armed after each
// pause.
func (m *model) waitEvent() tea.Cmd {
	ch, done := m.eng.Events(), m.done
	return func() tea.Msg {
		select {
		case ev := <-ch:
			return eventMsg{ev: ev}
		case <-done:
			return nil
		}
	}
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg.Width, msg.Height)
	case eventMsg:
		return m.event(msg.ev)
	case autoMsg:
		return m.autoNext(msg)
	case continuedMsg:
		if msg.err != nil {
			m.running = false
			m.state.SetFrozen(false)
			m.note = fmt.Sprintf(m.tr.NoteResumeFailed, msg.err.Error())
		}
	case source.ResolvedMsg:
		return tea.Batch(m.source.Update(msg), m.kubeSrc.Update(msg), m.forward(msg))
	case liveProbeMsg:
		m.probed(msg)
	case source.FetchMsg, upstreamCheckMsg:
		return m.fetchMsg(msg)
	case readyzMsg:
		m.readyClient = msg.client
		m.kubect.SetHealth(msg.ok, msg.status, msg.at)
		return tea.Tick(readyzEvery, func(time.Time) tea.Msg { return readyzTickMsg{} })
	case readyzTickMsg:
		return pollReadyz(m.srv, m.readyClient, m.now)
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

// event handles a pause, the end of startup or a failure.
func (m *model) event(ev engine.Event) tea.Cmd {
	m.history = m.eng.Stops()
	if ev.Paused != nil && (len(m.history) == 0 || m.history[len(m.history)-1].Index != ev.Paused.Index) {
		m.history = append(m.history, *ev.Paused)
	}
	// The engine swaps the live objects of earlier stops for a safe set once the server
	// serves: point the state pane at the fresh copy and drop raw nodes built from the old one.
	m.state.Repoint(m.displayed())
	m.running = false
	m.state.SetFrozen(false)
	var cmds []tea.Cmd
	switch {
	case ev.Paused != nil:
		cmds = append(cmds, m.waitEvent(), m.autoWait())
	case ev.Served:
		m.served = true
		if m.auto > 0 { // the walkthrough ran to its end: keys need not announce a take-over
			m.auto = 0
			m.disarmAuto()
		}
		if m.srv != nil {
			m.kubect.SetServer(m.srv)
			if !m.polling {
				m.polling = true
				cmds = append(cmds, pollReadyz(m.srv, nil, m.now))
			}
		}
		if m.focus != paneLesson {
			m.tab = paneServed
		}
		m.applyFocus()
	case ev.Failed != nil:
		m.failed = ev.Failed
	}
	if m.review < 0 && !m.inTrack() && len(m.history) > 0 {
		cmds = append(cmds, m.show(len(m.history)-1))
	}
	m.syncCurrent()
	cmds = append(cmds, m.forward(view.ServerMsg{Paused: ev.Paused != nil, Served: ev.Served, Failed: ev.Failed != nil}))
	return tea.Batch(cmds...)
}

// show puts history[i] on screen.
func (m *model) show(i int) tea.Cmd {
	if i < 0 || i >= len(m.history) {
		return nil
	}
	stop := &m.history[i]
	var prev *engine.Stop
	if i > 0 {
		prev = &m.history[i-1]
	}
	m.shown = i
	step, ok := m.content.Step(stop.Checkpoint.ID())
	m.state.SetStop(stop, prev, m.review >= 0)
	m.lesson.SetStep(step, ok, stop.Checkpoint)
	return tea.Batch(m.source.SetStep(step.Code(), ok, stop.Checkpoint), m.sideStep(step, ok, stop.Checkpoint))
}

// displayed is the stop on screen, or nil before the first one.
func (m *model) displayed() *engine.Stop {
	if m.shown < 0 || m.shown >= len(m.history) {
		return nil
	}
	return &m.history[m.shown]
}

// live is the latest stop, where the server is (or was last) paused.
func (m *model) live() *engine.Stop {
	if len(m.history) == 0 {
		return nil
	}
	return &m.history[len(m.history)-1]
}

// resume asks the server to run to t, unless it cannot move.
func (m *model) resume(t engine.Target, what string) tea.Cmd {
	switch {
	case m.failed != nil:
		m.note = m.tr.NoteStartupFailed
		return nil
	case m.served:
		m.note = m.tr.NoteStartupFinished
		return nil
	case m.running || len(m.history) == 0:
		m.note = m.tr.NoteStillRunning
		return nil
	}
	var cmd tea.Cmd
	if m.review >= 0 {
		m.review = -1
		cmd = m.show(len(m.history) - 1)
	}
	m.running, m.target = true, what
	m.state.SetFrozen(true)
	eng := m.eng
	return tea.Batch(cmd, func() tea.Msg { return continuedMsg{err: eng.Continue(t)} })
}

// reviewTo shows history[i]; the last index means live.
func (m *model) reviewTo(i int) tea.Cmd {
	if len(m.history) == 0 {
		return nil
	}
	i = max(min(i, len(m.history)-1), 0)
	if i == len(m.history)-1 {
		i = -1
	}
	if m.inTrack() {
		m.trackAt = -1
		if i < 0 {
			return m.show(len(m.history) - 1)
		}
	}
	if i == m.review {
		return nil
	}
	m.review = i
	m.reviewPanes()
	if i < 0 {
		return m.show(len(m.history) - 1)
	}
	return m.show(i)
}

// reviewPanes shows a reviewed step's lesson where the kubectl panel was, and the panel again
// when the review ends.
func (m *model) reviewPanes() {
	switch {
	case m.review >= 0 && m.tab == paneServed:
		m.lessonForReview = true
		if m.focus == paneServed {
			m.focus = paneLesson
		}
		m.tab = paneLesson
	case m.review < 0 && m.lessonForReview:
		m.lessonForReview = false
		if m.tab == paneLesson {
			if m.focus == paneLesson {
				m.focus = paneServed
			}
			m.tab = paneServed
		}
	default:
		return
	}
	m.applyFocus()
}

// toggleServed switches the shared place between the lesson and the kubectl panel.
func (m *model) toggleServed() {
	if !m.served {
		m.note = m.tr.NoteKubectlPanelLater
		return
	}
	if m.tab == paneServed {
		m.setFocus(paneLesson)
	} else {
		m.setFocus(paneServed)
	}
}

// isReportText reports whether runes could be the body of a terminal's colour report
// ("11;rgb:0000/0000/0000").
func isReportText(runes []rune) bool {
	for _, r := range runes {
		if !strings.ContainsRune("0123456789abcdefABCDEF;:/rgb", r) {
			return false
		}
	}
	return len(runes) > 0
}

// lateReport swallows a terminal's answer to a query that arrived after the query gave up
// waiting (lipgloss asks for the background colour at start; on a busy machine or a slow SSH
// link the answer comes later). bubbletea v1 does not parse OSC answers: ESC ] 11;rgb:…
// ESC \ arrives as alt+], the body as runes, then alt+\. Without this, the body's runes would
// be taken for keys — ':' opens the command line and what follows is typed into it. Only a
// body that looks like a report is swallowed: any other key ends it and is handled.
func (m *model) lateReport(msg tea.KeyMsg) bool {
	switch {
	case msg.Type == tea.KeyRunes && msg.Alt && string(msg.Runes) == "]":
		m.inReport = true
		return true
	case !m.inReport:
		return false
	case msg.Type == tea.KeyRunes && msg.Alt && string(msg.Runes) == "\\", msg.Type == tea.KeyCtrlG:
		m.inReport = false // the terminator: ST or BEL
		return true
	case msg.Type == tea.KeyRunes && !msg.Alt && isReportText(msg.Runes):
		return true
	}
	m.inReport = false
	return false
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
	if m.auto > 0 {
		// The learner takes over: this key does what it always does.
		m.stopAuto()
	}
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
	if m.at == viewTour && m.source.Typing() {
		return m.source.SearchKey(msg)
	}
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Quit):
			return tea.Quit
		case key.Matches(msg, k.Up):
			m.helpOffset--
		case key.Matches(msg, k.Down):
			m.helpOffset++
		case key.Matches(msg, k.PageUp):
			m.helpOffset -= m.lay.body.h / 2
		case key.Matches(msg, k.PageDown):
			m.helpOffset += m.lay.body.h / 2
		default:
			m.showHelp = false
		}
		m.helpOffset = max(m.helpOffset, 0) // the view clamps the other end
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
	if m.at != viewTour {
		return m.viewKey(msg)
	}
	if m.inTrack() {
		if cmd, ok := m.trackKey(msg); ok {
			return cmd
		}
	}
	if m.side {
		if cmd, ok := m.sideKey(msg); ok {
			return cmd
		}
	}
	searching := m.source.Searching()
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp, m.helpOffset = true, 0
	case key.Matches(msg, k.Live):
		switch {
		case searching:
			return m.source.ClearSearch()
		case m.source.Browsing():
			return m.source.CloseFile()
		}
		return m.reviewTo(len(m.history) - 1)
	case searching && key.Matches(msg, k.MatchNext):
		return m.source.NextMatch(1)
	case searching && key.Matches(msg, k.MatchPrev):
		return m.source.NextMatch(-1)
	case searching && m.focus == paneSource && key.Matches(msg, k.OpenMatch):
		m.source.OpenMatch()
	case key.Matches(msg, k.Next):
		if m.review >= 0 {
			return m.reviewTo(m.review + 1)
		}
		if m.serveStop() && len(m.track) > 0 {
			return m.openTrack(m.trackLast)
		}
		return m.resume(engine.NextCheckpoint(), m.tr.TargetNextCheckpoint)
	case key.Matches(msg, k.Forward):
		if m.review >= 0 {
			return m.reviewTo(m.review + 1)
		}
	case key.Matches(msg, k.Back):
		if m.review < 0 {
			return m.reviewTo(len(m.history) - 2)
		}
		return m.reviewTo(m.review - 1)
	case key.Matches(msg, k.NextPhase):
		return m.resume(engine.NextPhase(), m.tr.TargetNextPhase)
	case key.Matches(msg, k.ToEnd):
		return m.resume(engine.ToEnd(), m.tr.TargetEnd)
	case key.Matches(msg, k.Phase):
		return m.toPhase(int(msg.Runes[0] - '1'))
	case key.Matches(msg, k.Served):
		m.toggleServed()
	case key.Matches(msg, k.FocusNext):
		m.cycleFocus(1)
	case key.Matches(msg, k.FocusPrev):
		m.cycleFocus(-1)
	case key.Matches(msg, k.Upstream):
		return m.source.ToggleUpstream()
	case key.Matches(msg, k.SideBySide):
		return m.toggleSide()
	case key.Matches(msg, k.Fetch):
		return m.startFetch()
	case key.Matches(msg, k.Wrap):
		m.source.ToggleWrap()
	case key.Matches(msg, k.Raw):
		m.state.ToggleRaw()
		if m.shared(paneState) && m.tab != paneState {
			m.setFocus(paneState) // stacked layout: show what r switched
		}
	case key.Matches(msg, k.Search):
		m.setFocus(paneSource)
		m.source.StartSearch()
	case key.Matches(msg, k.Toggle):
		if m.focus == paneState && !m.state.Toggle() {
			m.note = m.tr.NoteRowWhole
		}
	case key.Matches(msg, k.NextChange), key.Matches(msg, k.PrevChange):
		d := 1
		if key.Matches(msg, k.PrevChange) {
			d = -1
		}
		m.setFocus(paneState)
		if m.state.Raw() || !m.state.JumpChange(d) {
			m.note = m.tr.NoteNoChange
		}
	case key.Matches(msg, k.ExpandAll):
		if m.focus == paneState {
			m.state.ExpandAll()
		}
	case key.Matches(msg, k.CollapseAll):
		if m.focus == paneState {
			m.state.CollapseAll()
		}
	case key.Matches(msg, k.Up):
		m.scrollFocused(-1)
	case key.Matches(msg, k.Down):
		m.scrollFocused(1)
	case key.Matches(msg, k.PageUp):
		m.scrollFocused(-m.page())
	case key.Matches(msg, k.PageDown):
		m.scrollFocused(m.page())
	case key.Matches(msg, k.Top):
		m.scrollFocused(-1 << 30)
	case key.Matches(msg, k.Bottom):
		m.scrollFocused(1 << 30)
	}
	return nil
}

// dismissWelcome closes the welcome for good.
func (m *model) dismissWelcome() {
	m.welcome = false
	if m.onWelcome != nil {
		m.onWelcome()
		m.onWelcome = nil
	}
}

// toPhase goes to the first step of phase i (0-based): a phase ahead of the server is run to
// (the server pauses at its first checkpoint); a phase the server has reached is reviewed from
// its first recorded stop (which is the live stop when the server is still there).
func (m *model) toPhase(i int) tea.Cmd {
	phases := server.Phases()
	if i < 0 || i >= len(phases) {
		return nil
	}
	live := m.live()
	if live == nil {
		m.note = m.tr.NoteStillStarting
		return nil
	}
	cur := phaseIndex(live.Checkpoint.Phase)
	if m.served {
		cur = len(phases) // every phase is behind
	}
	if i > cur {
		return m.resume(engine.ToPhase(phases[i]), fmt.Sprintf(m.tr.TargetPhase, phases[i]))
	}
	for j, s := range m.history {
		if s.Checkpoint.Phase == phases[i] {
			return m.reviewTo(j)
		}
	}
	m.note = fmt.Sprintf(m.tr.NoteNoStopInPhase, phases[i])
	return nil
}

func phaseIndex(p server.Phase) int {
	for i, q := range server.Phases() {
		if q == p {
			return i
		}
	}
	return -1
}

// panes lists the panes focus cycles through.
func (m *model) panes() []paneID {
	ps := []paneID{paneSource, paneState, paneLesson}
	if m.served {
		ps = append(ps, paneServed)
	}
	return ps
}

func (m *model) cycleFocus(d int) {
	ps := m.panes()
	i := 0
	for j, p := range ps {
		if p == m.focus {
			i = j
		}
	}
	m.setFocus(ps[(i+d+len(ps))%len(ps)])
}

// setFocus focuses a pane and brings it into the shared place if it lives there.
func (m *model) setFocus(p paneID) {
	m.focus = p
	if m.shared(p) {
		m.tab = p
	}
	m.applyFocus()
}

// shared reports whether p is shown in the tabbed place (rather than a place of its own).
func (m *model) shared(p paneID) bool {
	switch p {
	case paneSource:
		return false
	case paneState:
		return !m.lay.wide
	}
	return true
}

// applyFocus tells the panes who is focused and what the tab bar says.
func (m *model) applyFocus() {
	if m.tab == paneState && m.lay.wide {
		m.tab = paneLesson
	}
	m.source.SetFocused((m.focus == paneSource && !m.side) || (m.side && m.sideFocus == 0))
	m.kubeSrc.SetFocused(m.side && m.sideFocus == 1)
	m.state.SetFocused(m.focus == paneState)
	m.lesson.SetFocused(m.focus == paneLesson)
	m.kubect.SetFocused(m.focus == paneServed)

	var tabs []paneID
	for _, p := range m.panes() {
		if m.shared(p) {
			tabs = append(tabs, p)
		}
	}
	bar := ""
	if len(tabs) > 1 {
		var parts []string
		for _, p := range tabs {
			if p == m.tab {
				parts = append(parts, "["+p.name(m.tr)+"]")
			} else {
				parts = append(parts, p.name(m.tr))
			}
		}
		bar = strings.Join(parts, " ")
	}
	m.state.SetTabs("")
	for _, p := range tabs {
		m.frameOf(p).SetTabs(bar)
	}
}

func (m *model) frameOf(p paneID) paneFrame {
	switch p {
	case paneSource:
		return m.source
	case paneState:
		return m.state
	case paneLesson:
		return m.lesson
	}
	return m.kubect
}

// page is the page size of the focused pane.
func (m *model) page() int {
	switch m.focus {
	case paneSource:
		return m.source.Page()
	case paneState:
		return m.state.Page()
	case paneLesson:
		return m.lesson.Page()
	}
	return m.kubect.Page()
}

// scrollFocused scrolls (or, in the state tree, moves the cursor in) the focused pane.
func (m *model) scrollFocused(n int) {
	switch m.focus {
	case paneSource:
		m.source.Scroll(n)
	case paneState:
		m.state.Move(n)
	case paneLesson:
		m.lesson.Scroll(n)
	case paneServed:
		m.kubect.Scroll(n)
	}
}

// typingLine reports whether keys go into a line of text: the command line, an answer, a
// search or the requests filter.
func (m *model) typingLine() bool {
	if _, ok := m.capturing(); ok {
		return true
	}
	return m.prompt.IsOpen() || (m.at == viewTour && m.source.Typing())
}

// mouse scrolls the focused pane with the wheel and focuses a pane on click.
func (m *model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.auto > 0 && msg.Action == tea.MouseActionPress {
		m.stopAuto() // a click or the wheel takes over, as a key does
	}
	if m.lay.small || m.showHelp || m.welcome || m.prompt.IsOpen() || m.info != nil || msg.Action != tea.MouseActionPress {
		return nil
	}
	if m.zoom && msg.Button == tea.MouseButtonLeft {
		return nil // one pane fills the body: a click picks nothing else
	}
	if m.at != viewTour {
		if v, ok := m.views[m.at]; ok {
			msg.X, msg.Y = msg.X-m.lay.body.x, msg.Y-m.lay.body.y
			return v.Update(msg)
		}
		return nil // the board scrolls with keys
	}
	if m.side {
		p := m.source
		if m.sideFocus == 1 {
			p = m.kubeSrc
		}
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			p.Scroll(-3)
		case tea.MouseButtonWheelDown:
			p.Scroll(3)
		case tea.MouseButtonLeft:
			m.sideFocus = 0
			if msg.X >= m.lay.body.w/2 {
				m.sideFocus = 1
			}
			m.applyFocus()
		}
		return nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		m.wheel(-3)
	case tea.MouseButtonWheelDown:
		m.wheel(3)
	case tea.MouseButtonLeft:
		if p, ok := m.lay.paneAt(msg.X, msg.Y, m); ok {
			m.setFocus(p)
		}
	}
	return nil
}

func (m *model) wheel(n int) {
	if m.focus == paneState {
		m.state.Scroll(n)
		return
	}
	m.scrollFocused(n)
}
