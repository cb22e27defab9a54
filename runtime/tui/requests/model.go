// Package requests is the Requests view (:requests): the live list of the requests the server
// served, the selected request's lane (a picture of the stages the handler chain took it
// through, and the selected stage's details), its attributes, and the code of the stage; and
// the breakpoints' held requests, which it steps, lets go or fails. It reads the trace store
// (Requests) and the breakpoints (Breakpoints), whose interfaces are defined here.
//
// It was moved out of the root model (issue 18) after runtime/tui/glossary: it implements
// view.View, view.Capturer (the / filter line) and view.Zoomer (z), keeps its own state and keys, and draws
// with runtime/tui/common. The chain bar's request path (Chain) and the held count
// (HeldCount) are drawn from here too, since the root shows them over every view.
package requests

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// WideWidth is the body width from which the view sets its panes side by side (the root's
// wide layout starts at the same width).
const WideWidth = 120

// Options are the view's backends and what it asks the root.
type Options struct {
	Requests    Requests    // nil: the view explains that tracing is not wired
	Breakpoints Breakpoints // nil: held-request keys say :break is not wired
	// Code resolves a stage's code for the stage-code pane (a source.Pane): the
	// walkthrough's content (nil: the pane says it cannot show code).
	Code source.Resolver
	// Listening reports whether the server accepts requests now (nil: never).
	Listening func() bool
	// Want are the traces read by ID besides the list, at every load (the kubectl pane's).
	Want func() []string
	// Typing reports whether the learner types into a line elsewhere (the command line, an
	// answer): a newly held request does not take the screen then, a note says so.
	Typing func() bool
	// Ctx ends the background waiters (the run's shutdown); Done is the program's end.
	Ctx  context.Context
	Done func() <-chan struct{}
}

// Messages other views and the root send the view, and those it sends them.
type (
	// ReloadMsg asks the view to read the store again now (after kubectl output, a held
	// request's step, a breakpoint set).
	ReloadMsg struct{}
	// OpenMsg shows a trace by ID, its lane focused (enter on a kubectl request); the view
	// asks the root to bring it on screen (ShowMsg).
	OpenMsg struct{ ID string }
	// ListMsg is :requests (All: :requests all, which shows again what :clear hid).
	ListMsg struct{ All bool }
	// ClearMsg is :clear: hide every request so far.
	ClearMsg struct{}
	// ShowMsg asks the root to bring the view on screen (a request was just held), closing
	// the help and any box, with Note in the status line.
	ShowMsg struct{ Note string }
	// TracesMsg carries, after each load, the traces read by ID besides the list (Want's and
	// the held ones), for the kubectl pane's lanes.
	TracesMsg struct{ Traces map[string]tracing.Trace }
)

// heldActionMsg reports a step, continue or abort.
type heldActionMsg struct {
	action, id string
	err        error
}

// Pane names a pane of the Requests view.
type Pane int

const (
	PaneList Pane = iota
	PaneLane
	PaneDetails
	PaneSource
)

// name is the pane's name in its title and the tab bar.
func (p Pane) name(tr *i18n.Strings) string {
	return [...]string{tr.PaneRequests, tr.PaneLane, tr.PaneRequest, tr.PaneStageSource}[p]
}

