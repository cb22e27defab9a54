// Package tour is the walkthrough view: stepping a live server through its checkpoints, history
// and review (going back to an earlier stop), auto-run, the after-serve track and its probes,
// the /readyz poll of the after-serve panel, and the layout and focus of its panes (the source,
// state, lesson and after-serve panes of runtime/tui/source and runtime/tui/walk, and
// kube-apiserver side by side, runtime/tui/side).
//
// The root (runtime/tui) holds it in its views and asks it, through methods, for what the
// header and status line say about the server; the tour tells the root what only the root
// shows (a note, an info box, a track step the class follows) through Env.
package tour

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/side"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

// WideWidth is where the layout switches from stacked to side by side.
const WideWidth = 120

// Engine is what the walkthrough needs from *engine.Engine.
type Engine interface {
	Events() <-chan engine.Event
	Continue(t engine.Target) error
	Stops() []engine.Stop
}

// ServerInfo is what the after-serve panel and the /readyz poll read of *server.Server.
type ServerInfo interface {
	walk.ServerInfo
	RESTConfig(contextName string) (*rest.Config, error)
}

// Content supplies the lesson steps and resolves their source (tui.Content).
type Content interface {
	source.Resolver
	// Step returns the step for a checkpoint ID ("phase/name"), if there is one.
	Step(checkpointID string) (walk.Step, bool)
}

// Keys are the walkthrough's bindings (tui.KeyMap's).
type Keys struct {
	Next, NextPhase, ToEnd, Phase, Back, Forward, Live key.Binding

	FocusNext, FocusPrev, Served            key.Binding
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Toggle, NextChange, PrevChange          key.Binding
	ExpandAll, CollapseAll, Raw             key.Binding
	Upstream, Wrap, Search, Rerun           key.Binding
	SideBySide, Fetch                       key.Binding
	MatchNext, MatchPrev, OpenMatch         key.Binding
	Help, Quit                              key.Binding
}

// Env is what the walkthrough asks of the root: what only the root shows or knows.
type Env struct {
	// Done is closed when the run ends (the waiters return then); nil waits forever.
	Done func() <-chan struct{}
	// Now is the clock of the /readyz poll's time.
	Now func() time.Time
	// Note sets the status line's note at once (the root clears it at the next key).
	Note func(string)
	// Info shows a box of lines over the body until the next key.
	Info func(title string, lines []string)
	// Moved is called when the screen went to another track step (the class follows it).
	Moved func() tea.Cmd
}

// Options configure the walkthrough.
type Options struct {
	Engine  Engine
	Server  ServerInfo // nil: no after-serve panel
	Content Content
	Keys    Keys
	// GlamourStyle is the lesson's glamour style ("notty", "dark", …).
	GlamourStyle string
	// Auto, when positive, continues on its own after Auto at each checkpoint.
	Auto time.Duration
	// Track are the after-serve track's steps; Probe runs their live probes (nil: not wired);
	// Progress is told each track step shown.
	Track    []walk.Step
	Probe    Probe
	Progress func(lessonID, stepID string)
	// Fetch and NoFetch are the run's module downloads (source.NewFetches).
	Fetch   source.Fetch
	NoFetch bool
	// Ctx ends the background work (probes, downloads).
	Ctx context.Context
	Env Env
}

// Model is the walkthrough view. Create it with New.
type Model struct {
	c    common.Common
	tr   *i18n.Strings
	st   *common.Styles
	keys Keys
	env  Env
	ctx  context.Context

	eng     Engine
	srv     ServerInfo
	content Content

	history []engine.Stop // every stop so far (engine.Stops), oldest first
	review  int           // index into history being reviewed, -1 when live
	shown   int           // index into history on screen, -1 before the first stop
	running bool          // Continue was sent; waiting for the next event
	target  string        // what the server is running to, for the status line
	served  bool
	failed  error

	// auto is the pause at each checkpoint when the walkthrough runs on its own (Options.Auto),
	// 0 once a key took over; autoGen tells the current pause's timer from older ones, and
	// autoArmed says one is running.
	auto       time.Duration
	autoGen    int
	autoArmed  bool
	autoCancel chan struct{} // closed to end the running timer early

	lay   layout
	focus Pane
	tab   Pane // the pane shown in the shared (tabbed) place
	// zoomedFor is what the panes were last sized for when zoomed ("" when laid out unzoomed).
	zoomedFor string
	// lessonForReview is set when reviewing put the lesson in place of the kubectl panel;
	// going back to live brings the panel back.
	lessonForReview bool

	source *source.Pane
	state  *walk.State
	lesson *walk.Lesson
	kubect *walk.Served
	fetch  *source.Fetches
	side   *side.Model

	readyClient *http.Client
	polling     bool

	// The after-serve track (track.go): its steps, the one on screen (-1: none) and the one
	// last shown; the probes' results and those running.
	track     []walk.Step
	trackAt   int
	trackLast int
	probe     Probe
	probes    map[string]probeResult
	probing   map[string]bool
	progress  func(lessonID, stepID string)
}

