// Package kubectl is the :kubectl view: a kubectl command run in-process against the
// walkthrough's server (runtime/kubectl), its output as it comes, and beside it the requests
// it made with their lanes; a text box for the manifest of `-f -`; and a watch that goes on
// beside the next command, its newest lines under it, as a second terminal would.
//
// It implements view.View and view.Capturer (the text box sees every key but ctrl+c). What it
// needs of the rest of the screen comes in through Options: the server, the runner, the
// layout's width and the tab keys. It speaks the Requests view's messages itself: it returns
// requests.ReloadMsg (read the store: a command made a request) and requests.OpenMsg (enter on
// a request), takes the traces from requests.TracesMsg and sums a lane up with
// requests.LaneSummary.
package kubectl

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	kctl "github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// Options are what the view reads of the rest of the screen.
type Options struct {
	// Ctx ends the commands the view runs (the screen cancels it when it ends).
	Ctx context.Context
	// Server is the walkthrough's server; nil: none.
	Server Server
	// NewKubectl makes the runner; nil says kubectl inside the TUI is not wired.
	NewKubectl NewKubectl
	// Wired says a trace store is there to read the requests' lanes from.
	Wired bool
	// WideWidth is the width from which the two panes go side by side (the screen's layout).
	WideWidth int
	// FocusNext and FocusPrev move the focus between the panes (the learner's key map).
	FocusNext, FocusPrev key.Binding
}

// pane names a pane of the view.
type pane int

const (
	paneOutput pane = iota
	paneRequests
)

// BesideLines is how many of its newest lines a command beside shows.
const BesideLines = 8

// waitEnd bounds how long Close waits for a command to return once stopped.
const waitEnd = 10 * time.Second

// Model is the kubectl view: a command's output, and beside it the requests it made with
// their lanes.
type Model struct {
	c    common.Common
	opts Options
	keys KeyMap
	kube *holder // nil: kubectl inside the TUI is not wired

	out   *common.TextPane
	reqs  *common.TextPane
	focus pane
	// The sizes the panes were laid out for (View lays them out again when they change).
	outW, outH, reqsW, reqsH int
	// The rectangles the panes were drawn in, relative to the view (for the mouse).
	outAt, reqsAt rect

	run     *Run
	running bool
	done    bool
	res     kctl.Result
	live    []kctl.Request // the running command's requests so far
	err     error
	notice  []string // said instead of running (not serving, not wired)
	traces  map[string]tracing.Trace
	cursor  int

	// box, while open, is the text box for the manifest that `-f -` reads.
	box *manifestBox

	// bg is the command that goes on beside the one in front, or nil: a watch that was open
	// when the next command started (the runner lets the next run beside an open watch). Its
	// newest lines show at the bottom of the output pane, as a second terminal would.
	bg *Run

	// The output wrapped to the pane so far, kept so that a line arriving costs only its own
	// wrapping: wrapped holds the rows of the complete lines from line number wrapFirst on,
	// rowsOf how many rows each took; wrapW is the width they were wrapped at.
	wrapped   []string
	rowsOf    []int
	wrapFirst int
	wrapW     int

	// notes are said in order (view.Noter): "stopping kubectl…", its clear and "the watch
	// beside has ended" follow one another within milliseconds.
	view.Notes
}

var (
	_ view.View     = (*Model)(nil)
	_ view.Capturer = (*Model)(nil)
	_ view.Zoomer   = (*Model)(nil)
	_ view.Noter    = (*Model)(nil)
)

// New makes the view.
func New(c common.Common, opts Options) *Model {
	if opts.Ctx == nil {
		opts.Ctx = context.Background()
	}
	v := &Model{c: c, opts: opts, keys: NewKeyMap(c.Tr),
		out: common.NewTextPane(c.Styles, c.Tr.PaneKubectl), reqs: common.NewTextPane(c.Styles, c.Tr.PaneRequestsMade),
		traces: map[string]tracing.Trace{}}
	if opts.NewKubectl != nil {
		v.kube = &holder{tr: c.Tr, make: opts.NewKubectl}
	}
	v.out.SetTail()
	v.out.SetFocused(true)
	v.relayout()
	return v
}

// Init starts nothing: a command starts from the : line (Line).
func (v *Model) Init() tea.Cmd { return nil }