// rect is a pane's place in the body.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// Model is the Requests view.
type Model struct {
	c      common.Common
	st     *common.Styles
	tr     *i18n.Strings
	keys   KeyMap
	opt    Options
	q      *query
	zoomed bool // drawn by ZoomView last, not View

	// The subscription to the store, and what the loads brought besides the list.
	subCh       <-chan tracing.Event
	unsubscribe func()
	armed       bool        // the subscription waiter is running
	blocked     view.Waiter // the subscription waiter is blocked on its channel
	lastLoad    time.Time
	heldSeen    map[string]string // held request → the stage it is held at
	breakpoints []string

	// The layout: the size and zoom it was made for, and where the panes went.
	lw, lh int
	lz     bool
	// keysMemo are the help bar's bindings for keysFor.
	keysFor  keysKey
	keysMemo []key.Binding
	lf       Pane
	laid     bool
	rList    rect
	rLane    rect
	rDetails rect
	rSource  rect

	list    listFrame
	lane    *common.TextPane
	details *common.TextPane
	source  *source.Pane
	focus   Pane
	tab     Pane // the pane in the shared place of the stacked layout
	wide    bool

	loaded  bool
	seq     uint64
	all     []tracing.Trace // as the store filtered them, newest first
	shown   []tracing.Trace // after the :clear mark
	extra   map[string]tracing.Trace
	dropped uint64
	held    map[string]HeldRequest

	loopback bool
	text     string
	typing   bool
	input    []rune
	since    uint64 // :clear hides traces up to this Seq

	sel string // the selected trace's ID
	// chosen is set once the learner (or a held request) picks a request; until then, and
	// again after g (top) or :clear, the selection follows the newest request, so that
	// :requests opens on the request just made rather than on whatever came first.
	chosen bool
	stage  int // the selected stage of its lane
	cursor int
	offset int

	srcKey string // the trace and stage whose code the source pane shows
	notice string // why the list is empty, when it is not for a filter
}

var (
	_ view.View     = (*Model)(nil)
	_ view.Capturer = (*Model)(nil)
	_ view.Zoomer   = (*Model)(nil)
)

// New makes the view. Nothing is read until Init's subscription (or a ReloadMsg).
func New(c common.Common, opt Options) *Model {
	tr := c.Tr
	v := &Model{
		c: c, st: c.Styles, tr: tr, keys: NewKeyMap(tr), opt: opt, q: &query{},
		heldSeen: map[string]string{},
		list:     listFrame{dirty: true},
		lane:     common.NewTextPane(c.Styles, PaneLane.name(tr)),
		details:  common.NewTextPane(c.Styles, PaneDetails.name(tr)),
		extra:    map[string]tracing.Trace{},
		held:     map[string]HeldRequest{},
		tab:      PaneLane,
	}
	v.source = source.New(c, stageCode{opt.Code}, source.Options{Empty: tr.RqSelectStage})
	return v
}

// Init subscribes to the trace store.
func (v *Model) Init() tea.Cmd { return v.subscribe() }

// Close ends the subscription (the run's shutdown).
func (v *Model) Close() {
	if v.unsubscribe != nil {
		v.unsubscribe()
	}
}

// Capturing reports whether the / filter line takes every key.
func (v *Model) Capturing() bool { return v.typing }

// Title is the header's name and hint: the breakpoints set.
func (v *Model) Title() (string, string) {
	return v.tr.ViewRequestsTitle, fmt.Sprintf(v.tr.ViewBreakpoints, len(v.breakpoints))
}

// Keys are the help bar's bindings for the focused pane (the filter line's while typing).
func (v *Model) Keys() []key.Binding {
	k := v.keys
	if v.typing {
		return []key.Binding{k.FilterApply, k.FilterCancel}
	}
	// The help bar asks on every frame: the bindings are kept until what they depend on
	// changes (BenchmarkRequestsView200x60 allocates no more than before the move).
	_, held := v.focusHeld()
	kk := keysKey{focus: v.focus, held: held}
	if v.keysFor == kk && v.keysMemo != nil {
		return v.keysMemo
	}
	var out []key.Binding
	if held {
		out = append(out, k.StepHeld, k.RunToEnd, k.FailIt)
	}
	switch v.focus {
	case PaneList:
		out = append(out, k.Select, k.Lane, k.Filter, k.Loopback)
	case PaneLane:
		out = append(out, k.Stage, k.StageSource, k.StageEtcd)
	case PaneSource:
		out = append(out, k.Upstream, k.Wrap)
	}
	// z comes after these: the root adds it to every view.Zoomer's keys.
	v.keysFor, v.keysMemo = kk, append(out, k.FocusNext)
	return v.keysMemo
}

// keysKey is what the help bar's bindings depend on.
type keysKey struct {
	focus Pane
	held  bool
}