var (
	_ view.View   = (*Model)(nil)
	_ view.Zoomer = (*Model)(nil)
)

// New makes the walkthrough at no stop yet; Init starts listening for the engine's events.
func New(c common.Common, o Options) *Model {
	t := &Model{
		c: c, tr: c.Tr, st: c.Styles, keys: o.Keys, env: o.Env, ctx: o.Ctx,
		eng: o.Engine, srv: o.Server, content: o.Content,
		review: -1, shown: -1,
		focus: PaneSource, tab: PaneLesson,
		auto:   max(o.Auto, 0),
		state:  walk.NewState(common.Common{Styles: c.Styles, Tr: c.Tr}),
		lesson: walk.NewLesson(common.Common{Styles: c.Styles, Tr: c.Tr}, o.GlamourStyle),
		kubect: walk.NewServed(common.Common{Styles: c.Styles, Tr: c.Tr}),
		track:  o.Track, trackAt: -1,
		probe: o.Probe, progress: o.Progress,
		probes: map[string]probeResult{}, probing: map[string]bool{},
	}
	if t.ctx == nil {
		t.ctx = context.Background()
	}
	if t.env.Now == nil {
		t.env.Now = time.Now
	}
	if t.env.Note == nil {
		t.env.Note = func(string) {}
	}
	if t.env.Info == nil {
		t.env.Info = func(string, []string) {}
	}
	t.fetch = source.NewFetches(c.Tr, o.NoFetch, o.Fetch)
	t.source = source.New(common.Common{Styles: c.Styles, Tr: c.Tr}, o.Content, source.Options{Fetches: t.fetch})
	k := o.Keys
	t.side = side.New(t.ctx, c, side.Keys{FocusNext: k.FocusNext, FocusPrev: k.FocusPrev, Wrap: k.Wrap, Fetch: k.Fetch},
		o.Content, t.source, t.fetch)
	t.applyFocus()
	return t
}

// note sets the root's status note.
func (t *Model) note(s string) { t.env.Note(s) }

// done is the channel the waiters end on.
func (t *Model) done() <-chan struct{} {
	if t.env.Done == nil {
		return nil
	}
	return t.env.Done()
}

// Messages.
type (
	// EventMsg carries one engine event; the root hands it to Update and then tells the other
	// views (view.ServerMsg).
	EventMsg struct{ Ev engine.Event }
	// continuedMsg reports the result of Continue.
	continuedMsg struct{ err error }
	// AutoMsg says the auto pause at the Gen'th checkpoint is over.
	AutoMsg struct{ Gen int }
)

// Init waits for the first engine event and asks whether upstream source is there (for the
// welcome).
func (t *Model) Init() tea.Cmd { return tea.Batch(t.waitEvent(), t.side.Init()) }

// waitEvent waits for the next engine event off the update loop; it is re-armed after each
// pause.
func (t *Model) waitEvent() tea.Cmd {
	ch, done := t.eng.Events(), t.done()
	return func() tea.Msg {
		select {
		case ev := <-ch:
			return EventMsg{Ev: ev}
		case <-done:
			return nil
		}
	}
}

