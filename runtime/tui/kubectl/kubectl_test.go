package kubectl

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	kctl "github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// fakeServer is a server at a fixed status.
type fakeServer struct{ status server.ServeStatus }

func (s fakeServer) Kubeconfig() string              { return "/tmp/kubewalk-1234/kubeconfig" }
func (s fakeServer) ServeStatus() server.ServeStatus { return s.status }
func (s fakeServer) Identities() []server.Identity   { return nil }

// fakeKubectl answers a few command lines as kubectl would; `get cm -w` streams until stopped.
type fakeKubectl struct {
	mu     sync.Mutex
	closed bool
}

func (k *fakeKubectl) Run(ctx context.Context, args []string, out io.Writer) (kctl.Result, error) {
	res := kctl.Result{Args: args, Context: ContextOf(args)}
	obs, _ := out.(kctl.RequestObserver)
	observe := func(q kctl.Request) {
		res.Requests = append(res.Requests, q)
		if obs != nil {
			obs.ObserveRequest(q)
		}
	}
	line := strings.Join(args, " ")
	switch {
	case line == "get cm -w":
		fmt.Fprintln(out, "NAME               DATA   AGE")
		observe(kctl.Request{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?watch=true", Code: 200, AuditID: "w-1", Watch: true})
		<-ctx.Done()
		res.Canceled = true
		return res, ctx.Err()
	case ContextOf(args) == "bob":
		observe(kctl.Request{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?limit=500", Code: 403, AuditID: "b-1"})
		fmt.Fprintln(out, `Error from server (Forbidden): configmaps is forbidden: User "bob" cannot list resource "configmaps"`)
		res.ExitCode = 1
		return res, nil
	case line == "edit cm demo":
		return kctl.Result{Args: args, ExitCode: 1}, &kctl.RefusedError{Args: args, Reason: "needs a terminal of its own", Command: "KUBECONFIG=/tmp/kubewalk-1234/kubeconfig kubectl edit cm demo"}
	case args[0] == "apply":
		in, _ := out.(kctl.InputProvider).KubectlInput()
		fmt.Fprintf(out, "configmap/%s created\n", strings.Fields(in[strings.Index(in, "name:")+5:])[0])
		observe(kctl.Request{Method: "POST", Path: "/api/v1/namespaces/default/configmaps", Code: 201, AuditID: "a-1"})
		return res, nil
	}
	fmt.Fprintln(out, "NAME               DATA   AGE")
	fmt.Fprintln(out, "kube-root-ca.crt   1      5m")
	fmt.Fprintln(out, "demo\twith\ttabs   1      1m")
	observe(kctl.Request{Method: "GET", Path: "/api/v1/namespaces/default/configmaps?limit=500", Code: 200, AuditID: "g-1"})
	return res, nil
}

func (k *fakeKubectl) Close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	return nil
}

// driver runs a view's commands on goroutines, as bubbletea does, and feeds their messages
// back to it on the test's goroutine; it records what the view asks of the screen.
type driver struct {
	t        *testing.T
	v        *Model
	kube     *fakeKubectl
	msgs     chan tea.Msg
	notes    []string
	reloads  int
	opened   []string
	inflight sync.WaitGroup
}

type driverOpts struct {
	lang     string
	status   server.ServeStatus
	noServer bool
	notWired bool // no trace store
	noKube   bool
}

func newDriver(t *testing.T, o driverOpts) *driver {
	t.Helper()
	if o.lang == "" {
		o.lang = i18n.English
	}
	tr := i18n.For(o.lang)
	d := &driver{t: t, kube: &fakeKubectl{}, msgs: make(chan tea.Msg, 64)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts := Options{
		Ctx: ctx, Wired: !o.notWired, WideWidth: 120,
		FocusNext: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", tr.KeyFocusNext)),
		FocusPrev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", tr.KeyFocusPrev)),
	}
	if !o.noServer {
		opts.Server = fakeServer{status: o.status}
	}
	if !o.noKube {
		opts.NewKubectl = func(string) (Kubectl, error) { return d.kube, nil }
	}
	d.v = New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, opts)
	t.Cleanup(func() {
		if err := d.v.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// run executes cmd on a goroutine; its message (a batch expanded) comes back through msgs.
func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.inflight.Add(1)
	go func() {
		defer d.inflight.Done()
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				d.run(c)
			}
			return
		}
		if msg != nil {
			d.msgs <- msg
		}
	}()
}

// send hands the view one message, as the screen does, and runs its command.
func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case requests.ReloadMsg:
		d.reloads++
		return
	case requests.OpenMsg:
		d.opened = append(d.opened, msg.ID)
		return
	case view.NoteMsg:
		d.notes = append(d.notes, string(msg))
		return
	}
	d.run(d.v.Update(msg))
	d.take()
}

// take takes the note the view said, as the screen does after each message (view.Noter).
func (d *driver) take() {
	if s, ok := d.v.Note(); ok {
		d.notes = append(d.notes, s)
	}
}

// until processes messages until cond holds, failing after a bound.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline.C:
			d.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// line runs a : line and processes messages until the command in front has ended.
func (d *driver) line(rest string) string {
	d.t.Helper()
	cmd, problem := d.v.Line(rest)
	d.run(cmd)
	if problem == "" && rest != "" && !d.v.Capturing() {
		d.until(rest+" to end", d.v.Finished)
		d.settle()
	}
	return problem
}

// settle processes messages until no command runs; with a command running beside (a watch,
// whose output waiter ends only with it), until none is pending.
func (d *driver) settle() {
	d.t.Helper()
	if d.v.Beside() != nil || d.v.Running() {
		for {
			select {
			case msg := <-d.msgs:
				d.send(msg)
			default:
				return
			}
		}
	}
	idle := make(chan struct{})
	go func() { d.inflight.Wait(); close(idle) }()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-idle:
			for {
				select {
				case msg := <-d.msgs:
					d.send(msg)
				default:
					return
				}
			}
		case <-deadline.C:
			d.t.Fatal("the view did not settle")
		}
	}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "ctrl+d":
		return tea.KeyMsg{Type: tea.KeyCtrlD}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// frame is the view at w×h, checked to be exactly w×h with no escape sequences.