// Update handles the view's keys, the mouse, its loads and the messages other views send it.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case source.ResolvedMsg:
		return v.source.Update(msg)
	case tea.KeyMsg:
		if v.typing {
			if v.filterKey(msg) {
				return v.loadNow()
			}
			return nil
		}
		return v.key(msg)
	case tea.MouseMsg:
		v.mouse(msg)
	case subscribedMsg:
		v.subCh, v.unsubscribe, v.armed = msg.ch, msg.cancel, true
		return tea.Batch(v.waitRequests(), v.loadNow())
	case loadedMsg:
		return v.onLoad(msg)
	case heldActionMsg:
		tr := v.tr
		var note string
		if msg.err != nil {
			f := map[string]string{"step": tr.NoteStepFailed, "continue": tr.NoteLetGoFailed, "abort": tr.NoteAbortFailed}[msg.action]
			note = fmt.Sprintf(f, oneLine(msg.err.Error()))
		} else {
			note = map[string]string{"step": tr.NoteStepped, "continue": tr.NoteLetGo, "abort": tr.NoteAborted}[msg.action]
		}
		return tea.Batch(noteCmd(note), v.loadNow())
	case ReloadMsg:
		return v.loadNow()
	case OpenMsg:
		v.Select(msg.ID, "")
		v.SetFocus(PaneLane)
		v.syncQuery(msg.ID)
		return tea.Batch(func() tea.Msg { return ShowMsg{} }, v.loadNow())
	case ListMsg:
		v.list.dirty = true
		if msg.All {
			v.Unclear()
		}
		return v.loadNow()
	case ClearMsg:
		v.Clear()
		return v.loadNow()
	}
	return nil
}

// noteCmd returns a note for the root's status line.
func noteCmd(s string) tea.Cmd { return func() tea.Msg { return view.NoteMsg(s) } }

// oneLine flattens an error message for the status line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// key handles a key (the filter line is not open).
func (v *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	switch {
	case key.Matches(msg, k.HeldStep):
		return v.heldAction("step")
	case key.Matches(msg, k.HeldRun):
		return v.heldAction("continue")
	case key.Matches(msg, k.HeldAbort):
		return v.heldAction("abort")
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		d := 1
		if key.Matches(msg, k.FocusPrev) {
			d = 3
		}
		v.SetFocus((v.focus + Pane(d)) % 4)
	case msg.Type == tea.KeyEsc:
		if v.ClearFilter() {
			return v.loadNow()
		}
	case key.Matches(msg, k.Filter):
		v.StartFilter()
	case key.Matches(msg, k.Loopback):
		v.loopback = !v.loopback
		v.list.dirty = true
		note := v.tr.NoteLoopbackHidden
		if v.loopback {
			note = v.tr.NoteLoopbackShown
		}
		return tea.Batch(noteCmd(note), v.loadNow())
	case key.Matches(msg, k.StageSource), v.focus == PaneLane && msg.Type == tea.KeyEnter:
		cmd, ok := v.ShowSource()
		if !ok {
			return noteCmd(v.tr.NoteStageNoCode)
		}
		v.SetFocus(PaneSource)
		return cmd
	case key.Matches(msg, k.StageEtcd):
		// The selected stage's key; from any other stage, the lane's storage key: one key
		// takes the learner from a request to what it stored.
		t, s, ok := v.Stage()
		key := ""
		if ok {
			key = StorageKey(s)
		}
		for _, st := range t.Stages {
			if key == "" && st.Name == tracing.StageStorage {
				key = StorageKey(st)
			}
		}
		if key == "" {
			return noteCmd(v.tr.NoteStageNoEtcd)
		}
		// The etcd view acts on it: the root brings that view up and hands it the key.
		return func() tea.Msg { return etcd.OpenKeyMsg{Key: key} }
	case v.focus == PaneList && msg.Type == tea.KeyEnter:
		v.SetFocus(PaneLane)
	case v.focus == PaneSource && key.Matches(msg, k.Upstream):
		return v.source.ToggleUpstream()
	case v.focus == PaneSource && key.Matches(msg, k.Wrap):
		v.source.ToggleWrap()
	case v.focus == PaneLane && (msg.String() == "left" || msg.String() == "h"):
		v.MoveStage(-1)
	case v.focus == PaneLane && (msg.String() == "right" || msg.String() == "l"):
		v.MoveStage(1)
	default:
		v.scrollKey(msg)
	}
	return nil
}

