package tui

import (
	"flag"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/tui/class"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

func TestMain(m *testing.M) {
	// The real server and kubectl log through klog: keep it off the test output, as kubewalk
	// sends it to its log file.
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	// Deterministic output: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// harness runs a Model like bubbletea does, but in the test goroutine: commands run in
// goroutines and their messages are fed back through Update until the model settles. After
// every message it checks that the frame fits the window.
type harness struct {
	t        *testing.T
	model    Model
	msgs     chan tea.Msg
	done     chan struct{}
	inflight atomic.Int64 // commands running, not counting parked ones
	handled  int64        // engine events handled by the model
	w, h     int
	quit     bool
	eng      *fakeEngine
}

// newHarness builds a model on a started fake engine at size w×h and lets it settle.
func newHarness(t *testing.T, w, h int, content Content, srv ServerInfo) *harness {
	t.Helper()
	return newHarnessOpts(t, w, h, content, srv, Options{GlamourStyle: "notty"})
}

// newHarnessOpts is newHarness with options.
func newHarnessOpts(t *testing.T, w, h int, content Content, srv ServerInfo, opts Options) *harness {
	t.Helper()
	eng := newFakeEngine().start()
	if fs, ok := srv.(fakeServer); ok && fs.eng == nil {
		fs.eng = eng // the server serves once the fake run does
		srv = fs
	}
	m := NewModel(eng, srv, content, opts)
	m.m.tour.SetClock(func() time.Time { return time.Date(2025, 5, 1, 10, 30, 0, 0, time.UTC) })
	hs := &harness{t: t, model: m, msgs: make(chan tea.Msg, 64), done: make(chan struct{}), eng: eng}
	m.m.done = hs.done
	t.Cleanup(func() { close(hs.done); m.m.cancel() })
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	hs.settle()
	return hs
}

// run executes a command in a goroutine, as bubbletea does.
func (hs *harness) run(cmd tea.Cmd) { hs.start(cmd, false) }

// start runs cmd; a parked command (a timer) is not waited for by settle.
func (hs *harness) start(cmd tea.Cmd, parked bool) {
	if cmd == nil {
		return
	}
	if !parked {
		hs.inflight.Add(1)
	}
	go func() {
		msg := cmd()
		if !parked {
			defer hs.inflight.Add(-1)
		}
		if msg == nil {
			return
		}
		select {
		case hs.msgs <- msg:
		case <-hs.done:
		}
	}()
}

// send delivers one message and checks the frame.
func (hs *harness) send(msg tea.Msg) {
	hs.t.Helper()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			hs.run(c)
		}
		return
	case tea.QuitMsg:
		hs.quit = true
		return
	case tour.ReadyzTickMsg:
		return // don't poll forever in tests
	case tea.WindowSizeMsg:
		hs.w, hs.h = msg.Width, msg.Height
	case tour.EventMsg:
		hs.handled++
	}
	next, cmd := hs.model.Update(msg)
	hs.model = next.(Model)
	hs.checkFrame()
	_, poll := msg.(tour.ReadyzMsg)
	hs.start(cmd, poll) // after a poll comes the 2 s timer
}

// settle processes messages until the only command left running is the engine-event waiter
// (while the model still expects events), no message is pending, and the model waits for
// nothing: no source it asked for is still loading and the server is not running to a
// checkpoint. The model's own state says so, since a command that has not delivered its
// message yet cannot be told from the idle event waiter by counting (a tea.Batch holding the
// waiter and a loader is one command until it is expanded).
func (hs *harness) settle() {
	hs.t.Helper()
	deadline := time.After(30 * time.Second) // a bound against a hung model, generous for -race under load
	for {
		select {
		case msg := <-hs.msgs:
			hs.send(msg)
			continue
		case <-deadline:
			hs.t.Fatalf("model did not settle: %d commands still running", hs.inflight.Load())
		case <-time.After(time.Millisecond):
		}
		if hs.idle() {
			return
		}
	}
}