func frame(t *testing.T, v *Model, w, h int) string {
	t.Helper()
	return checked(t, v.View(w, h), w, h)
}

// zoomed is the view's zoomed frame (ZoomView) at w×h, checked as frame checks it.
func zoomed(t *testing.T, v *Model, w, h int) string {
	t.Helper()
	return checked(t, v.ZoomView(w, h), w, h)
}

// checked joins a frame's lines, checked to be exactly w×h with no escape sequences.
func checked(t *testing.T, lines []string, w, h int) string {
	t.Helper()
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, lw, w, l)
		}
	}
	f := strings.Join(lines, "\n")
	if strings.Contains(f, "\x1b[") {
		t.Error("NO_COLOR frame has escape sequences")
	}
	return f
}

// TestGolden: the view alone at 80×24 and 120×40, in English and Chinese, with NO_COLOR:
// before any command, a command that ended with its lane read (the requests pane focused),
// kubectl's own error, a refusal, a command not run (the server does not serve), the text
// box of -f -, and a watch that goes on beside the next command. -update rewrites the files.
func TestGolden(t *testing.T) {
	tests := []struct {
		name   string
		status server.ServeStatus
		run    func(d *driver)
	}{
		{"intro", server.Serving, func(d *driver) {}},
		{"done", server.Serving, func(d *driver) {
			d.line("get cm")
			// The traces come as the Requests view hands them over after a load.
			d.send(requests.TracesMsg{Traces: map[string]tracing.Trace{"g-1": {ID: "g-1", Code: 200, Done: true,
				Duration: 3 * time.Millisecond, Stages: []tracing.Stage{
					{Name: tracing.StageAuthentication, Outcome: tracing.OutcomeOK},
					{Name: tracing.StageAuthorization, Outcome: tracing.OutcomeAllowed},
					{Name: tracing.StageStorage, Outcome: tracing.OutcomeOK}}}}})
			d.send(keyMsg("tab"))
		}},
		{"forbidden", server.Serving, func(d *driver) { d.line("--context bob get cm") }},
		{"refused", server.Serving, func(d *driver) { d.line("edit cm demo") }},
		{"notserving", server.NotListening, func(d *driver) { d.line("get cm") }},
		{"box", server.Serving, func(d *driver) {
			d.line("apply -f -")
			d.send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boxed\n")})
		}},
		{"beside", server.Serving, func(d *driver) {
			cmd, _ := d.v.Line("get cm -w")
			d.run(cmd)
			d.until("the watch open", func() bool { return d.v.Front().WatchOpen() })
			d.line("get cm")
		}},
	}
	for _, lang := range i18n.Languages() {
		for _, tt := range tests {
			for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					d := newDriver(t, driverOpts{lang: lang, status: tt.status})
					d.v.View(sz.w, sz.h)
					tt.run(d)
					golden.RequireEqual(t, []byte(frame(t, d.v, sz.w, sz.h)))
				})
			}
		}
	}
}

