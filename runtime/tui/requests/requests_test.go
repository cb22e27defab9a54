package requests

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// fixture is a view over fakes, and the messages its commands sent that are not its own.
type fixture struct {
	t      *testing.T
	v      *Model
	store  *fakeStore
	bps    *fakeBreakpoints
	typing bool
	out    []tea.Msg
}

func newFixture(t *testing.T, lang string, store *fakeStore) *fixture {
	t.Helper()
	tr := i18n.For(lang)
	st := common.DefaultStyles()
	f := &fixture{t: t, store: store, bps: &fakeBreakpoints{}}
	opt := Options{
		Breakpoints: f.bps, Code: fakeCode{},
		Listening: func() bool { return true },
		Want:      func() []string { return []string{"c-1"} },
		Typing:    func() bool { return f.typing },
		Ctx:       context.Background(),
	}
	if store != nil {
		opt.Requests = store // a nil *fakeStore would be a non-nil Requests
	}
	f.v = New(common.Common{Styles: st, Tr: tr, Scroll: common.NewScrollKeys(tr)}, opt)
	return f
}

// run runs cmd as bubbletea would, synchronously: the view's own messages go back to it,
// the others (notes, ShowMsg, TracesMsg, an etcd key) are kept in f.out. The subscription's
// waiter is not run (it would wait for the store).
func (f *fixture) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			f.run(c)
		}
	case loadedMsg, heldActionMsg, ReloadMsg, source.ResolvedMsg:
		f.send(msg)
	default:
		f.out = append(f.out, msg)
	}
}

// send hands the view a message and runs what it returns.
func (f *fixture) send(msg tea.Msg) { f.run(f.v.Update(msg)) }

func (f *fixture) keys(names ...string) {
	for _, n := range names {
		f.send(keyMsg(n))
	}
}

func keyMsg(s string) tea.KeyMsg {
	for _, k := range []tea.KeyType{tea.KeyTab, tea.KeyShiftTab, tea.KeyEnter, tea.KeyEsc, tea.KeyUp, tea.KeyDown,
		tea.KeyLeft, tea.KeyRight, tea.KeyPgDown, tea.KeyPgUp, tea.KeyBackspace, tea.KeySpace} {
		if k.String() == s {
			return tea.KeyMsg{Type: k}
		}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// notes are the notes the view sent the root.
func (f *fixture) notes() []string {
	var out []string
	for _, m := range f.out {
		if n, ok := m.(view.NoteMsg); ok {
			out = append(out, string(n))
		}
	}
	return out
}

// frame renders w×h and checks its shape.
func (f *fixture) frame(w, h int) string {
	f.t.Helper()
	return f.check(f.v.View(w, h), w, h)
}

// zoomFrame is the zoomed view (view.Zoomer) at w×h, checked as frame checks it.
func (f *fixture) zoomFrame(w, h int) string {
	f.t.Helper()
	return f.check(f.v.ZoomView(w, h), w, h)
}

// check fails the test unless lines are h lines of w cells, and joins them.
func (f *fixture) check(lines []string, w, h int) string {
	f.t.Helper()
	if len(lines) != h {
		f.t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			f.t.Errorf("line %d is %d cells, want %d: %q", i, lw, w, l)
		}
	}
	return strings.Join(lines, "\n")
}

// TestGolden: the view alone at 80×24 and 120×40, in English and Chinese, NO_COLOR: the list
// with the newest request's lane, the request pane, a held request, the filter line, and no
// trace store. -update rewrites the files.
func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		store bool
		held  bool
		keys  []string
	}{
		{"list", true, false, nil},
		{"lane", true, false, []string{"down", "tab"}},
		{"details", true, false, []string{"tab", "tab"}},
		{"source", true, false, []string{"tab", "s"}},
		{"held", true, true, nil},
		{"filter", true, false, []string{"/", "b", "o", "b"}},
		{"unwired", false, false, nil},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range cases {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					var store *fakeStore
					if tt.store {
						store = newFakeStore(someTraces()...)
					}
					f := newFixture(t, lang, store)
					if tt.held {
						store.traces = append(store.traces, held(okCreate("h-1", "held", 9)))
						store.traces[len(store.traces)-1].Seq = 9
						f.bps.held = []HeldRequest{{ID: "h-1", Stage: tracing.StageAuthorization, Spec: "authorization", Since: traceBase.Add(9 * time.Second)}}
					}
					f.v.Layout(sz.w, sz.h)
					f.send(ReloadMsg{})
					f.keys(tt.keys...)
					frame := f.frame(sz.w, sz.h)
					if strings.Contains(frame, "\x1b[") {
						t.Error("NO_COLOR frame has escape sequences")
					}
					golden.RequireEqual(t, []byte(frame))
				})
			}
		}
	}
}

