package tour

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// fakeEngine records Continue; its stops are what the test hands the walkthrough.
type fakeEngine struct {
	stops []engine.Stop
	cont  []engine.Target
	ch    chan engine.Event
}

func (e *fakeEngine) Events() <-chan engine.Event { return e.ch }
func (e *fakeEngine) Continue(t engine.Target) error {
	e.cont = append(e.cont, t)
	return nil
}
func (e *fakeEngine) Stops() []engine.Stop { return e.stops }

const fakeSource = `package server

// Authn runs the authn phase: one authenticator per credential kind, then their union.
func (s *Server) Authn(ctx context.Context) error {
	a := &authnState{}
	a.x509 = newX509(s.c.ca)
	a.bearer = newBearer(s.identities())
	return nil
}
`

// fakeContent has a step for every checkpoint and resolves every anchor in fakeSource.
type fakeContent struct{}

func (fakeContent) Step(id string) (walk.Step, bool) {
	return walk.Step{ID: "lesson/" + id, Checkpoint: id, Title: "Step " + id, Lesson: "Lesson",
		Text: "The server builds **" + id + "** here.\n\n- one\n- two\n", Anchor: "Server.Authn"}, true
}
func (fakeContent) Local(string, string) (source.Location, error) {
	return source.Location{File: "server/authn.go", StartLine: 3, EndLine: 9, FocusStart: 6, FocusEnd: 6, Source: []byte(fakeSource)}, nil
}
func (fakeContent) Upstream(string) (source.Location, error) {
	return source.Location{}, errors.New("no upstream in tests")
}

// stop is the i'th checkpoint of the server, with a small state tree.
func stop(i int) engine.Stop {
	cp := server.Checkpoints()[i]
	root := &server.Node{}
	ph := root.Add(string(cp.Phase), "")
	ph.Add("checkpoint", cp.Name)
	ph.Add("index", fmt.Sprint(i))
	var timings []server.PhaseTiming
	for _, p := range server.Phases() {
		if p == cp.Phase {
			break
		}
		timings = append(timings, server.PhaseTiming{Phase: p, Duration: 12 * time.Millisecond})
	}
	return engine.Stop{Index: i, Checkpoint: cp, State: root, Timings: timings}
}

// rig is a walkthrough on a fake engine, driven synchronously: every command runs at once and
// its messages go back through Update (the engine's waiter ends at once: done is closed).
type rig struct {
	t     *testing.T
	m     *Model
	eng   *fakeEngine
	notes []string
	info  string
	moved int
}

func newRig(t *testing.T, lang string, track []walk.Step) *rig {
	t.Helper()
	tr := i18n.For(lang)
	c := common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}
	r := &rig{t: t, eng: &fakeEngine{ch: make(chan engine.Event)}}
	done := make(chan struct{})
	close(done)
	r.m = New(c, Options{
		Engine: r.eng, Content: fakeContent{}, Keys: testKeys(tr), GlamourStyle: "notty", Track: track,
		Env: Env{
			Done:  func() <-chan struct{} { return done },
			Note:  func(s string) { r.notes = append(r.notes, s) },
			Info:  func(title string, _ []string) { r.info = title },
			Moved: func() tea.Cmd { r.moved++; return nil },
		},
	})
	r.run(r.m.Init())
	return r
}