// Title is the header's name and hint.
func (v *Model) Title() (string, string) { return v.c.Tr.ViewKubectlTitle, v.c.Tr.ViewKubectlHint }

// Capturing reports whether the text box is open: it takes every key.
func (v *Model) Capturing() bool { return v.box != nil }

// Keys are the help bar's bindings: the text box's while it is open (every other key is typed
// into it, q and : too), else the view's; the screen adds z after them (view.Zoomer).
func (v *Model) Keys() []key.Binding {
	k := v.keys
	if v.box != nil {
		return []key.Binding{k.RunBox, k.PutAway, k.QuitAll}
	}
	var out []key.Binding
	if v.running || v.bg != nil {
		out = append(out, k.Stop)
	}
	out = append(out, v.opts.FocusNext, k.Scroll)
	if v.focus == paneRequests {
		out = append(out, k.Open)
	}
	return out
}

// Update handles the keys and the mouse routed to the view, and its commands' messages.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		if v.box != nil {
			return v.boxKey(msg)
		}
		return v.key(msg)
	case tea.MouseMsg:
		v.mouse(msg)
	case outputMsg:
		var load tea.Cmd
		if msg.run == v.run && v.output() {
			load = v.requestsChanged() // a new request: read its lane
		}
		if msg.run == v.bg {
			v.relayoutOutput()
		}
		select {
		case <-msg.run.done:
			return load
		default:
			return tea.Batch(load, waitOutput(msg.run))
		}
	case requests.TracesMsg:
		v.SetTraces(msg.Traces)
	case doneMsg:
		msg.run.cancel()
		if msg.run == v.bg {
			v.bg = nil
			v.relayoutOutput()
			return v.say(fmt.Sprintf(v.c.Tr.NoteKubectlBesideEnded, kctl.Quote(msg.run.args)))
		}
		if msg.run == v.run {
			v.running, v.done, v.res, v.err = false, true, msg.res, msg.err
			v.relayout()
			var said tea.Cmd
			if msg.res.Canceled {
				said = v.say("")
			}
			var ref *kctl.RefusedError
			if errors.As(msg.err, &ref) {
				said = v.say(v.c.Tr.NoteKubectlRefused)
				if ref.Command == "" {
					said = v.say(v.c.Tr.NoteKubectlRefusedHere)
				}
			}
			return tea.Batch(said, v.requestsChanged())
		}
	}
	return nil
}

// say sets the status line's note: the root takes it after this message (view.Noter), in the
// order the view says them. It returns no command; callers batch it as one.
func (v *Model) say(s string) tea.Cmd {
	v.Say(s)
	return nil
}

// requestsChanged asks the Requests view to read the trace store again (a command made a
// request: its lane is to be read).
func (v *Model) requestsChanged() tea.Cmd {
	return func() tea.Msg { return requests.ReloadMsg{} }
}

// key handles a key while the text box is shut.
func (v *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := v.keys
	switch {
	case key.Matches(msg, k.Stop):
		switch {
		case v.running:
			v.run.cancel()
			return v.say(v.c.Tr.NoteStoppingKubectl)
		case v.bg != nil:
			v.bg.cancel()
			return v.say(v.c.Tr.NoteStoppingKubectl)
		}
	case key.Matches(msg, v.opts.FocusNext), key.Matches(msg, v.opts.FocusPrev):
		v.setFocus(1 - v.focus)
	case v.focus == paneRequests && key.Matches(msg, k.Open):
		id := v.selected()
		if id == "" || !v.opts.Wired {
			return v.say(v.c.Tr.NoteNoLane)
		}
		return func() tea.Msg { return requests.OpenMsg{ID: id} }
	case v.focus == paneRequests && (key.Matches(msg, v.c.Scroll.Up) || key.Matches(msg, v.c.Scroll.Down)):
		d := 1
		if key.Matches(msg, v.c.Scroll.Up) {
			d = -1
		}
		v.moveRequest(d)
	default:
		v.focused().ScrollKey(msg, v.c.Scroll)
	}
	return nil
}