// TestKeys: each key of the view, from the list with the newest request selected.
func TestKeys(t *testing.T) {
	tests := []struct {
		name   string
		keys   []string
		focus  Pane
		sel    string
		check  func(*fixture) string // "" when right
		notes  []string
		typing bool
	}{
		{name: "opens on the newest", focus: PaneList, sel: "c-3"},
		{name: "down picks the next", keys: []string{"down"}, focus: PaneList, sel: "c-2"},
		{name: "j is down too", keys: []string{"j", "j"}, focus: PaneList, sel: "f-1"},
		{name: "G goes to the oldest", keys: []string{"G"}, focus: PaneList, sel: "c-1"},
		{name: "g follows the newest again", keys: []string{"G", "g"}, focus: PaneList, sel: "c-3",
			check: func(f *fixture) string {
				if f.v.chosen {
					return "g left the selection chosen"
				}
				return ""
			}},
		{name: "enter opens the lane", keys: []string{"enter"}, focus: PaneLane, sel: "c-3"},
		{name: "tab cycles forward", keys: []string{"tab", "tab", "tab"}, focus: PaneSource, sel: "c-3"},
		{name: "shift+tab cycles back", keys: []string{"shift+tab"}, focus: PaneSource, sel: "c-3"},
		{name: "right moves the stage", keys: []string{"enter", "right", "l"}, focus: PaneLane, sel: "c-3",
			check: func(f *fixture) string {
				if _, s, _ := f.v.Stage(); s.Name != tracing.StageAuthorization {
					return "stage " + s.Name
				}
				return ""
			}},
		{name: "down in the lane moves the stage", keys: []string{"enter", "down"}, focus: PaneLane, sel: "c-3",
			check: func(f *fixture) string {
				if f.v.stage != 1 {
					return fmt.Sprint("stage ", f.v.stage)
				}
				return ""
			}},
		{name: "s shows the stage's code", keys: []string{"enter", "s"}, focus: PaneSource, sel: "c-3",
			check: func(f *fixture) string {
				if code, _ := f.v.SourcePane().Step(); code.Anchor != "server/(*Server).Authn" || !strings.Contains(code.Title, tracing.StageAuthentication) {
					return fmt.Sprintf("source at %q %q", code.Anchor, code.Title)
				}
				return ""
			}},
		{name: "s on a stage without code", keys: []string{"enter", "right", "s"}, focus: PaneLane, sel: "c-3",
			notes: []string{i18n.For(i18n.English).NoteStageNoCode}},
		{name: "u and w in the source", keys: []string{"enter", "s", "u", "w"}, focus: PaneSource, sel: "c-3",
			check: func(f *fixture) string {
				if p := f.v.SourcePane(); !p.Upstream() || !p.Wrapped() {
					return "u or w did nothing"
				}
				return ""
			}},
		{name: "pgdown in the source pages it", keys: []string{"enter", "s", "pgdown"}, focus: PaneSource, sel: "c-3",
			check: func(f *fixture) string {
				if p := f.v.SourcePane(); p.Offset() < p.Page() {
					return fmt.Sprint("scrolled ", p.Offset())
				}
				return ""
			}},
		{name: "S opens the storage key", keys: []string{"S"}, focus: PaneList, sel: "c-3",
			check: func(f *fixture) string {
				for _, m := range f.out {
					if m == (etcd.OpenKeyMsg{Key: "/registry/configmaps/default/third"}) {
						return ""
					}
				}
				return fmt.Sprintf("sent %v", f.out)
			}},
		{name: "S without storage", keys: []string{"j", "j", "S"}, focus: PaneList, sel: "f-1",
			notes: []string{i18n.For(i18n.English).NoteStageNoEtcd}},
		{name: "L shows loopback", keys: []string{"L"}, focus: PaneList, sel: "c-3",
			notes: []string{i18n.For(i18n.English).NoteLoopbackShown},
			check: func(f *fixture) string {
				if len(f.v.Shown()) != 5 {
					return fmt.Sprint(len(f.v.Shown()), " shown")
				}
				return ""
			}},
		{name: "/ opens the filter", keys: []string{"/", "b", "o"}, focus: PaneList, sel: "c-3", typing: true},
		{name: "enter applies the filter", keys: []string{"/", "b", "o", "b", "enter"}, focus: PaneList, sel: "f-1",
			check: func(f *fixture) string {
				if f.v.text != "bob" || len(f.v.Shown()) != 1 || f.v.Shown()[0].ID != "f-1" {
					return fmt.Sprintf("filter %q shows %d", f.v.text, len(f.v.Shown()))
				}
				return ""
			}},
		{name: "esc drops the filter", keys: []string{"/", "b", "enter", "esc"}, focus: PaneList, sel: "c-3",
			check: func(f *fixture) string {
				if f.v.text != "" || len(f.v.Shown()) != 4 {
					return fmt.Sprintf("filter %q shows %d", f.v.text, len(f.v.Shown()))
				}
				return ""
			}},
		{name: "q and : are typed into the filter", keys: []string{"/", "q", ":", "backspace"}, focus: PaneList, sel: "c-3", typing: true,
			check: func(f *fixture) string {
				if string(f.v.input) != "q" {
					return fmt.Sprintf("input %q", string(f.v.input))
				}
				return ""
			}},
		{name: "space with nothing held", keys: []string{" "}, focus: PaneList, sel: "c-3",
			notes: []string{i18n.For(i18n.English).NoteNothingHeld}},
		{name: "pgdown in the details scrolls them", keys: []string{"tab", "tab", "pgdown"}, focus: PaneDetails, sel: "c-3",
			check: func(f *fixture) string {
				if f.v.details.Offset() == 0 {
					return "not scrolled"
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, i18n.English, newFakeStore(someTraces()...))
			f.v.Layout(80, 12)
			f.send(ReloadMsg{})
			f.keys(tt.keys...)
			f.frame(80, 12)
			if f.v.Focus() != tt.focus || f.v.SelectedID() != tt.sel || f.v.Capturing() != tt.typing {
				t.Errorf("focus %v, selected %q, typing %v; want %v, %q, %v", f.v.Focus(), f.v.SelectedID(), f.v.Capturing(), tt.focus, tt.sel, tt.typing)
			}
			if got := f.notes(); fmt.Sprint(got) != fmt.Sprint(tt.notes) && tt.notes != nil {
				t.Errorf("notes %q, want %q", got, tt.notes)
			}
			if tt.check != nil {
				if problem := tt.check(f); problem != "" {
					t.Error(problem)
				}
			}
		})
	}
}