// TestKeys: each key of the view, in the state it acts in, and what it does (the focus, the
// cursor, a note, the trace it opens, the text box).
func TestKeys(t *testing.T) {
	en := i18n.For(i18n.English)
	tests := []struct {
		name  string
		opts  driverOpts
		setup func(d *driver)
		keys  []string
		check func(t *testing.T, d *driver)
	}{
		{"tab focuses the requests and enter opens the selected lane", driverOpts{}, func(d *driver) { d.line("get cm") },
			[]string{"tab", "enter"}, func(t *testing.T, d *driver) {
				if len(d.opened) != 1 || d.opened[0] != "g-1" {
					t.Errorf("opened %q, want [g-1]", d.opened)
				}
			}},
		{"enter with no trace store says there is no lane", driverOpts{notWired: true}, func(d *driver) { d.line("get cm") },
			[]string{"tab", "enter"}, func(t *testing.T, d *driver) {
				if len(d.opened) != 0 || !hasNote(d, en.NoteNoLane) {
					t.Errorf("opened %q, notes %q", d.opened, d.notes)
				}
			}},
		{"enter in the output pane opens nothing", driverOpts{}, func(d *driver) { d.line("get cm") },
			[]string{"enter"}, func(t *testing.T, d *driver) {
				if len(d.opened) != 0 {
					t.Errorf("opened %q", d.opened)
				}
			}},
		{"tab twice is back on the output", driverOpts{}, nil, []string{"tab", "tab"}, func(t *testing.T, d *driver) {
			if d.v.focus != paneOutput {
				t.Errorf("focus %v", d.v.focus)
			}
		}},
		{"esc stops the command in front", driverOpts{}, func(d *driver) {
			cmd, _ := d.v.Line("get cm -w")
			d.run(cmd)
			d.until("the watch open", func() bool { return d.v.Front().WatchOpen() })
		}, []string{"esc"}, func(t *testing.T, d *driver) {
			d.until("the stop", d.v.Finished)
			if !d.v.Result().Canceled || !hasNote(d, en.NoteStoppingKubectl) || d.notes[len(d.notes)-1] != "" {
				t.Errorf("canceled %v, notes %q", d.v.Result().Canceled, d.notes)
			}
		}},
		{"esc with nothing running does nothing", driverOpts{}, func(d *driver) { d.line("get cm") }, []string{"esc"},
			func(t *testing.T, d *driver) {
				if len(d.notes) != 0 {
					t.Errorf("notes %q", d.notes)
				}
			}},
		{"q and : are typed into the text box", driverOpts{}, func(d *driver) { d.line("apply -f -") }, []string{"q", ":"},
			func(t *testing.T, d *driver) {
				if !d.v.Capturing() || d.v.box.ta.Value() != "q:" {
					t.Errorf("capturing %v, box %q", d.v.Capturing(), d.v.box.ta.Value())
				}
			}},
		{"esc puts the text box away and runs nothing", driverOpts{}, func(d *driver) { d.line("apply -f -") }, []string{"x", "esc"},
			func(t *testing.T, d *driver) {
				if d.v.Capturing() || d.v.Front() != nil || !hasNote(d, en.KubectlBoxCancelled) {
					t.Errorf("capturing %v, front %v, notes %q", d.v.Capturing(), d.v.Front(), d.notes)
				}
			}},
		{"ctrl+d with an empty box runs nothing", driverOpts{}, func(d *driver) { d.line("apply -f -") }, []string{"ctrl+d"},
			func(t *testing.T, d *driver) {
				if d.v.Capturing() || d.v.Front() != nil || !hasNote(d, en.KubectlBoxEmpty) {
					t.Errorf("capturing %v, front %v, notes %q", d.v.Capturing(), d.v.Front(), d.notes)
				}
			}},
		{"ctrl+d runs the command with the manifest", driverOpts{}, func(d *driver) {
			d.line("apply -f -")
			d.send(tea.KeyMsg{Type: tea.KeyRunes, Paste: true, Runes: []rune("kind: ConfigMap\nmetadata:\n  name: boxed\n")})
		}, []string{"ctrl+d"}, func(t *testing.T, d *driver) {
			d.until("apply to end", d.v.Finished)
			d.settle()
			if out := strings.Join(d.v.out.Lines(), "\n"); !strings.Contains(out, "configmap/boxed created") {
				t.Errorf("output:\n%s", out)
			}
		}},
		{"↓ in the requests pane moves the cursor, not past the last", driverOpts{}, func(d *driver) {
			d.line("--context bob get cm")
		}, []string{"tab", "down", "down", "up"}, func(t *testing.T, d *driver) {
			if d.v.cursor != 0 || d.v.selected() != "b-1" {
				t.Errorf("cursor %d, selected %q", d.v.cursor, d.v.selected())
			}
		}},
		{"pgdown scrolls the output", driverOpts{}, func(d *driver) {
			d.v.View(80, 12)
			d.line("get cm")
			for i := range 40 {
				fmt.Fprintf(d.v.run, "line %d\n", i)
			}
			d.v.output()
			d.v.out.Top()
		}, []string{"pgdown"}, func(t *testing.T, d *driver) {
			if d.v.out.Offset() == 0 {
				t.Error("pgdown did not scroll")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.status = server.Serving
			d := newDriver(t, tt.opts)
			d.v.View(120, 40)
			if tt.setup != nil {
				tt.setup(d)
			}
			d.notes = nil
			for _, k := range tt.keys {
				d.send(keyMsg(k))
			}
			d.settle()
			tt.check(t, d)
		})
	}
}

func hasNote(d *driver, s string) bool {
	d.take() // a note said by Line, outside send
	for _, n := range d.notes {
		if n == s {
			return true
		}
	}
	return false
}

// TestLine: what a : line does in each state of the server and the view.
func TestLine(t *testing.T) {
	en := i18n.For(i18n.English)
	tests := []struct {
		name    string
		opts    driverOpts
		line    string
		problem string   // in the command line's error, "" for none
		shows   []string // in the frame
	}{
		{"runs", driverOpts{status: server.Serving}, "kubectl get cm", "", []string{"$ kubectl get cm", "(as admin)", "kube-root-ca.crt", "demo    with    tabs", "✓ exit 0", "→ 200"}},
		{"empty shows the view", driverOpts{status: server.Serving}, "", "", []string{strings.Fields(en.KubectlIntro)[0]}},
		{"an unclosed quote", driverOpts{status: server.Serving}, `get cm "x`, "column", nil},
		{"a pipe needs a shell", driverOpts{status: server.Serving}, "get cm | grep x", `"|" needs a shell`, nil},
		{"not serving", driverOpts{status: server.NotListening}, "get cm", "", []string{en.KubectlNotServing}},
		{"no server", driverOpts{noServer: true}, "get cm", "", []string{en.KubectlNotServing}},
		{"no kubeconfig yet", driverOpts{status: server.Listening}, "get cm", "", []string{"kubeconfig"}},
		{"stopped", driverOpts{status: server.Stopped}, "get cm", "", []string{en.KubectlServerStopped}},
		{"not wired", driverOpts{status: server.Serving, noKube: true}, "get cm", "", []string{"KUBECONFIG=/tmp/kubewalk-1234/kubeconfig kubectl get cm"}},
		{"refused", driverOpts{status: server.Serving}, "edit cm demo", "", []string{"Run it in another terminal:", "KUBECONFIG=/tmp/kubewalk-1234/kubeconfig kubectl edit cm demo"}},
		{"forbidden", driverOpts{status: server.Serving}, "--context bob get cm", "", []string{"(as bob)", "Forbidden", "✗ exit 1", "→ 403"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDriver(t, tt.opts)
			d.v.View(200, 50)
			problem := d.line(tt.line)
			if (tt.problem == "") != (problem == "") || !strings.Contains(problem, tt.problem) {
				t.Errorf("problem %q, want %q", problem, tt.problem)
			}
			f := frame(t, d.v, 200, 50)
			for _, s := range tt.shows {
				if !strings.Contains(f, s) {
					t.Errorf("frame lacks %q:\n%s", s, f)
				}
			}
		})
	}
}

// TestMessages: the view's own messages, and what it asks of the screen for them: a new
// request reloads the requests (its lane is to be read), the end reloads them, a refusal and
// the end of the command beside are noted.
func TestMessages(t *testing.T) {
	en := i18n.For(i18n.English)
	tests := []struct {
		name    string
		line    string
		reloads int // at least
		note    string
	}{
		{"the end reloads the requests", "get cm", 1, ""},
		{"a refusal with a line to run elsewhere", "edit cm demo", 1, en.NoteKubectlRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDriver(t, driverOpts{status: server.Serving})
			d.line(tt.line)
			if d.reloads < tt.reloads {
				t.Errorf("%d reloads, want at least %d", d.reloads, tt.reloads)
			}
			if tt.note != "" && !hasNote(d, tt.note) {
				t.Errorf("notes %q, want %q", d.notes, tt.note)
			}
		})
	}
	t.Run("the watch beside ends", func(t *testing.T) {
		d := newDriver(t, driverOpts{status: server.Serving})
		cmd, _ := d.v.Line("get cm -w")
		d.run(cmd)
		d.until("the watch open", func() bool { return d.v.Front().WatchOpen() })
		watch := d.v.Front()
		d.line("get cm")
		if d.v.Beside() != watch || !hasNote(d, fmt.Sprintf(en.NoteKubectlBeside, "get cm -w")) {
			t.Fatalf("beside %v, notes %q", d.v.Beside(), d.notes)
		}
		if problem := d.line("get ns"); problem != "" || d.v.Beside() != watch {
			t.Fatalf("a command after the one in front ended: %q, beside %v", problem, d.v.Beside())
		}
		d.send(keyMsg("esc")) // the front has ended: esc stops the watch beside
		d.until("the watch beside to end", func() bool { return d.v.Beside() == nil })
		if !hasNote(d, fmt.Sprintf(en.NoteKubectlBesideEnded, "get cm -w")) {
			t.Errorf("notes %q", d.notes)
		}
	})
	t.Run("a second watch in front: nothing more starts", func(t *testing.T) {
		d := newDriver(t, driverOpts{status: server.Serving})
		for range 2 {
			cmd, problem := d.v.Line("get cm -w")
			if problem != "" {
				t.Fatal(problem)
			}
			d.run(cmd)
			d.until("the watch open", func() bool { return d.v.Front().WatchOpen() && d.v.Running() })
		}
		if _, problem := d.v.Line("get ns"); !strings.Contains(problem, "already runs beside") {
			t.Errorf("problem %q", problem)
		}
	})
	t.Run("a note is handed over once, in order", func(t *testing.T) {
		d := newDriver(t, driverOpts{status: server.Serving})
		d.line("apply -f -")
		d.notes = nil
		d.send(keyMsg("esc"))
		d.settle()
		if !slices.Equal(d.notes, []string{en.KubectlBoxCancelled}) {
			t.Errorf("notes %q, want the box's cancel once", d.notes)
		}
		if s, ok := d.v.Note(); ok {
			t.Errorf("the note %q was handed over twice", s)
		}
	})
}