// boxKey handles a key while the text box for `-f -` is open: ctrl+d runs the command with the
// manifest, esc puts the box away, anything else is typed into it.
func (v *Model) boxKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, v.keys.RunBox):
		line, args, manifest := v.closeBox()
		if strings.TrimSpace(manifest) == "" {
			return v.say(v.c.Tr.KubectlBoxEmpty)
		}
		return v.start(line, args, manifest, true)
	case key.Matches(msg, v.keys.PutAway):
		v.closeBox()
		return v.say(v.c.Tr.KubectlBoxCancelled)
	}
	var cmd tea.Cmd
	v.box.ta, cmd = v.box.ta.Update(msg)
	v.relayoutOutput()
	return cmd
}

// focused is the pane with the focus.
func (v *Model) focused() *common.TextPane {
	if v.focus == paneRequests {
		return v.reqs
	}
	return v.out
}

func (v *Model) setFocus(p pane) {
	v.focus = p
	v.out.SetFocused(p == paneOutput)
	v.reqs.SetFocused(p == paneRequests)
}

// rect is a pane's place in the view.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// layout places the panes in a body of w×h: side by side from WideWidth on, else the output
// over the requests; zoomed, the focused pane takes the whole body and the other keeps its
// size (it is not drawn).
func (v *Model) layout(w, h int, zoom bool) (out, reqs rect) {
	if v.opts.WideWidth > 0 && w >= v.opts.WideWidth {
		outW := w * 60 / 100
		out, reqs = rect{0, 0, outW, h}, rect{outW, 0, w - outW, h}
	} else {
		outH := h * 60 / 100
		out, reqs = rect{0, 0, w, outH}, rect{0, outH, w, h - outH}
	}
	if zoom {
		if v.focus == paneRequests {
			reqs = rect{0, 0, w, h}
		} else {
			out = rect{0, 0, w, h}
		}
	}
	return out, reqs
}

// View renders the view at w×h, laying the panes out again when their sizes changed.
func (v *Model) View(w, h int) []string { return v.render(w, h, false) }

// ZoomView renders the focused pane alone at w×h: the screen's zoom (z) is on
// (view.Zoomer).
func (v *Model) ZoomView(w, h int) []string { return v.render(w, h, true) }

// render lays the panes out for w×h, zoomed or not, and draws them.
func (v *Model) render(w, h int, zoom bool) []string {
	out, reqs := v.layout(w, h, zoom)
	v.outAt, v.reqsAt = out, reqs
	switch {
	case zoom && v.focus == paneRequests:
		v.outAt = rect{} // not drawn: the mouse finds only the zoomed pane
	case zoom:
		v.reqsAt = rect{}
	}
	if out.w != v.outW || out.h != v.outH || reqs.w != v.reqsW || reqs.h != v.reqsH {
		v.outW, v.outH, v.reqsW, v.reqsH = out.w, out.h, reqs.w, reqs.h
		v.out.SetSize(out.w, out.h)
		v.reqs.SetSize(reqs.w, reqs.h)
		v.relayout()
	}
	switch {
	case zoom:
		return v.focused().View()
	case out.x != reqs.x:
		return common.JoinColumns(v.out.View(), v.reqs.View())
	}
	return append(append([]string{}, v.out.View()...), v.reqs.View()...)
}

// mouse handles the mouse (coordinates relative to the view): a click focuses the pane under
// it, the wheel focuses it and scrolls it.
func (v *Model) mouse(msg tea.MouseMsg) {
	switch {
	case v.outAt.contains(msg.X, msg.Y):
		v.setFocus(paneOutput)
	case v.reqsAt.contains(msg.X, msg.Y):
		v.setFocus(paneRequests)
	}
	v.focused().ScrollMouse(msg)
}