// TestHeld: a newly held request takes the screen (ShowMsg) unless the learner types
// elsewhere; space, E and x step, let go and fail it, and their errors become notes.
func TestHeld(t *testing.T) {
	en := i18n.For(i18n.English)
	tests := []struct {
		name   string
		typing bool
		keys   []string
		err    error
		calls  []string
		show   bool
		notes  []string
	}{
		{name: "jump", show: true},
		{name: "typing", typing: true, notes: []string{fmt.Sprintf(en.NoteHeldWhileTyping, tracing.StageAuthorization)}},
		{name: "step", keys: []string{" "}, show: true, calls: []string{"step h-1"}, notes: []string{en.NoteStepped}},
		{name: "n steps too", keys: []string{"n"}, show: true, calls: []string{"step h-1"}, notes: []string{en.NoteStepped}},
		{name: "let go", keys: []string{"E"}, show: true, calls: []string{"continue h-1"}, notes: []string{en.NoteLetGo}},
		{name: "fail", keys: []string{"x"}, show: true, calls: []string{"abort h-1"}, notes: []string{en.NoteAborted}},
		{name: "fail fails", keys: []string{"x"}, err: errors.New("gone\n  away"), show: true, calls: []string{"abort h-1"},
			notes: []string{fmt.Sprintf(en.NoteAbortFailed, "gone away")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := newFakeStore(someTraces()...)
			store.traces = append(store.traces, held(okCreate("h-1", "held", 9)))
			store.traces[len(store.traces)-1].Seq = 9
			f := newFixture(t, i18n.English, store)
			f.typing = tt.typing
			f.bps.err = tt.err
			f.bps.held = []HeldRequest{{ID: "h-1", Stage: tracing.StageAuthorization, Spec: "authorization", Since: traceBase}}
			f.v.Layout(120, 40)
			f.send(ReloadMsg{})
			f.out = slicesDeleteNotes(f.out, !tt.typing)
			f.keys(tt.keys...)
			var shown bool
			for _, m := range f.out {
				if s, ok := m.(ShowMsg); ok {
					shown = true
					if want := fmt.Sprintf(en.NoteHeldJump, tracing.StageAuthorization); s.Note != want {
						t.Errorf("ShowMsg note %q, want %q", s.Note, want)
					}
				}
			}
			if shown != tt.show {
				t.Errorf("ShowMsg sent %v, want %v", shown, tt.show)
			}
			if tt.show && (f.v.SelectedID() != "h-1" || f.v.Focus() != PaneLane || srcCode(f).Upstream == "") {
				t.Errorf("selected %q, focus %v, source %q", f.v.SelectedID(), f.v.Focus(), srcCode(f).Anchor)
			}
			if tt.typing && f.v.Focus() != PaneList {
				t.Error("the held request took the focus while the learner typed")
			}
			if fmt.Sprint(f.bps.calls) != fmt.Sprint(tt.calls) {
				t.Errorf("calls %v, want %v", f.bps.calls, tt.calls)
			}
			if got := f.notes(); fmt.Sprint(got) != fmt.Sprint(tt.notes) {
				t.Errorf("notes %q, want %q", got, tt.notes)
			}
			if f.v.HeldCount() != 1 || f.v.HeldAt("h-1") != tracing.StageAuthorization {
				t.Errorf("held %d at %q", f.v.HeldCount(), f.v.HeldAt("h-1"))
			}
			chain := ansi.Strip(f.v.Chain(200, true))
			if !strings.Contains(chain, "⏸ authorization") || !strings.Contains(chain, "✓ authentication") || !strings.Contains(chain, "– impersonation") {
				t.Errorf("chain %q", chain)
			}
		})
	}
}