// scrollKey moves in the focused pane: the list's cursor, the lane's stage (↑/↓; the other
// scroll keys scroll its text), the details' text, the code.
func (v *Model) scrollKey(msg tea.KeyMsg) {
	s := v.c.Scroll
	switch v.focus {
	case PaneList:
		if n, ok := scrollStep(msg, s, max(v.listRows()-1, 1)); ok {
			v.Move(n)
		}
	case PaneLane:
		switch {
		case key.Matches(msg, s.Up):
			v.MoveStage(-1)
		case key.Matches(msg, s.Down):
			v.MoveStage(1)
		default:
			v.lane.ScrollKey(msg, s)
		}
	case PaneDetails:
		v.details.ScrollKey(msg, s)
	case PaneSource:
		if n, ok := scrollStep(msg, s, v.source.Page()); ok {
			v.source.Scroll(n)
		}
	}
}

// scrollStep maps a scroll key onto a move of ±1, ±page or to either end, for what is not a
// common.TextPane: the list's cursor (it renders only the rows in view) and the source pane.
func scrollStep(msg tea.KeyMsg, s common.ScrollKeys, page int) (int, bool) {
	switch {
	case key.Matches(msg, s.Up):
		return -1, true
	case key.Matches(msg, s.Down):
		return 1, true
	case key.Matches(msg, s.PageUp):
		return -page, true
	case key.Matches(msg, s.PageDown):
		return page, true
	case key.Matches(msg, s.Top):
		return -1 << 30, true
	case key.Matches(msg, s.Bottom):
		return 1 << 30, true
	}
	return 0, false
}

// mouse focuses the pane under a click or the wheel, and the wheel scrolls it (coordinates
// are relative to the view's corner). While zoomed the focused pane fills the body.
func (v *Model) mouse(msg tea.MouseMsg) {
	if !v.zoomed {
		targets := []struct {
			at rect
			p  Pane
		}{{v.rList, PaneList}}
		if v.wide {
			targets = append(targets, struct {
				at rect
				p  Pane
			}{v.rLane, PaneLane}, struct {
				at rect
				p  Pane
			}{v.rDetails, PaneDetails}, struct {
				at rect
				p  Pane
			}{v.rSource, PaneSource})
		} else {
			targets = append(targets, struct {
				at rect
				p  Pane
			}{v.rLane, v.tab})
		}
		for _, t := range targets {
			if t.at.contains(msg.X, msg.Y) {
				v.SetFocus(t.p)
				break
			}
		}
	}
	n := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		n = -common.WheelStep
	case tea.MouseButtonWheelDown:
		n = common.WheelStep
	default:
		return
	}
	switch v.focus {
	case PaneList:
		v.Move(n)
	case PaneLane:
		v.lane.Scroll(n)
	case PaneDetails:
		v.details.Scroll(n)
	case PaneSource:
		v.source.Scroll(n)
	}
}

// SetFocus focuses a pane (and, in the stacked layout, shows it in the shared place).
func (v *Model) SetFocus(p Pane) {
	v.focus = p
	v.list.dirty = true
	v.applyFocus()
}

// applyFocus tells the panes who is focused and sets the stacked layout's tab bar.
func (v *Model) applyFocus() {
	if !v.wide && v.focus != PaneList {
		v.tab = v.focus
	}
	v.lane.SetFocused(v.focus == PaneLane)
	v.details.SetFocused(v.focus == PaneDetails)
	v.source.SetFocused(v.focus == PaneSource)
	bar := ""
	if !v.wide {
		var parts []string
		for _, p := range []Pane{PaneLane, PaneDetails, PaneSource} {
			if p == v.tab {
				parts = append(parts, "["+p.name(v.tr)+"]")
			} else {
				parts = append(parts, p.name(v.tr))
			}
		}
		bar = strings.Join(parts, " ")
	}
	v.lane.SetTabs(bar)
	v.details.SetTabs(bar)
	v.source.SetTabs(bar)
}