// Update handles the walkthrough's keys and mouse (while it is on screen) and its messages.
func (t *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case EventMsg:
		return t.event(msg.Ev)
	case AutoMsg:
		return t.autoNext(msg)
	case continuedMsg:
		if msg.err != nil {
			t.running = false
			t.state.SetFrozen(false)
			t.note(fmt.Sprintf(t.tr.NoteResumeFailed, msg.err.Error()))
		}
	case source.ResolvedMsg:
		cmd, _ := t.side.Update(msg)
		return tea.Batch(t.source.Update(msg), cmd)
	case liveProbeMsg:
		t.probed(msg)
	case source.FetchMsg, side.UpstreamCheckMsg:
		cmd, note := t.side.Update(msg)
		if note != "" {
			t.note(note)
		}
		return cmd
	case ReadyzMsg:
		t.readyClient = msg.client
		t.kubect.SetHealth(msg.ok, msg.status, msg.at)
		return tea.Tick(readyzEvery, func(time.Time) tea.Msg { return ReadyzTickMsg{} })
	case ReadyzTickMsg:
		return pollReadyz(t.srv, t.readyClient, t.env.Now)
	case tea.KeyMsg:
		return t.key(msg)
	case tea.MouseMsg:
		t.mouse(msg)
	}
	return nil
}

// event handles a pause, the end of startup or a failure.
func (t *Model) event(ev engine.Event) tea.Cmd {
	t.history = t.eng.Stops()
	if ev.Paused != nil && (len(t.history) == 0 || t.history[len(t.history)-1].Index != ev.Paused.Index) {
		t.history = append(t.history, *ev.Paused)
	}
	// The engine swaps the live objects of earlier stops for a safe set once the server
	// serves: point the state pane at the fresh copy and drop raw nodes built from the old one.
	t.state.Repoint(t.displayed())
	t.running = false
	t.state.SetFrozen(false)
	var cmds []tea.Cmd
	switch {
	case ev.Paused != nil:
		cmds = append(cmds, t.waitEvent(), t.autoWait())
	case ev.Served:
		t.served = true
		if t.auto > 0 { // the walkthrough ran to its end: keys need not announce a take-over
			t.auto = 0
			t.disarmAuto()
		}
		if t.srv != nil {
			t.kubect.SetServer(t.srv)
			if !t.polling {
				t.polling = true
				cmds = append(cmds, pollReadyz(t.srv, nil, t.env.Now))
			}
		}
		if t.focus != PaneLesson {
			t.tab = PaneServed
		}
		t.applyFocus()
	case ev.Failed != nil:
		t.failed = ev.Failed
	}
	if t.review < 0 && !t.InTrack() && len(t.history) > 0 {
		cmds = append(cmds, t.show(len(t.history)-1))
	}
	return tea.Batch(cmds...)
}

// show puts history[i] on screen.
func (t *Model) show(i int) tea.Cmd {
	if i < 0 || i >= len(t.history) {
		return nil
	}
	stop := &t.history[i]
	var prev *engine.Stop
	if i > 0 {
		prev = &t.history[i-1]
	}
	t.shown = i
	step, ok := t.content.Step(stop.Checkpoint.ID())
	t.state.SetStop(stop, prev, t.review >= 0)
	t.lesson.SetStep(step, ok, stop.Checkpoint)
	return tea.Batch(t.source.SetStep(step.Code(), ok, stop.Checkpoint), t.side.SetStep(step.Code(), ok, stop.Checkpoint))
}

// Displayed is the stop on screen, or nil before the first one.
func (t *Model) Displayed() *engine.Stop { return t.displayed() }

func (t *Model) displayed() *engine.Stop {
	if t.shown < 0 || t.shown >= len(t.history) {
		return nil
	}
	return &t.history[t.shown]
}

// Live is the latest stop, where the server is (or was last) paused; nil before the first.
func (t *Model) Live() *engine.Stop {
	if len(t.history) == 0 {
		return nil
	}
	return &t.history[len(t.history)-1]
}

// resume asks the server to run to target, unless it cannot move.
func (t *Model) resume(target engine.Target, what string) tea.Cmd {
	switch {
	case t.failed != nil:
		t.note(t.tr.NoteStartupFailed)
		return nil
	case t.served:
		t.note(t.tr.NoteStartupFinished)
		return nil
	case t.running || len(t.history) == 0:
		t.note(t.tr.NoteStillRunning)
		return nil
	}
	var cmd tea.Cmd
	if t.review >= 0 {
		t.review = -1
		cmd = t.show(len(t.history) - 1)
	}
	t.running, t.target = true, what
	t.state.SetFrozen(true)
	eng := t.eng
	return tea.Batch(cmd, func() tea.Msg { return continuedMsg{err: eng.Continue(target)} })
}