// Line runs `:kubectl REST` (no REST shows the view with the last command). It returns the
// command to run and "" when the screen is to show the view, or why the line cannot run
// (the command line shows it and keeps the line).
func (v *Model) Line(rest string) (tea.Cmd, string) {
	tr := v.c.Tr
	if rest == "" {
		return nil, ""
	}
	args, err := kctl.Split(rest)
	if err != nil {
		var pe *kctl.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Sprintf(tr.CmdColumn, pe.Col+len(":k "), pe.MsgIn(tr))
		}
		return nil, err.Error()
	}
	if len(args) > 0 && args[0] == "kubectl" {
		args = args[1:]
	}
	if why := v.busy(); why != "" {
		return nil, why
	}
	v.setFocus(paneOutput)
	// What the server answers is the server's own state, not how far the walkthrough has
	// gone: paused at serve/kubeconfig (a student following an instructor who ran to the end
	// stopped there), the server serves and its kubeconfig is written.
	srv := v.opts.Server
	status := server.NotListening
	if srv != nil {
		status = srv.ServeStatus()
	}
	st := v.c.Styles
	switch {
	case srv == nil || status == server.NotListening:
		v.showNotice(rest, args, st.Served.Failing.Render(tr.KubectlNotServing), tr.KubectlRunToEnd)
		return nil, ""
	case status == server.Listening:
		v.showNotice(rest, args, tr.KubectlNoKubeconfigYet, tr.KubectlRunToEnd)
		return nil, ""
	case status == server.Stopped:
		v.showNotice(rest, args, st.Served.Failing.Render(tr.KubectlServerStopped))
		return nil, ""
	case v.kube == nil:
		v.showNotice(rest, args, tr.KubectlNotWired, "  KUBECONFIG="+srv.Kubeconfig()+" kubectl "+kctl.Quote(args))
		return nil, ""
	}
	if kctl.ReadsStdin(args) {
		return v.openBox(rest, args), ""
	}
	return v.start(rest, args, "", false), ""
}

// busy says why no kubectl command may start now ("" if one may): one runs that has no watch
// open yet, or one runs beside already.
func (v *Model) busy() string {
	switch {
	case v.canStart():
		return ""
	case v.bg != nil && v.run.WatchOpen():
		return fmt.Sprintf(v.c.Tr.CmdKubectlBesideBusy, kctl.Quote(v.bg.args))
	}
	return fmt.Sprintf(v.c.Tr.CmdKubectlRunning, kctl.Quote(v.run.args))
}

// canStart reports whether a command may start now: none runs, or the one running has its
// watch open and none runs beside yet (it then goes on beside the new one).
func (v *Model) canStart() bool {
	return !v.running || (v.bg == nil && v.run != nil && v.run.WatchOpen())
}

// start runs a kubectl command line in the pane, with input as its standard input when
// hasInput (the text box's manifest). A command running with its watch open goes on beside it.
func (v *Model) start(line string, args []string, input string, hasInput bool) tea.Cmd {
	if why := v.busy(); why != "" {
		return v.say(why)
	}
	var said tea.Cmd
	if v.running {
		said = v.say(fmt.Sprintf(v.c.Tr.NoteKubectlBeside, kctl.Quote(v.run.args)))
	}
	ctx, cancel := context.WithCancel(v.opts.Ctx)
	run := newRun(line, args, cancel)
	run.input, run.hasInput = input, hasInput
	v.show(run)
	return tea.Batch(said, runKubectl(v.kube, v.opts.Server.Kubeconfig(), run, ctx), waitOutput(run))
}

// show shows a command that is about to run; the one running, if any, goes on beside it
// (canStart said it may).
func (v *Model) show(run *Run) {
	if v.running {
		v.bg = v.run
	}
	v.run, v.running, v.done, v.err, v.notice = run, true, false, nil, nil
	v.wrapped, v.rowsOf, v.wrapFirst = nil, nil, 0
	v.res = kctl.Result{}
	v.live = nil
	v.traces = map[string]tracing.Trace{}
	v.cursor = 0
	v.out.Follow()
	v.setFocus(paneOutput)
	v.relayout()
}

// showNotice shows a command that was not run, and why; one running goes on beside it.
func (v *Model) showNotice(line string, args []string, why ...string) {
	if v.running {
		v.bg = v.run
	}
	v.run = newRun(line, args, func() {})
	close(v.run.done)
	v.wrapped, v.rowsOf, v.wrapFirst = nil, nil, 0
	v.running, v.done, v.err = false, true, nil
	v.res = kctl.Result{}
	v.live = nil
	v.notice = why
	v.traces = map[string]tracing.Trace{}
	v.relayout()
}

// output re-reads the run's output and the requests it has made; it reports whether a
// request is new (its lane is then to be read).
func (v *Model) output() bool {
	fresh := false
	if v.running && v.run != nil {
		if rs := v.run.requests(); len(rs) != len(v.live) {
			v.live, fresh = rs, true
		}
	}
	v.relayout()
	return fresh
}

