package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// maxKubectlLines bounds the output the pane keeps (the oldest lines go first).
const maxKubectlLines = 10000

// kubectlHolder makes the runner on first use (the kubeconfig exists only once the server
// serves) and closes it when the screen ends. Only tea.Cmds and shutdown use it.
type kubectlHolder struct {
	mu     sync.Mutex
	tr     *i18n.Strings
	make   NewKubectl
	r      Kubectl
	closed bool
}

func (h *kubectlHolder) get(kubeconfig string) (Kubectl, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errors.New(h.tr.KubectlShuttingDown)
	}
	if h.r == nil {
		r, err := h.make(kubeconfig)
		if err != nil {
			return nil, fmt.Errorf(h.tr.KubectlStarting, err)
		}
		h.r = r
	}
	return h.r, nil
}

// Close closes the runner, if one was made; later gets fail.
func (h *kubectlHolder) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.r == nil {
		return nil
	}
	return h.r.Close()
}

// kcRun is one kubectl command: the writer its output goes to (written on the command's
// goroutine, read by the update loop on each kcOutputMsg), and how to stop it.
type kcRun struct {
	line   string
	args   []string
	ctx    string // the --context it runs as
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	notify chan struct{} // output arrived (coalesced)

	input    string // the manifest of `-f -`, from the text box
	hasInput bool

	mu      sync.Mutex
	lines   []string
	partial []byte
	dropped int
	reqs    []kubectl.Request // as their responses arrived (ObserveRequest)
}

// KubectlInput implements kubectl.InputProvider: the manifest typed into the text box.
func (r *kcRun) KubectlInput() (string, bool) { return r.input, r.hasInput }

// ObserveRequest implements kubectl.RequestObserver: the pane lists a command's requests, and
// their lanes, while it runs (a `get -w` ends only when stopped).
func (r *kcRun) ObserveRequest(q kubectl.Request) {
	r.mu.Lock()
	r.reqs = append(r.reqs, q)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// watchOpen reports whether the command has a watch the server answered 200: the runner
// lets the next command run beside it from then on.
func (r *kcRun) watchOpen() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.reqs {
		if q.WatchOpen() {
			return true
		}
	}
	return false
}

// tail returns the last n lines of output (the unfinished last line among them) and how many
// lines came before them.
func (r *kcRun) tail(n int) (lines []string, before int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.lines
	if len(r.partial) > 0 {
		all = append(all[:len(all):len(all)], cleanLine(r.partial))
	}
	start := max(len(all)-n, 0)
	return append([]string(nil), all[start:]...), r.dropped + start
}

// requests returns the requests observed so far.
func (r *kcRun) requests() []kubectl.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]kubectl.Request(nil), r.reqs...)
}

func newKcRun(line string, args []string, cancel context.CancelFunc) *kcRun {
	return &kcRun{line: line, args: args, ctx: contextOf(args), cancel: cancel,
		done: make(chan struct{}), notify: make(chan struct{}, 1)}
}

// contextOf is the --context args choose, "admin" by default.
func contextOf(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--context" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--context="); ok {
			return v
		}
	}
	return "admin"
}