// RunTo runs the server on to target; unlike a key's resume it leaves a reviewed step on
// screen (only the live stop moves). The class moves a student's server with it.
func (t *Model) RunTo(target engine.Target, what string) tea.Cmd {
	t.target = what
	t.running = true
	if t.review < 0 {
		t.state.SetFrozen(true)
	}
	eng := t.eng
	return func() tea.Msg { return continuedMsg{err: eng.Continue(target)} }
}

// reviewTo shows history[i]; the last index means live.
func (t *Model) reviewTo(i int) tea.Cmd {
	if len(t.history) == 0 {
		return nil
	}
	i = max(min(i, len(t.history)-1), 0)
	if i == len(t.history)-1 {
		i = -1
	}
	if t.InTrack() {
		t.trackAt = -1
		if i < 0 {
			return t.show(len(t.history) - 1)
		}
	}
	if i == t.review {
		return nil
	}
	t.review = i
	t.reviewPanes()
	if i < 0 {
		return t.show(len(t.history) - 1)
	}
	return t.show(i)
}

// reviewPanes shows a reviewed step's lesson where the kubectl panel was, and the panel again
// when the review ends.
func (t *Model) reviewPanes() {
	switch {
	case t.review >= 0 && t.tab == PaneServed:
		t.lessonForReview = true
		if t.focus == PaneServed {
			t.focus = PaneLesson
		}
		t.tab = PaneLesson
	case t.review < 0 && t.lessonForReview:
		t.lessonForReview = false
		if t.tab == PaneLesson {
			if t.focus == PaneLesson {
				t.focus = PaneServed
			}
			t.tab = PaneServed
		}
	default:
		return
	}
	t.applyFocus()
}

// toggleServed switches the shared place between the lesson and the kubectl panel.
func (t *Model) toggleServed() {
	if !t.served {
		t.note(t.tr.NoteKubectlPanelLater)
		return
	}
	if t.tab == PaneServed {
		t.setFocus(PaneLesson)
	} else {
		t.setFocus(PaneServed)
	}
}

// ShowServed brings the after-serve panel into the shared place once the server serves (K
// from another view: the root shows the walkthrough again).
func (t *Model) ShowServed() {
	if t.served && t.tab != PaneServed {
		t.toggleServed()
	}
}

// toPhase goes to the first step of phase i (0-based): a phase ahead of the server is run to
// (the server pauses at its first checkpoint); a phase the server has reached is reviewed from
// its first recorded stop (which is the live stop when the server is still there).
func (t *Model) toPhase(i int) tea.Cmd {
	phases := server.Phases()
	if i < 0 || i >= len(phases) {
		return nil
	}
	live := t.Live()
	if live == nil {
		t.note(t.tr.NoteStillStarting)
		return nil
	}
	cur := phaseIndex(live.Checkpoint.Phase)
	if t.served {
		cur = len(phases) // every phase is behind
	}
	if i > cur {
		return t.resume(engine.ToPhase(phases[i]), fmt.Sprintf(t.tr.TargetPhase, phases[i]))
	}
	for j, s := range t.history {
		if s.Checkpoint.Phase == phases[i] {
			return t.reviewTo(j)
		}
	}
	t.note(fmt.Sprintf(t.tr.NoteNoStopInPhase, phases[i]))
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

// At is the lesson and phase of the step on screen (LessonContent's step IDs are
// "<lesson ID>/<step ID>"); ok is false before the first stop. The exercises view puts that
// lesson first.
func (t *Model) At() (lesson, phase string, ok bool) {
	stop := t.displayed()
	if stop == nil {
		return "", "", false
	}
	if s, ok := t.content.Step(stop.Checkpoint.ID()); ok {
		lesson, _, _ = strings.Cut(s.ID, "/")
	}
	return lesson, string(stop.Checkpoint.Phase), true
}

// Close waits for a module download that the run's end cancelled: no go command outlives the
// program.
func (t *Model) Close() { t.fetch.Wait() }