// layout places the panes in a body of w×h: side by side from WideWidth, else the list over
// one shared place; zoomed, the focused pane takes the whole body. It lays out again only
// when the size, the zoom or (zoomed) the focus changed.
func (v *Model) layout(w, h int, zoom bool) {
	v.zoomed = zoom
	if v.laid && w == v.lw && h == v.lh && v.zoomed == v.lz && (!v.zoomed || v.focus == v.lf) {
		return
	}
	v.laid, v.lw, v.lh, v.lz, v.lf = true, w, h, v.zoomed, v.focus
	wide := w >= WideWidth
	if wide {
		leftW := w / 2
		rightW := w - leftW
		listH := h * 40 / 100
		detH := h / 2
		v.rList = rect{0, 0, leftW, listH}
		v.rLane = rect{0, listH, leftW, h - listH}
		v.rDetails = rect{leftW, 0, rightW, detH}
		v.rSource = rect{leftW, detH, rightW, h - detH}
	} else {
		listH := h * 40 / 100
		v.rList = rect{0, 0, w, listH}
		v.rLane = rect{0, listH, w, h - listH}
		v.rDetails, v.rSource = v.rLane, v.rLane
	}
	list, lane, details, source := v.rList, v.rLane, v.rDetails, v.rSource
	if v.zoomed {
		full := rect{0, 0, w, h}
		switch v.focus {
		case PaneList:
			list = full
		case PaneLane:
			lane = full
		case PaneDetails:
			details = full
		case PaneSource:
			source = full
		}
		if !wide && v.focus != PaneList {
			lane, details, source = full, full, full
		}
	}
	v.setSize(wide, list, lane, details, source)
	v.applyFocus()
}

// Layout lays the panes out for a body of w×h before the view is first drawn (the root, at
// each resize), so that code resolved for a held request that takes the screen scrolls to
// its focus in a pane of its final size.
// It keeps the zoom the view was last drawn with.
func (v *Model) Layout(w, h int) { v.layout(w, h, v.zoomed) }

// listening reports whether requests can reach the server: the server's own state, not the
// walkthrough's (paused in the serve phase, it listens already).
func (v *Model) listening() bool { return v.opt.Listening != nil && v.opt.Listening() }

// ZoomView renders the focused pane alone at w×h (view.Zoomer: the root's z).
func (v *Model) ZoomView(w, h int) []string {
	v.layout(w, h, true)
	switch v.focus {
	case PaneList:
		return v.listView(true, v.opt.Requests != nil, v.listening())
	case PaneDetails:
		return v.details.View()
	case PaneSource:
		return v.source.View()
	}
	return v.lane.View()
}

// View renders the view at w×h.
func (v *Model) View(w, h int) []string {
	v.layout(w, h, false)
	listening := v.listening()
	list := v.listView(v.focus == PaneList, v.opt.Requests != nil, listening)
	if v.wide {
		left := append(append([]string{}, list...), v.lane.View()...)
		right := append(append([]string{}, v.details.View()...), v.source.View()...)
		return common.JoinColumns(left, right)
	}
	var shared []string
	switch v.tab {
	case PaneDetails:
		shared = v.details.View()
	case PaneSource:
		shared = v.source.View()
	default:
		shared = v.lane.View()
	}
	return append(append([]string{}, list...), shared...)
}

// Invalidate draws every pane again on the next View (the list, the lane, the details, the
// code), as after a change.
func (v *Model) Invalidate() {
	v.list.dirty = true
	v.source.Invalidate()
	v.lane.Invalidate()
	v.details.Invalidate()
}