// slicesDeleteNotes drops the notes the first load sent, keeping the rest (keep: all of it).
func slicesDeleteNotes(msgs []tea.Msg, drop bool) []tea.Msg {
	if !drop {
		return msgs
	}
	var out []tea.Msg
	for _, m := range msgs {
		if _, ok := m.(view.NoteMsg); !ok {
			out = append(out, m)
		}
	}
	return out
}

// TestMessages: what other views and the root send the view.
func TestMessages(t *testing.T) {
	tests := []struct {
		name  string
		msgs  []tea.Msg
		sel   string
		shown int
		focus Pane
	}{
		{"reload lists", []tea.Msg{ReloadMsg{}}, "c-3", 4, PaneList},
		{"open a trace", []tea.Msg{ReloadMsg{}, OpenMsg{ID: "f-1"}}, "f-1", 4, PaneLane},
		{"open a loopback trace by ID", []tea.Msg{ReloadMsg{}, OpenMsg{ID: "l-1"}}, "l-1", 4, PaneLane},
		{"clear hides what came", []tea.Msg{ReloadMsg{}, ClearMsg{}}, "", 0, PaneList},
		{"requests all shows it again", []tea.Msg{ReloadMsg{}, ClearMsg{}, ListMsg{All: true}}, "c-3", 4, PaneList},
		{"requests keeps the mark", []tea.Msg{ReloadMsg{}, ClearMsg{}, ListMsg{}}, "", 0, PaneList},
		{"a stale snapshot is dropped", []tea.Msg{ReloadMsg{}, loadedMsg{seq: 1}}, "c-3", 4, PaneList},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, i18n.English, newFakeStore(someTraces()...))
			f.v.Layout(120, 40)
			for _, m := range tt.msgs {
				f.send(m)
			}
			f.frame(120, 40)
			sel := f.v.SelectedID()
			if len(f.v.Shown()) == 0 {
				if t, ok := f.v.Selected(); ok && len(f.v.Shown()) == 0 {
					sel = t.ID // still known by ID, not listed
				}
				if tt.sel == "" {
					sel = ""
				}
			}
			if sel != tt.sel || len(f.v.Shown()) != tt.shown || f.v.Focus() != tt.focus {
				t.Errorf("selected %q, %d shown, focus %v; want %q, %d, %v", sel, len(f.v.Shown()), f.v.Focus(), tt.sel, tt.shown, tt.focus)
			}
			var traces map[string]tracing.Trace
			for _, m := range f.out {
				if tm, ok := m.(TracesMsg); ok {
					traces = tm.Traces
				}
			}
			if _, ok := traces["c-1"]; !ok {
				t.Errorf("TracesMsg lacks the trace Want asked for: %v", traces)
			}
			var shown bool
			for _, m := range f.out {
				_, ok := m.(ShowMsg)
				shown = shown || ok
			}
			if _, open := tt.msgs[len(tt.msgs)-1].(OpenMsg); shown != open {
				t.Errorf("ShowMsg sent %v after %T", shown, tt.msgs[len(tt.msgs)-1])
			}
		})
	}
}