// idle reports whether the model waits for nothing but events: the engine's, the trace
// store's and the etcd watch's waiters may be running; nothing else.
func (hs *harness) idle() bool {
	m := hs.model.m
	idle := int64(0)
	if !m.tour.Served() && m.tour.Failed() == nil {
		idle++
	}
	// A waiter counts only while it is blocked on its channel: returned but not yet running
	// (inside an unexpanded tea.Batch) or awake and reading, it is work on its way.
	if m.rqv().WaiterBlocked() {
		idle++
	}
	if hs.etcdView().WaiterBlocked() {
		idle++
	}
	if m.exView().WaiterBlocked() {
		idle++
	}
	if m.tour.AutoArmed() {
		idle++ // the auto pause's timer: tests send autoMsg or wait for it with until
	}
	if c, ok := m.cls.(*class.Model); ok {
		n, delivering := c.Waiters() // the board's waiter, the student's state waiter
		if delivering {
			return false // the student's state is on its way
		}
		idle += int64(n)
	}
	if m.tour.Fetching() {
		idle += 2 // the download and its progress waiter
	}
	if m.kc().Beside() != nil {
		idle += 2 // a kubectl command beside the one in front (a watch) and its output waiter
	}
	waiting := m.tour.Running() || m.tour.Loading() || m.tour.Probing() || m.rqv().Loading() || m.kc().Running() || hs.etcdView().Loading()
	return !waiting && hs.inflight.Load() <= idle && len(hs.msgs) == 0 && hs.handled == hs.eng.sent.Load()
}

// etcdView is the model's etcd view (runtime/tui/etcd).
func (hs *harness) etcdView() *etcd.Model { return hs.model.m.views[viewEtcd].(*etcd.Model) }

// until processes messages until cond holds (checked after each message and while idle),
// failing after a bound.
func (hs *harness) until(what string, cond func() bool) {
	hs.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case msg := <-hs.msgs:
			hs.send(msg)
		case <-deadline:
			hs.t.Fatalf("timed out waiting for %s; frame:\n%s", what, hs.view())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// typeLine opens the command line, types line, presses enter and settles.
func (hs *harness) typeLine(line string) {
	hs.t.Helper()
	hs.startLine(line)
	hs.settle()
}

// startLine is typeLine for a command that keeps running (kubectl get -w): it does not wait.
func (hs *harness) startLine(line string) {
	hs.t.Helper()
	hs.keys(":")
	hs.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(line)})
	hs.settle()
	hs.send(keyMsg("enter"))
}

// keys types keys (names as tea.KeyMsg.String prints them) and settles after each.
func (hs *harness) keys(names ...string) {
	hs.t.Helper()
	for _, n := range names {
		hs.send(keyMsg(n))
		hs.settle()
	}
}

// keyMsg builds the KeyMsg whose String() is name.
func keyMsg(name string) tea.KeyMsg {
	special := map[string]tea.KeyType{
		"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight,
		"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
		"ctrl+c": tea.KeyCtrlC, "backspace": tea.KeyBackspace, " ": tea.KeySpace,
	}
	if t, ok := special[name]; ok {
		if t == tea.KeySpace {
			return tea.KeyMsg{Type: t, Runes: []rune{' '}}
		}
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}

// view is the current frame without styling.
func (hs *harness) view() string { return ansi.Strip(hs.model.View()) }

// checkFrame fails if the frame is taller or wider than the window.
func (hs *harness) checkFrame() {
	hs.t.Helper()
	if err := frameFits(hs.model.View(), hs.w, hs.h); err != "" {
		hs.t.Fatalf("frame does not fit %d×%d: %s\n%s", hs.w, hs.h, err, ansi.Strip(hs.model.View()))
	}
}

// frameFits explains how a frame overflows w×h, or returns "".
func frameFits(v string, w, h int) string {
	if v == "" {
		return ""
	}
	lines := strings.Split(v, "\n")
	if got := lipgloss.Height(v); got > h || len(lines) > h {
		return "too tall: " + strconv.Itoa(len(lines)) + " lines"
	}
	for i, l := range lines {
		if got := lipgloss.Width(l); got > w {
			return "line " + strconv.Itoa(i+1) + " is " + strconv.Itoa(got) + " cells wide: " + ansi.Strip(l)
		}
	}
	return ""
}

// must fails unless the frame contains every string.
func (hs *harness) must(subs ...string) {
	hs.t.Helper()
	v := hs.view()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			hs.t.Fatalf("frame lacks %q:\n%s", s, v)
		}
	}
}

// mustNot fails if the frame contains any string.
func (hs *harness) mustNot(subs ...string) {
	hs.t.Helper()
	v := hs.view()
	for _, s := range subs {
		if strings.Contains(v, s) {
			hs.t.Fatalf("frame has %q:\n%s", s, v)
		}
	}
}