// TestLayout: side by side from WideWidth, stacked below it; zoomed (ZoomView), the focused
// pane takes the view and the mouse finds no other; a click focuses the pane under it and the
// wheel scrolls it. z is the screen's to add to the help bar, not the view's.
func TestLayout(t *testing.T) {
	d := newDriver(t, driverOpts{status: server.Serving})
	d.line("get cm")
	tr := i18n.For(i18n.English)
	first := func(w, h int) string { return frame(t, d.v, w, h) }
	if f := first(120, 40); !strings.Contains(strings.Split(f, "\n")[0], tr.PaneRequestsMade) {
		t.Errorf("120 wide: the panes are not side by side:\n%s", f)
	}
	if f := first(80, 24); strings.Contains(strings.Split(f, "\n")[0], tr.PaneRequestsMade) || !strings.Contains(f, tr.PaneRequestsMade) {
		t.Errorf("80 wide: the panes are not stacked:\n%s", f)
	}
	d.v.Update(tea.MouseMsg{X: 5, Y: 20, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if d.v.focus != paneRequests {
		t.Fatal("a click on the requests pane did not focus it")
	}
	f := zoomed(t, d.v, 80, 24)
	if !strings.Contains(strings.Split(f, "\n")[0], tr.PaneRequestsMade) || strings.Contains(f, "kube-root-ca.crt") {
		t.Errorf("zoomed: not the requests pane alone:\n%s", f)
	}
	// Where the output pane was drawn unzoomed is the requests pane now.
	d.v.Update(tea.MouseMsg{X: 5, Y: 2, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if d.v.focus != paneRequests {
		t.Error("zoomed: the wheel over the requests pane focused the hidden output pane")
	}
	d.v.Update(tea.KeyMsg{Type: tea.KeyTab})
	if f := zoomed(t, d.v, 80, 24); !strings.Contains(f, "kube-root-ca.crt") || strings.Contains(f, tr.PaneRequestsMade) {
		t.Errorf("zoomed after tab: not the output pane alone:\n%s", f)
	}
	for _, b := range d.v.Keys() {
		if b.Help().Key == "z" {
			t.Errorf("the view's keys name z (%q): the screen adds it", b.Help().Desc)
		}
	}
	if f := first(80, 24); !strings.Contains(f, tr.PaneRequestsMade) || !strings.Contains(f, "kube-root-ca.crt") {
		t.Errorf("unzoomed: not both panes:\n%s", f)
	}
}

// TestClose: Close stops a running command, waits for it, closes the runner, and later
// commands are refused.
func TestClose(t *testing.T) {
	d := newDriver(t, driverOpts{status: server.Serving})
	d.v.View(200, 50)
	cmd, _ := d.v.Line("get cm -w")
	d.run(cmd)
	d.until("the watch open", func() bool { return d.v.Front().WatchOpen() })
	watch := d.v.Front()
	if err := d.v.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watch.Done():
	default:
		t.Fatal("Close returned with the watch running")
	}
	if !d.kube.closed {
		t.Error("the runner is not closed")
	}
	d.until("the watch's end", d.v.Finished)
	d.settle()
	d.line("get cm")
	if !strings.Contains(strings.Join(d.v.out.Lines(), "\n"), i18n.For(i18n.English).KubectlShuttingDown) {
		t.Errorf("a command after Close:\n%s", strings.Join(d.v.out.Lines(), "\n"))
	}
}