// testKeys are the walkthrough's keys as the root binds them (tui.NewKeyMap's).
func testKeys(tr *i18n.Strings) Keys {
	sk := common.NewScrollKeys(tr)
	b := func(desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keys[0], desc))
	}
	return Keys{
		Next: b(tr.KeyNext, " ", "n", "right"), NextPhase: b(tr.KeyNextPhase, "p"), ToEnd: b(tr.KeyToEnd, "E"),
		Phase: b(tr.KeyPhase, "1", "2", "3", "4", "5", "6", "7"),
		Back:  b(tr.KeyBack, "left", "h"), Forward: b(tr.KeyForward, "l"), Live: b(tr.KeyLive, "esc"),
		FocusNext: b(tr.KeyFocusNext, "tab"), FocusPrev: b(tr.KeyFocusPrev, "shift+tab"), Served: b(tr.KeyServed, "K"),
		Up: sk.Up, Down: sk.Down, PageUp: sk.PageUp, PageDown: sk.PageDown, Top: sk.Top, Bottom: sk.Bottom,
		Toggle: b(tr.KeyToggle, "enter"), NextChange: b(tr.KeyNextChange, "]"), PrevChange: b(tr.KeyPrevChange, "["),
		ExpandAll: b(tr.KeyExpandAll, "e"), CollapseAll: b(tr.KeyCollapseAll, "c"),
		Raw: b(tr.KeyRaw, "r"), Upstream: b(tr.KeyUpstream, "u"), Wrap: b(tr.KeyWrap, "w"), Search: b(tr.KeySearch, "/"),
		Rerun: b(tr.KeyRerun, "r"), SideBySide: b(tr.KeySideBySide, "s"), Fetch: b(tr.KeyFetch, "F"),
		MatchNext: b(tr.KeyMatchNext, "n"), MatchPrev: b(tr.KeyMatchPrev, "N"), OpenMatch: b(tr.KeyOpenMatch, "enter"),
		Help: b(tr.KeyHelp, "?"), Quit: b(tr.KeyQuit, "q"),
	}
}

// run runs cmd and everything it leads to.
func (r *rig) run(cmd tea.Cmd) {
	r.t.Helper()
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			r.run(c)
		}
	default:
		r.run(r.m.Update(msg))
	}
}

// pause makes the engine reach stop i.
func (r *rig) pause(i int) {
	s := stop(i)
	r.eng.stops = append(r.eng.stops, s)
	r.run(r.m.Update(EventMsg{Ev: engine.Event{Paused: &s}}))
}

// serve makes the server serve.
func (r *rig) serve() { r.run(r.m.Update(EventMsg{Ev: engine.Event{Served: true}})) }

// key presses a key ("left", "tab", " ", a rune).
func (r *rig) key(k string) {
	var msg tea.KeyMsg
	switch k {
	case "left":
		msg = tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		msg = tea.KeyMsg{Type: tea.KeyRight}
	case "tab":
		msg = tea.KeyMsg{Type: tea.KeyTab}
	case "shift+tab":
		msg = tea.KeyMsg{Type: tea.KeyShiftTab}
	case "esc":
		msg = tea.KeyMsg{Type: tea.KeyEsc}
	case " ":
		msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	default:
		msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
	}
	r.run(r.m.Update(msg))
}

// screen is the walkthrough as the root draws it at w×h: the chain, the title line, the
// status line, the body (zoomed: the focused pane alone) and the help bar.
func (r *rig) screen(w, h int, zoom bool) (string, []string) {
	body := r.m.View(w, h-4)
	if zoom {
		body = r.m.ZoomView(w, h-4)
	}
	hm := help.New()
	hm.Width = w
	head := []string{r.m.Chain(w), r.m.TitleLine(w), r.m.Status(w, StatusEnv{})}
	for i := range head {
		head[i] = common.Fit(head[i], w)
	}
	bar := common.Fit(hm.ShortHelpView(r.m.Keys()), w)
	return strings.Join(append(append(head, body...), bar), "\n"), body
}