// Write collects output line by line.
func (r *kcRun) Write(p []byte) (int, error) {
	r.mu.Lock()
	data := append(r.partial, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		r.lines = append(r.lines, cleanLine(data[:i]))
		data = data[i+1:]
	}
	r.partial = append([]byte(nil), data...)
	if over := len(r.lines) - maxKubectlLines; over > maxKubectlLines/10 {
		r.lines = append([]string(nil), r.lines[over:]...)
		r.dropped += over
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

// since returns the complete lines from absolute line number from on (lines are numbered
// from 0 since the command started; those dropped are gone, so from is raised to the first
// kept), the unfinished last line, and the number of the first line returned.
func (r *kcRun) since(from int) (lines []string, partial string, first int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(len(r.lines)-maxKubectlLines, 0)
	first = max(from, r.dropped+start)
	lines = append([]string(nil), r.lines[first-r.dropped:]...)
	if len(r.partial) > 0 {
		partial = cleanLine(r.partial)
	}
	return lines, partial, first
}

// cleanLine makes a line of output safe to draw: no escape sequences or control characters
// (they would move the TUI's cursor), tabs expanded, invalid UTF-8 replaced.
func cleanLine(b []byte) string {
	s := strings.TrimSuffix(string(b), "\r")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	s = ansi.Strip(s)
	if strings.IndexFunc(s, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
		s = strings.Map(func(r rune) rune {
			if r < ' ' && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, s)
	}
	return expandTabs(s)
}

// Messages of a kubectl run.
type (
	kcOutputMsg struct{ run *kcRun }
	kcDoneMsg   struct {
		run *kcRun
		res kubectl.Result
		err error
	}
)

// runKubectl runs the command in a tea.Cmd.
func runKubectl(h *kubectlHolder, kubeconfig string, run *kcRun, ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		defer close(run.done)
		r, err := h.get(kubeconfig)
		if err != nil {
			return kcDoneMsg{run: run, res: kubectl.Result{Args: run.args, ExitCode: 1}, err: err}
		}
		res, err := r.Run(ctx, run.args, run)
		return kcDoneMsg{run: run, res: res, err: err}
	}
}

// waitOutput waits for more output (or the end) of run.
func waitOutput(run *kcRun) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-run.notify:
		case <-run.done:
		}
		return kcOutputMsg{run: run}
	}
}

// kcPane names a pane of the kubectl view.
type kcPane int

const (
	kcOutput kcPane = iota
	kcRequests
)

// kubectlView is the kubectl pane: a command's output, and beside it the requests it made
// with their lanes.
type kubectlView struct {
	st    *Styles
	tr    *i18n.Strings
	out   *textPane
	reqs  *textPane
	focus kcPane

	run     *kcRun
	running bool
	done    bool
	res     kubectl.Result
	live    []kubectl.Request // the running command's requests so far
	err     error
	notice  []string // said instead of running (not serving, not wired)
	traces  map[string]tracing.Trace
	cursor  int
	wired   bool // a trace store is there to read lanes from

	// box, while open, is the text box for the manifest that `-f -` reads.
	box *manifestBox

	// bg is the command that goes on beside the one in front, or nil: a watch that was open
	// when the next command started (the runner lets the next run beside an open watch). Its
	// newest lines show at the bottom of the output pane, as a second terminal would.
	bg *kcRun

	// The output wrapped to the pane so far, kept so that a line arriving costs only its own
	// wrapping: wrapped holds the rows of the complete lines from line number wrapFirst on,
	// rowsOf how many rows each took; wrapW is the width they were wrapped at.
	wrapped   []string
	rowsOf    []int
	wrapFirst int
	wrapW     int
}

func newKubectlView(st *Styles, tr *i18n.Strings) *kubectlView {
	v := &kubectlView{st: st, tr: tr, out: newTextPane(st, tr, tr.PaneKubectl), reqs: newTextPane(st, tr, tr.PaneRequestsMade),
		traces: map[string]tracing.Trace{}}
	v.out.SetTail()
	v.relayout()
	return v
}

// SetSize lays out the panes.
func (v *kubectlView) SetSize(out, reqs rect) {
	v.out.SetSize(out.w, out.h)
	v.reqs.SetSize(reqs.w, reqs.h)
	v.relayout()
}

// besideLines is how many of its newest lines a command beside shows.
const besideLines = 8

// CanStart reports whether a command may start now: none runs, or the one running has its
// watch open and none runs beside yet (it then goes on beside the new one).
func (v *kubectlView) CanStart() bool {
	return !v.running || (v.bg == nil && v.run != nil && v.run.watchOpen())
}

// BesideEnded forgets the command beside, which has ended.
func (v *kubectlView) BesideEnded() {
	v.bg = nil
	v.relayoutOutput()
}

