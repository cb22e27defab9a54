package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/server"
)

// fitModel wraps the model so that every frame bubbletea renders is checked against the
// window size.
type fitModel struct {
	Model
	t    *testing.T
	mu   *sync.Mutex
	w, h *int
}

func (f fitModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(tea.WindowSizeMsg); ok {
		f.mu.Lock()
		*f.w, *f.h = s.Width, s.Height
		f.mu.Unlock()
	}
	m, cmd := f.Model.Update(msg)
	f.Model = m.(Model)
	return f, cmd
}

func (f fitModel) View() string {
	v := f.Model.View()
	f.mu.Lock()
	w, h := *f.w, *f.h
	f.mu.Unlock()
	if w > 0 {
		if err := frameFits(v, w, h); err != "" {
			f.t.Errorf("frame does not fit %d×%d: %s", w, h, err)
		}
	}
	return v
}

func TestTeatestFlow(t *testing.T) {
	for _, l := range langs {
		t.Run(l.name, func(t *testing.T) {
			eng := newFakeEngine().start()
			m := NewModel(eng, fakeServer{}, l.content, Options{GlamourStyle: "notty"})
			tr := m.m.tr
			done := make(chan struct{})
			defer close(done)
			m.m.done = done
			w, h := 0, 0
			fm := fitModel{Model: m, t: t, mu: &sync.Mutex{}, w: &w, h: &h}
			tm := teatest.NewTestModel(t, fm, teatest.WithInitialTermSize(120, 40))

			wait := func(subs ...string) {
				t.Helper()
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					for _, s := range subs {
						if !bytes.Contains(b, []byte(s)) {
							return false
						}
					}
					return true
				}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
			}
			press := func(names ...string) {
				for _, n := range names {
					tm.Send(keyMsg(n))
				}
			}

			paused := func(id string) string { return fmt.Sprintf(tr.StatusPausedAt, id) }
			wait(paused(cpID(0)))
			press(" ")
			wait(paused(cpID(1)), fmt.Sprintf(tr.CheckpointOf, 2, len(server.Checkpoints())))
			press("left")
			wait(fmt.Sprintf(tr.StatusReviewing, 1, 2, cpID(0)))
			press("right")
			wait(paused(cpID(1)))
			press("2")
			authn := server.PhaseCheckpoints(server.PhaseAuthn)[0].ID()
			wait(paused(authn))
			press("u")
			wait(strings.Split(tr.SourceUnavailable, "%")[0])
			press("u")
			wait(tr.PaneSource + " · server/authn.go")
			press("r", "tab", "enter")
			wait("port int = 6443")
			press("?")
			wait(strings.SplitAfter(tr.HelpTitle, "· ")[0])
			press("x")
			// A paste outside a text line is ignored (typed keys are not: see TestCoalescedKeys).
			tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("teawidth"), Paste: true})
			tm.Send(tea.WindowSizeMsg{Width: 70, Height: 20})
			wait(fmt.Sprintf(tr.TooSmall, 80, 24, 70, 20))
			tm.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
			wait(paused(authn))
			press("q")

			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(fitModel)
			fmm := final.Model.m
			if fmm.tour.Reviewing() != -1 || !fmm.statePane().Raw() || fmm.showHelp {
				t.Errorf("final state: review %d, raw %v, help %v", fmm.tour.Reviewing(), fmm.statePane().Raw(), fmm.showHelp)
			}
			if got := len(eng.targets()); got != 2 {
				t.Errorf("%d Continue calls, want 2 (next checkpoint, phase 2)", got)
			}
		})
	}
}

func TestTeatestQuitWhileRunning(t *testing.T) {
	// An engine that never answers Continue: quitting must still return promptly.
	eng := &stuckEngine{events: make(chan engine.Event, 1)}
	eng.events <- engine.Event{Paused: &engine.Stop{Checkpoint: server.Checkpoints()[0], State: fakeState(0)}}
	m := NewModel(eng, nil, fakeContent{}, Options{})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("PAUSED")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg(" "))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("running to")) },
		teatest.WithDuration(5*time.Second))
	tm.Send(keyMsg("ctrl+c"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

// stuckEngine pauses once and never resumes.
type stuckEngine struct{ events chan engine.Event }

func (e *stuckEngine) Events() <-chan engine.Event { return e.events }
func (e *stuckEngine) Continue(engine.Target) error {
	select {} // blocks like a server that never reaches the next checkpoint
}
func (e *stuckEngine) Stops() []engine.Stop { return nil }

func TestRunWithoutTerminal(t *testing.T) {
	eng, err := engine.New(server.Options{})
	if err != nil {
		t.Skipf("engine.New: %v", err)
	}
	defer eng.Close()
	err = Run(context.Background(), eng, nil, Options{})
	if !errors.Is(err, ErrNoTerminal) {
		t.Fatalf("Run without a terminal = %v, want ErrNoTerminal", err)
	}
}

// TestTeatestCommandLine drives the command line through a real bubbletea program: open it,
// complete a command, run it, run kubectl, back out with esc, quit.
func TestTeatestCommandLine(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			store := newFakeStore(100)
			store.add(okGet("g-1", 1))
			eng := newFakeEngine().start()
			kube := &fakeKubectl{}
			m := NewModel(eng, fakeServer{}, fakeContent{}, Options{GlamourStyle: "notty", Requests: store,
				Breakpoints: &fakeBreakpoints{store: store}, NewKubectl: func(string) (Kubectl, error) { return kube, nil }})
			done := make(chan struct{})
			defer close(done)
			m.m.done = done
			w, h := 0, 0
			fm := fitModel{Model: m, t: t, mu: &sync.Mutex{}, w: &w, h: &h}
			tm := teatest.NewTestModel(t, fm, teatest.WithInitialTermSize(size.w, size.h))
			wait := func(subs ...string) {
				t.Helper()
				teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
					for _, s := range subs {
						if !bytes.Contains(b, []byte(s)) {
							return false
						}
					}
					return true
				}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
			}
			wait("PAUSED at " + cpID(0))
			tm.Send(keyMsg("E"))
			wait("SERVING")
			tm.Send(keyMsg(":"))
			wait("commands · tab completes")
			tm.Type("re")
			tm.Send(keyMsg("tab"))
			wait(":requests ")
			tm.Send(keyMsg("enter"))
			wait("Requests · 1 shown")
			tm.Send(keyMsg(":"))
			tm.Type("k get cm")
			tm.Send(keyMsg("enter"))
			wait("kube-root-ca.crt", "exit 0")
			tm.Send(keyMsg(":"))
			tm.Type("nope")
			tm.Send(keyMsg("enter"))
			wait(`unknown command "nope"`)
			tm.Send(keyMsg("esc"))
			tm.Send(keyMsg("q"))
			final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(fitModel)
			if final.Model.m.prompt.IsOpen() {
				t.Error("esc left the prompt open")
			}
			if err := final.Model.m.shutdown(); err != nil {
				t.Fatal(err)
			}
			if !kube.closed {
				t.Error("the kubectl runner was not closed")
			}
		})
	}
}