// TestGolden: the walkthrough at 80×24 and 120×40, in English and Chinese, NO_COLOR; -update
// rewrites the files.
func TestGolden(t *testing.T) {
	track := []walk.Step{{ID: "api/get", LessonID: "api", StepID: "get", Title: "Read an object", Lesson: "The API",
		Text: "GET reads **one object**.", Anchor: "Server.Authn", Live: "config-map"}}
	cases := []struct {
		name string
		zoom bool
		do   func(r *rig)
	}{
		{"starting", false, func(r *rig) {}},
		{"first_stop", false, func(r *rig) { r.pause(0) }},
		{"review", false, func(r *rig) { r.pause(0); r.pause(1); r.pause(2); r.key("left") }},
		{"state_focus", false, func(r *rig) { r.pause(0); r.pause(1); r.key("tab") }},
		{"served", false, func(r *rig) { r.pause(0); r.serve() }},
		{"track", false, func(r *rig) { r.pause(0); r.serve(); r.key("n") }},
		{"zoom_lesson", true, func(r *rig) { r.pause(0); r.key("tab"); r.key("tab") }},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range cases {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					r := newRig(t, lang, track)
					r.m.Layout(sz.w, sz.h-4)
					tt.do(r)
					frame, body := r.screen(sz.w, sz.h, tt.zoom)
					if len(body) != sz.h-4 {
						t.Errorf("%d body lines, want %d", len(body), sz.h-4)
					}
					for i, l := range body {
						if w := lipgloss.Width(l); w != sz.w {
							t.Errorf("body line %d is %d cells, want %d: %q", i, w, sz.w, l)
						}
					}
					if strings.Contains(frame, "\x1b[38;") || strings.Contains(frame, "\x1b[48;") {
						t.Error("NO_COLOR frame has colours")
					}
					golden.RequireEqual(t, []byte(xansi.Strip(frame)))
				})
			}
		}
	}
}