// requests are the command's requests: all of them once it has ended, those answered so far
// while it runs.
func (v *Model) requests() []kctl.Request {
	if v.done {
		return v.res.Requests
	}
	return v.live
}

// IDs are the audit IDs of the requests the last command made (so far, while it runs): the
// traces the requests code is to read for this view.
func (v *Model) IDs() []string {
	var ids []string
	for _, q := range v.requests() {
		if q.AuditID != "" {
			ids = append(ids, q.AuditID)
		}
	}
	return ids
}

// SetTraces takes the lanes of the command's requests from a store snapshot.
func (v *Model) SetTraces(extra map[string]tracing.Trace) {
	changed := false
	for _, id := range v.IDs() {
		if t, ok := extra[id]; ok {
			old, had := v.traces[id]
			if !had || old.Done != t.Done || len(old.Stages) != len(t.Stages) || old.Code != t.Code {
				changed = true
			}
			v.traces[id] = t
		}
	}
	if changed {
		v.relayoutRequests()
	}
}

// selected is the audit ID of the request under the cursor.
func (v *Model) selected() string {
	rs := v.requests()
	if v.cursor < 0 || v.cursor >= len(rs) {
		return ""
	}
	return rs[v.cursor].AuditID
}

// moveRequest moves the request cursor.
func (v *Model) moveRequest(n int) {
	if len(v.requests()) == 0 {
		return
	}
	v.cursor = max(min(v.cursor+n, len(v.requests())-1), 0)
	v.relayoutRequests()
}

// Front is the command in front (the last one started or refused), or nil.
func (v *Model) Front() *Run { return v.run }

// Beside is the command going on beside the one in front (a watch), or nil.
func (v *Model) Beside() *Run { return v.bg }

// Running reports whether the command in front runs.
func (v *Model) Running() bool { return v.running }

// Finished reports whether the command in front has ended (or was not run).
func (v *Model) Finished() bool { return v.done }

// Result is how the command in front ended (zero while it runs).
func (v *Model) Result() kctl.Result { return v.res }

// Lanes is how many of the command's requests have their lane read.
func (v *Model) Lanes() int { return len(v.traces) }

// Close stops the commands that run (waiting, bounded, for each to return) and closes the
// runner; later commands are refused. The screen calls it once, when it ends.
func (v *Model) Close() error {
	for _, run := range []*Run{v.run, v.bg} {
		if run == nil {
			continue
		}
		run.cancel()
		t := time.NewTimer(waitEnd)
		select {
		case <-run.done:
		case <-t.C:
		}
		t.Stop()
	}
	if v.kube == nil {
		return nil
	}
	if err := v.kube.Close(); err != nil {
		return fmt.Errorf(v.c.Tr.ErrCloseKubectl, err)
	}
	return nil
}

// manifestBox is the text box a command with `-f -` reads its manifest from: kubectl in a pane
// has no terminal of its own to read (and a student over SSH has no file to name), so
// `:k apply -f -` opens it; ctrl+d runs the command with what was typed or pasted, as the end of
// input does in a shell, and esc puts it away.
type manifestBox struct {
	line string
	args []string
	ta   textarea.Model
}

// maxManifest bounds the manifest a box takes.
const maxManifest = 256 << 10

// openBox opens the text box for the command line and args.
func (v *Model) openBox(line string, args []string) tea.Cmd {
	ta := textarea.New()
	ta.ShowLineNumbers = true
	ta.CharLimit = maxManifest
	ta.MaxHeight = 2000
	ta.Prompt = ""
	// textarea's ctrl+v reads the clipboard by running xclip or wl-paste: a program on this
	// machine, and this machine's clipboard, which is not a student's over SSH. The terminal's
	// own paste arrives as typed text and still works.
	ta.KeyMap.Paste.SetEnabled(false)
	v.box = &manifestBox{line: line, args: args, ta: ta}
	v.setFocus(paneOutput)
	v.relayout()
	return v.box.ta.Focus()
}

// closeBox puts the text box away and returns the command and what was typed.
func (v *Model) closeBox() (line string, args []string, manifest string) {
	b := v.box
	v.box = nil
	v.relayout()
	if b == nil {
		return "", nil, ""
	}
	return b.line, b.args, b.ta.Value()
}