// Start shows a command that is about to run; the one running, if any, goes on beside it
// (CanStart said it may).
func (v *kubectlView) Start(run *kcRun) {
	if v.running {
		v.bg = v.run
	}
	v.run, v.running, v.done, v.err, v.notice = run, true, false, nil, nil
	v.wrapped, v.rowsOf, v.wrapFirst = nil, nil, 0
	v.res = kubectl.Result{}
	v.live = nil
	v.traces = map[string]tracing.Trace{}
	v.cursor = 0
	v.out.Follow()
	v.focus = kcOutput
	v.relayout()
}

// Notice shows a command that was not run, and why; one running goes on beside it.
func (v *kubectlView) Notice(line string, args []string, why ...string) {
	if v.running {
		v.bg = v.run
	}
	v.run = newKcRun(line, args, func() {})
	close(v.run.done)
	v.wrapped, v.rowsOf, v.wrapFirst = nil, nil, 0
	v.running, v.done, v.err = false, true, nil
	v.res = kubectl.Result{}
	v.live = nil
	v.notice = why
	v.traces = map[string]tracing.Trace{}
	v.relayout()
}

// Output re-reads the run's output and the requests it has made; it reports whether a
// request is new (its lane is then to be read).
func (v *kubectlView) Output() bool {
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
func (v *kubectlView) requests() []kubectl.Request {
	if v.done {
		return v.res.Requests
	}
	return v.live
}

// Done records how the command ended.
func (v *kubectlView) Done(msg kcDoneMsg) {
	v.running, v.done, v.res, v.err = false, true, msg.res, msg.err
	v.relayout()
}

// IDs are the audit IDs of the requests the last command made (so far, while it runs).
func (v *kubectlView) IDs() []string {
	var ids []string
	for _, q := range v.requests() {
		if q.AuditID != "" {
			ids = append(ids, q.AuditID)
		}
	}
	return ids
}

// SetTraces takes the lanes of the command's requests from a store snapshot.
func (v *kubectlView) SetTraces(extra map[string]tracing.Trace) {
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

// Selected is the audit ID of the request under the cursor.
func (v *kubectlView) Selected() string {
	rs := v.requests()
	if v.cursor < 0 || v.cursor >= len(rs) {
		return ""
	}
	return rs[v.cursor].AuditID
}

// MoveRequest moves the request cursor.
func (v *kubectlView) MoveRequest(n int) {
	if len(v.requests()) == 0 {
		return
	}
	v.cursor = max(min(v.cursor+n, len(v.requests())-1), 0)
	v.relayoutRequests()
}

func (v *kubectlView) relayout() {
	v.relayoutOutput()
	v.relayoutRequests()
}

func (v *kubectlView) relayoutOutput() {
	w := v.out.Inner()
	st, tr := v.st, v.tr
	if v.box != nil {
		v.out.SetTitle(tr.PaneKubectl, kubectl.Quote(v.box.args), tr.KubectlBoxFigure)
		v.out.SetLines(v.boxLines(w))
		v.out.SetOffset(0)
		return
	}
	if v.run == nil {
		v.out.SetTitle(tr.PaneKubectl, "", "")
		var lines []string
		for _, p := range []string{tr.KubectlIntro, tr.KubectlIntroWatch} {
			lines = append(append(lines, wrapLines(st.Served.Dim.Render(p), w)...), "")
		}
		v.out.SetLines(lines)
		return
	}
	r := v.run
	lines := wrapLines(st.Served.Command.Render("$ kubectl "+kubectl.Quote(r.args))+st.Served.Dim.Render(fmt.Sprintf(tr.KubectlAs, r.ctx)), w)
	if w != v.wrapW {
		v.wrapped, v.rowsOf, v.wrapFirst, v.wrapW = nil, nil, 0, w
	}
	fresh, partial, first := r.since(v.wrapFirst + len(v.rowsOf))
	if first > v.wrapFirst+len(v.rowsOf) {
		// The run dropped lines this pane never wrapped: start again from what it kept.
		v.wrapped, v.rowsOf, v.wrapFirst = nil, nil, first
	}
	for _, l := range fresh {
		rows := wrapLines(l, w)
		if len(rows) == 0 {
			rows = []string{""}
		}
		v.wrapped = append(v.wrapped, rows...)
		v.rowsOf = append(v.rowsOf, len(rows))
	}
	for len(v.rowsOf) > maxKubectlLines {
		v.wrapped = v.wrapped[v.rowsOf[0]:]
		v.rowsOf = v.rowsOf[1:]
		v.wrapFirst++
	}
	if v.wrapFirst > 0 {
		lines = append(lines, st.Served.Dim.Render(fmt.Sprintf(tr.KubectlDropped, v.wrapFirst)))
	}
	lines = append(lines, v.wrapped...)
	if partial != "" {
		lines = append(lines, wrapLines(partial, w)...)
	}
	figure := ""
	var tail []string
	var ref *kubectl.RefusedError
	switch {
	case len(v.notice) > 0:
		figure = tr.KubectlNotRun
		for _, n := range v.notice {
			tail = append(tail, wrapLines(n, w)...)
		}
	case v.running:
		figure = tr.KubectlRunning
	case errors.As(v.err, &ref):
		figure = tr.KubectlRefused
		tail = append(tail, wrapLines(st.Served.Failing.Render(fmt.Sprintf(tr.KubectlRefusedWhy, ref.ReasonIn(tr))), w)...)
		if ref.Command != "" {
			tail = append(tail, "", st.Served.Heading.Render(tr.KubectlElsewhere))
			for _, l := range wrapCommand(ref.Command, w-2) {
				tail = append(tail, "  "+st.Served.Command.Render(l))
			}
		}
	case v.err != nil && !v.res.Canceled:
		figure = fmt.Sprintf(tr.KubectlExit, v.res.ExitCode)
		tail = append(tail, wrapLines(st.Served.Failing.Render("✗ "+oneLine(v.err.Error())), w)...)
	case v.res.Canceled:
		figure = fmt.Sprintf(tr.KubectlStopped, v.res.ExitCode)
		tail = append(tail, st.Served.Dim.Render(tr.KubectlStoppedEsc))
	case v.res.ExitCode == 0:
		figure = fmt.Sprintf(tr.KubectlExit, 0)
		tail = append(tail, st.Served.OK.Render(tr.KubectlExitOK))
	default:
		figure = fmt.Sprintf(tr.KubectlExit, v.res.ExitCode)
		tail = append(tail, st.Served.Failing.Render(fmt.Sprintf(tr.KubectlExitFail, v.res.ExitCode)))
	}
	if len(tail) > 0 {
		lines = append(append(lines, ""), tail...)
	}
	if v.bg != nil {
		lines = append(lines, v.besideLines(w)...)
	}
	v.out.SetTitle(tr.PaneKubectl, kubectl.Quote(r.args), figure)
	v.out.SetLines(lines)
}

// besideLines draws the command beside, under the one in front: what it is, and its newest
// lines.
func (v *kubectlView) besideLines(w int) []string {
	st, tr := v.st, v.tr
	lines := append([]string{""}, wrapLines(st.Served.Heading.Render(fmt.Sprintf(tr.KubectlBeside, kubectl.Quote(v.bg.args))), w)...)
	tail, before := v.bg.tail(besideLines)
	if before > 0 {
		lines = append(lines, st.Served.Dim.Render(fmt.Sprintf(tr.KubectlBesideEarlier, before)))
	}
	for _, l := range tail {
		lines = append(lines, wrapLines(l, w)...)
	}
	return lines
}

func (v *kubectlView) relayoutRequests() {
	w := v.reqs.Inner()
	st, tr := v.st, v.tr
	var lines []string
	reqs := v.requests()
	switch {
	case v.run == nil || len(v.notice) > 0:
		lines = wrapLines(st.Lane.Dim.Render(tr.KubectlReqsIntro), w)
	case v.running && len(reqs) == 0:
		lines = wrapLines(st.Lane.Dim.Render(tr.KubectlReqsLater), w)
	case len(reqs) == 0:
		lines = wrapLines(st.Lane.Dim.Render(tr.KubectlReqsNone), w)
	}
	v.cursor = max(min(v.cursor, len(reqs)-1), 0)
	curLine := 0
	if len(v.notice) == 0 {
		for i, q := range reqs {
			mark := " "
			if i == v.cursor {
				mark = "›"
				curLine = len(lines)
			}
			code := tr.KubectlNoResponse
			if q.Code != 0 {
				code = fmt.Sprint(q.Code)
			}
			for _, l := range wrapLines(mark+" "+q.Method+" "+q.Path+" → "+code, w) {
				if i == v.cursor {
					l = st.List.Cursor.Render(fit(l, w))
				}
				lines = append(lines, l)
			}
			var sub string
			switch {
			case q.AuditID == "":
				sub = "✗ " + q.Err
			case !v.wired:
				sub = fmt.Sprintf(tr.KubectlNoStore, q.AuditID)
			default:
				if t, ok := v.traces[q.AuditID]; ok {
					sub = laneSummary(tr, t)
				} else {
					sub = fmt.Sprintf(tr.KubectlNoLane, q.AuditID)
				}
			}
			for _, l := range wrapLines(sub, w-4) {
				lines = append(lines, "    "+st.Lane.Dim.Render(l))
			}
		}
		if len(reqs) > 0 && v.wired {
			lines = append(lines, "", st.Lane.Dim.Render(tr.KubectlOpenLane))
		}
	}
	v.reqs.SetTitle(tr.PaneRequestsMade, "", fmt.Sprintf("%d", len(reqs)))
	v.reqs.SetLines(lines)
	// Keep the selected request in view.
	v.reqs.Reveal(curLine)
}

// laneSummary is a lane on one line: each stage's symbol and short name, then the code and
// time.
func laneSummary(tr *i18n.Strings, t tracing.Trace) string {
	var parts []string
	for _, s := range t.Stages {
		if s.Name == tracing.StageResponse {
			continue
		}
		name := stageLabel(tr, s.Name, true)
		if i := pathIndex(s.Name); i >= 0 && (s.Name == requestPath[i].name) {
			name = requestPath[i].short
		}
		p := stageSymbol(s.Outcome) + name
		switch s.Outcome {
		case tracing.OutcomeCache, tracing.OutcomeDenied, tracing.OutcomeRefused, tracing.OutcomeHeld, tracing.OutcomeAborted, tracing.OutcomeFailed:
			p += "(" + outcomeWord(tr, s.Outcome) + ")"
		}
		parts = append(parts, p)
	}
	end := "…"
	if t.Code != 0 {
		end = fmt.Sprint(t.Code)
	}
	if t.Done {
		end += " " + fmtDuration(t.Duration)
	}
	return strings.Join(parts, " ") + " → " + end
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

// OpenBox opens the text box for the command line and args.
func (v *kubectlView) OpenBox(line string, args []string) tea.Cmd {
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
	v.focus = kcOutput
	v.relayout()
	return v.box.ta.Focus()
}

// Editing reports whether the text box takes the keys.
func (v *kubectlView) Editing() bool { return v.box != nil }

// CloseBox puts the text box away and returns the command and what was typed.
func (v *kubectlView) CloseBox() (line string, args []string, manifest string) {
	b := v.box
	v.box = nil
	v.relayout()
	if b == nil {
		return "", nil, ""
	}
	return b.line, b.args, b.ta.Value()
}

// BoxKey passes a key to the text box.
func (v *kubectlView) BoxKey(msg tea.Msg) tea.Cmd {
	if v.box == nil {
		return nil
	}
	var cmd tea.Cmd
	v.box.ta, cmd = v.box.ta.Update(msg)
	v.relayoutOutput()
	return cmd
}

// boxLines draws the text box into the output pane.
func (v *kubectlView) boxLines(w int) []string {
	st, tr := v.st, v.tr
	b := v.box
	lines := wrapLines(st.Served.Command.Render("$ kubectl "+kubectl.Quote(b.args)), w)
	lines = append(lines, wrapLines(st.Served.Dim.Render(tr.KubectlBoxHelp), w)...)
	b.ta.SetWidth(max(w, 10))
	b.ta.SetHeight(max(v.out.Visible()-len(lines)-1, 3))
	return append(append(lines, ""), strings.Split(b.ta.View(), "\n")...)
}