// TestKeys: the walkthrough's keys, table-driven, each from a fresh walkthrough at 80×20.
func TestKeys(t *testing.T) {
	tr := i18n.For(i18n.English)
	track := []walk.Step{{ID: "a/1", LessonID: "a", Title: "one"}, {ID: "a/2", LessonID: "a", Title: "two"}}
	cases := []struct {
		name  string
		do    func(r *rig)
		check func(t *testing.T, r *rig)
	}{
		{"space runs to the next checkpoint, once", func(r *rig) { r.pause(0); r.key(" "); r.key(" ") }, func(t *testing.T, r *rig) {
			if len(r.eng.cont) != 1 || !r.m.Running() {
				t.Errorf("%d Continue calls, running %v; want 1 and running", len(r.eng.cont), r.m.Running())
			}
			if got := r.notes[len(r.notes)-1]; got != tr.NoteStillRunning {
				t.Errorf("note %q, want %q", got, tr.NoteStillRunning)
			}
		}},
		{"left reviews, right steps forward, esc goes live", func(r *rig) {
			r.pause(0)
			r.pause(1)
			r.pause(2)
			r.key("left")
			r.key("left")
			r.key("l")
		}, func(t *testing.T, r *rig) {
			if r.m.Reviewing() != 1 || r.m.Displayed().Index != 1 {
				t.Errorf("reviewing %d, shown %d; want 1 and 1", r.m.Reviewing(), r.m.Displayed().Index)
			}
			r.key("esc")
			if r.m.Reviewing() != -1 || r.m.Displayed().Index != 2 {
				t.Errorf("after esc: reviewing %d, shown %d; want -1 and 2", r.m.Reviewing(), r.m.Displayed().Index)
			}
		}},
		{"space while reviewing goes live and runs on", func(r *rig) { r.pause(0); r.pause(1); r.key("left"); r.key("p") }, func(t *testing.T, r *rig) {
			if r.m.Reviewing() != -1 || len(r.eng.cont) != 1 {
				t.Errorf("reviewing %d, %d Continue calls; want -1 and 1", r.m.Reviewing(), len(r.eng.cont))
			}
		}},
		{"tab cycles the panes", func(r *rig) { r.pause(0); r.key("tab"); r.key("tab") }, func(t *testing.T, r *rig) {
			if r.m.Focus() != PaneLesson || r.m.Tab() != PaneLesson {
				t.Errorf("focus %d, tab %d; want the lesson's", r.m.Focus(), r.m.Tab())
			}
			r.key("tab")
			if r.m.Focus() != PaneSource {
				t.Errorf("focus %d after the last pane, want the source's", r.m.Focus())
			}
		}},
		{"K before serve says the panel comes later", func(r *rig) { r.pause(0); r.key("K") }, func(t *testing.T, r *rig) {
			if got := r.notes[len(r.notes)-1]; got != tr.NoteKubectlPanelLater {
				t.Errorf("note %q, want %q", got, tr.NoteKubectlPanelLater)
			}
		}},
		{"a phase ahead is run to", func(r *rig) { r.pause(0); r.key("3") }, func(t *testing.T, r *rig) {
			if len(r.eng.cont) != 1 {
				t.Errorf("%d Continue calls, want 1", len(r.eng.cont))
			}
		}},
		{"n before serve leaves the track shut", func(r *rig) { r.pause(0); cmd, _ := r.m.TrackCommand(nil); r.run(cmd) }, func(t *testing.T, r *rig) {
			if r.m.InTrack() || r.info != tr.HelpTrack {
				t.Errorf("in track %v, info %q; want no track and the box %q", r.m.InTrack(), r.info, tr.HelpTrack)
			}
		}},
		{"n after serve opens the track, left leaves it", func(r *rig) { r.pause(0); r.serve(); r.key("n"); r.key("n") }, func(t *testing.T, r *rig) {
			if r.m.TrackAt() != 1 || r.moved != 2 {
				t.Errorf("track step %d, moved %d; want 1 and 2", r.m.TrackAt(), r.moved)
			}
			r.key("n")
			if got := r.notes[len(r.notes)-1]; got != tr.NoteTrackEnd {
				t.Errorf("note %q at the end, want %q", got, tr.NoteTrackEnd)
			}
			r.key("left")
			r.key("left")
			if r.m.InTrack() {
				t.Errorf("still in the track at step %d", r.m.TrackAt())
			}
		}},
		{":track 2 is out of range", func(r *rig) { r.pause(0); r.serve() }, func(t *testing.T, r *rig) {
			if _, problem := r.m.TrackCommand([]string{"2"}); problem != fmt.Sprintf(tr.ErrTrackArg, 1) {
				t.Errorf("problem %q", problem)
			}
		}},
		{"a stale auto pause does nothing", func(r *rig) { r.pause(0); r.run(r.m.Update(AutoMsg{Gen: r.m.AutoGen() + 1})) }, func(t *testing.T, r *rig) {
			if len(r.eng.cont) != 0 {
				t.Errorf("%d Continue calls, want 0", len(r.eng.cont))
			}
		}},
		{"a click in the shared place focuses its pane", func(r *rig) {
			r.pause(0)
			r.run(r.m.Update(tea.MouseMsg{X: 3, Y: 15, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}))
		}, func(t *testing.T, r *rig) {
			if r.m.Focus() != PaneLesson {
				t.Errorf("focus %d, want the lesson's", r.m.Focus())
			}
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, i18n.English, track)
			r.m.Layout(80, 20)
			tt.do(r)
			tt.check(t, r)
		})
	}
}

// TestZoomFollowsFocus: zoomed, the focused pane fills the body, and follows the focus; drawn
// unzoomed again, the panes are back where the layout puts them.
func TestZoomFollowsFocus(t *testing.T) {
	r := newRig(t, i18n.English, nil)
	r.m.Layout(120, 36)
	r.pause(0)
	normal, _ := r.m.FocusedSize()
	r.m.ZoomView(120, 36)
	if w, h := r.m.FocusedSize(); w != 120 || h != 36 {
		t.Fatalf("zoomed source %dx%d, want 120x36", w, h)
	}
	r.key("tab")
	r.m.ZoomView(120, 36)
	if w, h := r.m.FocusedSize(); r.m.Focus() != PaneState || w != 120 || h != 36 {
		t.Fatalf("zoomed pane %d is %dx%d, want the state at 120x36", r.m.Focus(), w, h)
	}
	r.key("shift+tab")
	r.m.View(120, 36)
	if w, _ := r.m.FocusedSize(); w != normal {
		t.Errorf("unzoomed source is %d wide, want %d", w, normal)
	}
}