// heldChanged jumps to a request held since the last snapshot, and follows the selected
// request from stage to stage as it is stepped.
func (v *Model) heldChanged(held []HeldRequest) tea.Cmd {
	now := map[string]string{}
	var fresh *HeldRequest
	moved := ""
	for i, h := range held {
		now[h.ID] = h.Stage
		prev, seen := v.heldSeen[h.ID]
		switch {
		case !seen && fresh == nil:
			fresh = &held[i]
		case seen && prev != h.Stage && h.ID == v.sel:
			moved = h.Stage
		}
	}
	v.heldSeen = now
	if fresh == nil {
		if moved == "" {
			return nil
		}
		v.Select(v.sel, moved)
		cmd, _ := v.ShowSource()
		return cmd
	}
	if v.opt.Typing != nil && v.opt.Typing() {
		return noteCmd(fmt.Sprintf(v.tr.NoteHeldWhileTyping, fresh.Stage))
	}
	v.Select(fresh.ID, fresh.Stage)
	v.SetFocus(PaneLane)
	note := fmt.Sprintf(v.tr.NoteHeldJump, fresh.Stage)
	cmd, _ := v.ShowSource()
	return tea.Batch(func() tea.Msg { return ShowMsg{Note: note} }, cmd)
}

// heldAction steps, continues or aborts the held request the screen is about.
func (v *Model) heldAction(action string) tea.Cmd {
	bps := v.opt.Breakpoints
	if bps == nil {
		return noteCmd(v.tr.NoteBreakNotWired)
	}
	h, ok := v.focusHeld()
	if !ok {
		return noteCmd(v.tr.NoteNothingHeld)
	}
	id := h.ID
	return func() tea.Msg {
		var err error
		switch action {
		case "step":
			err = bps.Step(id)
		case "continue":
			err = bps.Continue(id)
		default:
			err = bps.Abort(id)
		}
		return heldActionMsg{action: action, id: id, err: err}
	}
}

// focusHeld is the held request the screen is about: the selected one when it is held, else
// the one held longest.
func (v *Model) focusHeld() (HeldRequest, bool) {
	if h, ok := v.held[v.sel]; ok {
		return h, true
	}
	var first HeldRequest
	found := false
	for _, h := range v.held {
		if !found || h.Since.Before(first.Since) || (h.Since.Equal(first.Since) && h.ID < first.ID) {
			first, found = h, true
		}
	}
	return first, found
}

// HeldCount is how many requests breakpoints hold now (the status line says so).
func (v *Model) HeldCount() int { return len(v.held) }

// HeldAt is the stage the request id is held at, as the last load saw it ("" when it is not).
func (v *Model) HeldAt(id string) string { return v.heldSeen[id] }

// Breakpoints are the breakpoints set, as the last load read them (the command line
// completes :unbreak from them).
func (v *Model) Breakpoints() []string { return v.breakpoints }

// Armed reports whether the store's subscription waiter is running.
func (v *Model) Armed() bool { return v.armed }

// WaiterBlocked reports whether the subscription waiter is blocked on its channel right now
// (the root's test harness counts only a blocked waiter as idle; see view.Waiter).
func (v *Model) WaiterBlocked() bool { return v.blocked.Blocked() }

// Loading reports whether the source pane resolves a stage's code.
func (v *Model) Loading() bool { return v.source.Loading() }

// Load reads the store now with the view's filter and selection; the command's message is a
// snapshot for Update (nil without a store).
func (v *Model) Load() tea.Cmd { return v.loadNow() }

// Shown are the listed traces, newest first; Dropped is how many the store's ring let go.
func (v *Model) Shown() []tracing.Trace { return v.shown }

// Dropped is how many traces the store's ring has let go, as the last load read it.
func (v *Model) Dropped() uint64 { return v.dropped }

// SelectedID is the selected trace's ID ("" for none).
func (v *Model) SelectedID() string { return v.sel }

// Selected is the selected trace, if it is still known.
func (v *Model) Selected() (tracing.Trace, bool) { return v.selected() }

// Focus is the focused pane.
func (v *Model) Focus() Pane { return v.focus }

// LanePane and DetailsPane are the lane's and the request's panes, SourcePane the stage's
// code (what they show is what tests read).
func (v *Model) LanePane() *common.TextPane { return v.lane }

// DetailsPane is the selected request's attributes.
func (v *Model) DetailsPane() *common.TextPane { return v.details }

// SourcePane is the stage's code.
func (v *Model) SourcePane() *source.Pane { return v.source }
