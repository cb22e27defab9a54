package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

// benchEngine replays stops synchronously: Stops returns the history up to the stop last
// handed out.
type benchEngine struct {
	plan []engine.Stop
	upto int
}

func newBenchEngine() *benchEngine { return &benchEngine{plan: newFakeEngine().plan} }

func (e *benchEngine) Events() <-chan engine.Event  { return nil }
func (e *benchEngine) Continue(engine.Target) error { return nil }
func (e *benchEngine) Stops() []engine.Stop         { return e.plan[:e.upto] }

// pause hands out stop i as the engine would.
func (e *benchEngine) pause(i int) engine.Event {
	e.upto = i + 1
	return engine.Event{Paused: &e.plan[i]}
}

// newBenchModel builds a model on a benchEngine whose event waiter returns at once (its done
// channel is closed), so commands can run synchronously.
func newBenchModel(eng *benchEngine, w, h int) Model {
	m := NewModel(eng, fakeServer{}, fakeContent{}, Options{GlamourStyle: "notty"})
	done := make(chan struct{})
	close(done)
	m.m.done = done
	return step(m, tea.WindowSizeMsg{Width: w, Height: h})
}

// benchModel is a model that has visited every stop once, so locations, tokens and lesson
// text are cached, and now shows a stop in the authn phase.
func benchModel(b *testing.B, w, h int) (Model, *benchEngine) {
	b.Helper()
	eng := newBenchEngine()
	m := newBenchModel(eng, w, h)
	for i := range eng.plan {
		m = step(m, tour.EventMsg{Ev: eng.pause(i)})
	}
	m = step(m, tour.EventMsg{Ev: eng.pause(6)})
	if err := frameFits(m.View(), w, h); err != "" {
		b.Fatal(err)
	}
	return m, eng
}

// step applies one message and runs the commands it returns synchronously.
func step(m Model, msg tea.Msg) Model {
	next, cmd := m.Update(msg)
	return drain(next.(Model), cmd)
}

// drain runs cmd and feeds its messages back.
func drain(m Model, cmd tea.Cmd) Model {
	if cmd == nil {
		return m
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			m = drain(m, c)
		}
	default:
		next, c := m.Update(msg)
		m = drain(next.(Model), c)
	}
	return m
}

func benchView(b *testing.B, w, h int) {
	m, _ := benchModel(b, w, h)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = m.View()
	}
}

// BenchmarkView120x40 is the cost of a frame when nothing changed (bubbletea renders after
// every message).
func BenchmarkView120x40(b *testing.B) { benchView(b, 120, 40) }

// BenchmarkView200x60 is the same at 200×60.
func BenchmarkView200x60(b *testing.B) { benchView(b, 200, 60) }

// BenchmarkViewScroll is a key press that scrolls the source one line, then the frame.
func BenchmarkViewScroll(b *testing.B) {
	m, _ := benchModel(b, 200, 60)
	down, up := keyMsg("down"), keyMsg("up")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%40 >= 20 {
			k = up
		}
		m = step(m, k)
		_ = m.View()
	}
}

// BenchmarkStepChange is a new Stop arriving (every pane changes) and the frame after it,
// with the step's source and lesson text already cached.
func BenchmarkStepChange(b *testing.B) {
	m, eng := benchModel(b, 120, 40)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m = step(m, tour.EventMsg{Ev: eng.pause(i % len(eng.plan))})
		_ = m.View()
	}
}

// BenchmarkStepChangeCold is a new Stop whose lesson text was never rendered at this width
// (glamour runs), its source tokenised once per model.
func BenchmarkStepChangeCold(b *testing.B) {
	eng := newBenchEngine()
	b.ReportAllocs()
	for i := range b.N {
		b.StopTimer()
		m := newBenchModel(eng, 120, 40)
		b.StartTimer()
		m = step(m, tour.EventMsg{Ev: eng.pause(i % len(eng.plan))})
		_ = m.View()
	}
}

// BenchmarkColour runs the frame and step benchmarks with a true-colour profile, as a real
// terminal would (the other benchmarks run with TestMain's no-colour profile).
func BenchmarkColour(b *testing.B) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	b.Run("View120x40", BenchmarkView120x40)
	b.Run("View200x60", BenchmarkView200x60)
	b.Run("ViewScroll", BenchmarkViewScroll)
	b.Run("StepChange", BenchmarkStepChange)
	b.Run("StepChangeCold", BenchmarkStepChangeCold)
}