// TestSubscription: Init subscribes, a store event brings a snapshot through the waiter,
// which re-arms; Close ends the subscription.
func TestSubscription(t *testing.T) {
	store := newFakeStore(someTraces()...)
	f := newFixture(t, i18n.English, store)
	msg := f.v.Init()()
	sub, ok := msg.(subscribedMsg)
	if !ok {
		t.Fatalf("Init sent %T", msg)
	}
	cmd := f.v.Update(sub)
	if !f.v.Armed() {
		t.Fatal("not armed after the subscription")
	}
	store.ch <- tracing.Event{ID: "c-3"}
	// The batch is the waiter and a first load; run both.
	batch, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("subscription returned %T", batch)
	}
	for _, c := range batch {
		m := c()
		if l, ok := m.(loadedMsg); !ok || len(l.traces) != 4 {
			t.Fatalf("got %T %+v", m, m)
		}
		f.v.Update(m)
	}
	close(store.ch)
	f.v.Close()
	if store.unsub != 1 {
		t.Errorf("unsubscribed %d times", store.unsub)
	}
}

// TestZoomAndMouse: zoomed, the focused pane takes the body; a click focuses the pane under
// it and the wheel scrolls it.
func TestZoomAndMouse(t *testing.T) {
	f := newFixture(t, i18n.English, newFakeStore(someTraces()...))
	f.send(ReloadMsg{})
	f.frame(120, 40)
	// the request pane is the right column's top half
	f.send(tea.MouseMsg{X: 100, Y: 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	if f.v.Focus() != PaneDetails {
		t.Fatalf("a click on the request pane focused %v", f.v.Focus())
	}
	f.send(tea.MouseMsg{X: 10, Y: 30, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if f.v.Focus() != PaneLane || f.v.lane.Offset() == 0 && len(f.v.lane.Lines()) > f.v.lane.Visible() {
		t.Errorf("the wheel over the lane: focus %v, offset %d", f.v.Focus(), f.v.lane.Offset())
	}
	frame := ansi.Strip(f.zoomFrame(120, 40))
	if !strings.HasPrefix(frame, "┏━ Lane") || strings.Contains(frame, "Requests ·") {
		t.Errorf("zoomed frame:\n%s", frame)
	}
	if w, h := f.v.lane.Size(); w != 120 || h != 40 {
		t.Errorf("zoomed lane %d×%d", w, h)
	}
	f.frame(120, 40)
	if w, _ := f.v.lane.Size(); w != 60 {
		t.Errorf("unzoomed lane %d wide", w)
	}
}

// TestLaneSummary: a lane on one line, as the kubectl view lists a command's requests.
func TestLaneSummary(t *testing.T) {
	zh := i18n.For(i18n.SimplifiedChinese)
	for _, tt := range []struct {
		name string
		tr   *i18n.Strings
		t    tracing.Trace
		want string
	}{
		{"created", i18n.For(i18n.English), okCreate("a", "demo", 0), "✓authn –imp ✓authz ✓CreatedBy ✓storage → 201 2.1ms"},
		{"denied", i18n.For(i18n.English), forbidden("b", 0), "✓authn –imp ✗authz(denied) → 403 2.1ms"},
		{"held, in flight", i18n.For(i18n.English), held(okCreate("c", "demo", 0)), "✓authn –imp ⏸authz(held) → …"},
		{"held, zh-CN", zh, held(okCreate("c", "demo", 0)), "✓authn –imp ⏸authz(" + zh.OutcomeHeld + ") → …"},
		{"no stages yet", i18n.For(i18n.English), tracing.Trace{ID: "d"}, " → …"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := LaneSummary(tt.tr, tt.t); got != tt.want {
				t.Errorf("LaneSummary = %q, want %q", got, tt.want)
			}
		})
	}
}

// srcCode is the code the stage-code pane was last pointed at.
func srcCode(f *fixture) source.Code {
	c, _ := f.v.SourcePane().Step()
	return c
}
