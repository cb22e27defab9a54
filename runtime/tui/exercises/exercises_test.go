package exercises

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

var sizes = []struct{ w, h int }{{80, 24}, {120, 40}}

// at is an Env.Where that puts the walkthrough at lesson and phase.
func at(lesson, phase string) func() (string, string, bool) {
	return func() (string, string, bool) { return lesson, phase, true }
}

func newView(lang string, x Backend, where func() (string, string, bool)) *Model {
	tr := i18n.For(lang)
	return New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, x, Env{Where: where})
}

// loaded is a view on x at lesson 03-authz, with its first snapshot taken and drawn at w×h.
func loaded(t *testing.T, lang string, x *fake, w, h int) *Model {
	t.Helper()
	v := newView(lang, x, at("03-authz", "authz"))
	v.View(w, h)
	drive(t, v, v.loader.load(x, false))
	return v
}

// drive hands the view msg and runs the commands it returns as bubbletea would, feeding the
// view its own messages back; it returns the messages meant for the root (notes, toasts,
// changes).
func drive(t *testing.T, v *Model, msg tea.Msg) []tea.Msg {
	t.Helper()
	return run(t, v, v.Update(msg))
}

func run(t *testing.T, v *Model, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	if cmd == nil {
		return nil
	}
	var out []tea.Msg
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			out = append(out, run(t, v, c)...)
		}
	case loadedMsg, resultMsg:
		out = append(out, drive(t, v, msg)...)
	default:
		out = append(out, msg)
	}
	return out
}

// keys drives the view with each key and returns what came back for the root.
func keys(t *testing.T, v *Model, names ...string) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	for _, n := range names {
		out = append(out, drive(t, v, keyMsg(n))...)
	}
	return out
}

func keyMsg(s string) tea.KeyMsg {
	special := map[string]tea.KeyType{"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
		"up": tea.KeyUp, "down": tea.KeyDown, "left": tea.KeyLeft, "right": tea.KeyRight, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace, "delete": tea.KeyDelete, "ctrl+u": tea.KeyCtrlU, " ": tea.KeySpace}
	if k, ok := special[s]; ok {
		return tea.KeyMsg{Type: k}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// notes are the NoteMsgs among msgs.
func notes(msgs []tea.Msg) []string {
	var out []string
	for _, m := range msgs {
		if n, ok := m.(view.NoteMsg); ok {
			out = append(out, string(n))
		}
	}
	return out
}

func count[T any](msgs []tea.Msg) int {
	n := 0
	for _, m := range msgs {
		if _, ok := m.(T); ok {
			n++
		}
	}
	return n
}

// selectEx moves the list's cursor to exercise id.
func selectEx(t *testing.T, v *Model, id string) {
	t.Helper()
	keys(t, v, "g")
	for range v.All() {
		if e, ok := v.Selected(); ok && e.ID == id {
			return
		}
		keys(t, v, "down")
	}
	t.Fatalf("no exercise %s", id)
}

// checkFrame checks that lines are exactly h lines of exactly w cells, without colour.
func checkFrame(t *testing.T, lines []string, w, h int) {
	t.Helper()
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, lw, w, l)
		}
	}
	if strings.Contains(strings.Join(lines, "\n"), "\x1b[") {
		t.Error("NO_COLOR frame has escape sequences")
	}
}

// TestGolden: the view alone at 80×24 and 120×40, in English and Chinese, with NO_COLOR: the
// list at the authz lesson, hints revealed, a wrong answer with the answer line open, the
// detail zoomed, and a run without exercises. -update rewrites the files.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		nil  bool // not wired
		zoom bool // drawn by ZoomView, as the root does while z is on
		run  func(t *testing.T, v *Model)
	}{
		{"list", false, false, func(t *testing.T, v *Model) {}},
		{"hints", false, false, func(t *testing.T, v *Model) { keys(t, v, "tab", "h", "h") }},
		{"answer", false, false, func(t *testing.T, v *Model) {
			selectEx(t, v, "authz-who")
			keys(t, v, "a", "alice", "enter", "a", "develop")
		}},
		{"zoom", false, true, func(t *testing.T, v *Model) { keys(t, v, "tab", "h") }},
		{"notwired", true, false, func(t *testing.T, v *Model) { keys(t, v, "h") }},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range sizes {
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					var v *Model
					if tt.nil {
						v = newView(lang, nil, at("03-authz", "authz"))
					} else {
						v = loaded(t, lang, newFake(lang), sz.w, sz.h)
					}
					tt.run(t, v)
					lines := v.View(sz.w, sz.h)
					if tt.zoom {
						lines = v.ZoomView(sz.w, sz.h)
					}
					checkFrame(t, lines, sz.w, sz.h)
					if v.Capturing() {
						line := v.AnswerLine(sz.w)
						checkFrame(t, []string{line}, sz.w, 1)
						lines = append(lines, line)
					}
					golden.RequireEqual(t, []byte(strings.Join(lines, "\n")))
				})
			}
		}
	}
}

// TestKeys: each key on each kind of exercise does what it says, or says in the status line
// why not; the backend is called only for what it should record.
func TestKeys(t *testing.T) {
	tr := i18n.For(i18n.English)
	tests := []struct {
		name    string
		nil     bool
		ex      string   // the exercise selected first ("" leaves the first)
		keys    []string // before the key under test
		key     string
		note    string // the status line after the key
		typing  bool   // the answer line is open after it
		calls   int    // backend calls (hints, answers)
		changed bool   // a ChangedMsg came back
		focus   int
	}{
		{name: "h reveals a hint", ex: "authz-bob-cm", key: "h", calls: 1, changed: true},
		{name: "h after every hint", ex: "authz-bob-cm", keys: []string{"h", "h", "h"}, key: "h", note: tr.NoteExAllHints, calls: 3},
		{name: "h on a done exercise", ex: "authn-401", key: "h", note: tr.NoteExDoneHints},
		{name: "h on a locked exercise", ex: "serve-readyz", key: "h", note: fmt.Sprintf(tr.NoteExLocked, "serve")},
		{name: "a on a live exercise", ex: "authz-bob-cm", key: "a", note: tr.NoteExNoAnswer},
		{name: "a on a done exercise", ex: "authn-401", key: "a", note: tr.NoteExDone},
		{name: "a on a locked exercise", ex: "serve-readyz", key: "a", note: fmt.Sprintf(tr.NoteExLocked, "serve")},
		{name: "a on a typed answer", ex: "authz-who", key: "a", typing: true},
		{name: "a number on a typed answer types it", ex: "authz-who", key: "3", typing: true},
		{name: "a wrong choice", ex: "authn-which", key: "1", note: fmt.Sprintf(tr.NoteExWrong, `"1" is not it`), calls: 1, changed: true},
		{name: "no such choice", ex: "authn-which", key: "7", note: fmt.Sprintf(tr.NoteExNoChoice, 7)},
		{name: "the right choice", ex: "authn-which", key: "2", note: tr.NoteExRight, calls: 1, changed: true},
		{name: "a right answer", ex: "authz-who", keys: []string{"a", "  Developers "}, key: "enter", note: tr.NoteExRight, calls: 1, changed: true},
		{name: "a wrong answer", ex: "authz-who", keys: []string{"a", "alice"}, key: "enter", note: fmt.Sprintf(tr.NoteExWrong, `"alice" is not it`), calls: 1, changed: true},
		{name: "enter on an empty answer", ex: "authz-who", keys: []string{"a"}, key: "enter", typing: true},
		{name: "esc closes the answer line", ex: "authz-who", keys: []string{"a", "x"}, key: "esc"},
		{name: "q is typed into the answer line", ex: "authz-who", keys: []string{"a"}, key: "q", typing: true},
		{name: "tab focuses the detail", key: "tab", focus: 1},
		{name: "shift+tab back to the list", keys: []string{"tab"}, key: "shift+tab", focus: 0},
		{name: "enter focuses the detail", key: "enter", focus: 1},
		{name: "enter in the detail answers", ex: "authz-who", keys: []string{"enter"}, key: "enter", typing: true, focus: 1},
		{name: "not wired", nil: true, key: "h", note: tr.ExNotWired},
		{name: "not wired, a", nil: true, key: "a", note: tr.ExNotWired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newFake(i18n.English)
			v := loaded(t, i18n.English, x, 120, 40)
			if tt.nil {
				v = newView(i18n.English, nil, at("03-authz", "authz"))
				v.View(120, 40)
			}
			if tt.ex != "" {
				selectEx(t, v, tt.ex)
			}
			keys(t, v, tt.keys...)
			got := keys(t, v, tt.key)
			if n := notes(got); strings.Join(n, "|") != tt.note {
				t.Errorf("notes %q, want %q", n, tt.note)
			}
			if v.Capturing() != tt.typing {
				t.Errorf("typing %v, want %v", v.Capturing(), tt.typing)
			}
			if x.calls != tt.calls {
				t.Errorf("%d backend calls, want %d", x.calls, tt.calls)
			}
			if c := count[ChangedMsg](got) > 0; c != tt.changed {
				t.Errorf("ChangedMsg %v, want %v", c, tt.changed)
			}
			if count[ToastMsg](got) != 0 {
				t.Error("a key toasted")
			}
			if v.focus != tt.focus {
				t.Errorf("focus %d, want %d", v.focus, tt.focus)
			}
		})
	}
}

// TestListKeys: the scroll keys move the list's cursor over exercises, skipping headings.
func TestListKeys(t *testing.T) {
	tests := []struct {
		keys []string
		want string
	}{
		{nil, "authz-bob-cm"},
		{[]string{"down"}, "authz-who"},
		{[]string{"down", "down"}, "authn-401"}, // over the authn heading
		{[]string{"down", "up"}, "authz-bob-cm"},
		{[]string{"up"}, "authz-bob-cm"},
		{[]string{"G"}, "serve-readyz"},
		{[]string{"G", "g"}, "authz-bob-cm"},
		{[]string{"pgdown"}, "serve-readyz"},
		{[]string{"j", "j", "k"}, "authz-who"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.keys, ","), func(t *testing.T) {
			v := loaded(t, i18n.English, newFake(i18n.English), 80, 24)
			keys(t, v, tt.keys...)
			if e, _ := v.Selected(); e.ID != tt.want {
				t.Errorf("selected %s, want %s", e.ID, tt.want)
			}
		})
	}
}

// TestAnswerLine: the answer line edits as a line does; a paste's newlines become spaces.
func TestAnswerLine(t *testing.T) {
	tests := []struct {
		keys  []string
		input string
		cur   int
	}{
		{[]string{"abc"}, "abc", 3},
		{[]string{"abc", "left", "left", "X"}, "aXbc", 2},
		{[]string{"abc", "home", "delete"}, "bc", 0},
		{[]string{"abc", "backspace"}, "ab", 2},
		{[]string{"abc", "left", "ctrl+u"}, "c", 0},
		{[]string{"a", " ", "b", "end"}, "a b", 3},
		{[]string{"a\nb\tc"}, "a b c", 5},
		{[]string{"right", "left", "backspace"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.keys), func(t *testing.T) {
			v := loaded(t, i18n.English, newFake(i18n.English), 80, 24)
			selectEx(t, v, "authz-who")
			keys(t, v, "a")
			keys(t, v, tt.keys...)
			if string(v.input) != tt.input || v.cur != tt.cur {
				t.Errorf("input %q at %d, want %q at %d", string(v.input), v.cur, tt.input, tt.cur)
			}
			if line := v.AnswerLine(80); lipgloss.Width(line) != 80 {
				t.Errorf("answer line %d cells", lipgloss.Width(line))
			}
		})
	}
	// A long answer keeps its end in view.
	v := loaded(t, i18n.SimplifiedChinese, newFake(i18n.SimplifiedChinese), 80, 24)
	selectEx(t, v, "authz-who")
	keys(t, v, "a", strings.Repeat("答案 long answer ", 20)+"END")
	if line := v.AnswerLine(80); lipgloss.Width(line) != 80 || !strings.Contains(line, "…") || !strings.Contains(line, "END") {
		t.Errorf("long answer line %q", line)
	}
}

// TestMessages: snapshots and results as the view takes them, and its zoomed frame.
func TestMessages(t *testing.T) {
	tr := i18n.For(i18n.English)
	tests := []struct {
		name   string
		run    func(t *testing.T, v *Model, x *fake) []tea.Msg
		toasts []string // IDs toasted
		notes  []string
		check  func(t *testing.T, v *Model)
	}{
		{name: "a live check ticks", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			x.pass("authz-bob-cm")
			return drive(t, v, v.loader.load(x, false))
		}, toasts: []string{"authz-bob-cm"}},
		{name: "two tick at once", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			x.pass("authz-bob-cm")
			x.pass("authn-which")
			return drive(t, v, v.loader.load(x, false))
		}, toasts: []string{"authn-which", "authz-bob-cm"}},
		{name: "an answer typed here does not toast", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			selectEx(t, v, "authz-who")
			keys(t, v, "a", "developers")
			cmd := v.Update(keyMsg("enter")) // the answer is on its way
			snap := drive(t, v, v.loader.load(x, false))
			return append(snap, run(t, v, cmd)...)
		}, notes: []string{tr.NoteExRight}},
		{name: "a stale snapshot is ignored", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			old := v.loader.load(x, false)
			x.pass("authz-bob-cm")
			out := drive(t, v, v.loader.load(x, false))
			return append(out, drive(t, v, old)...)
		}, toasts: []string{"authz-bob-cm"}, check: func(t *testing.T, v *Model) {
			if d, _ := v.Done(); d != 2 {
				t.Errorf("%d done after a stale snapshot, want 2", d)
			}
		}},
		{name: "a failed hint says why", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			x.fail = errors.New("the progress file\nis read-only")
			return keys(t, v, "h")
		}, notes: []string{fmt.Sprintf(tr.NoteExHintFailed, "the progress file is read-only")}},
		{name: "a failed answer says why", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			selectEx(t, v, "authn-which")
			x.fail = errors.New("gone")
			return keys(t, v, "2")
		}, notes: []string{fmt.Sprintf(tr.NoteExAnswerFailed, "gone")}},
		{name: "zoom", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			return nil
		}, check: func(t *testing.T, v *Model) {
			for _, k := range v.Keys() {
				if k.Help().Key == "z" {
					t.Errorf("the view names z itself (%q); the root adds it for a view.Zoomer", k.Help().Desc)
				}
			}
			if lines := v.ZoomView(120, 40); !strings.Contains(lines[0], tr.PaneExercises) || strings.Contains(strings.Join(lines, ""), tr.PaneExercise+" · ") {
				t.Errorf("zoomed on the list, the detail shows:\n%s", strings.Join(lines, "\n"))
			}
			if lines := v.View(120, 40); !strings.Contains(lines[0], tr.PaneExercise+" · ") {
				t.Errorf("unzoomed, no detail:\n%s", strings.Join(lines, "\n"))
			}
		}},
		{name: "the walkthrough moves on", run: func(t *testing.T, v *Model, x *fake) []tea.Msg {
			keys(t, v, "down")
			v.env.Where = at("02-authn", "authn")
			return drive(t, v, v.loader.load(x, false))
		}, check: func(t *testing.T, v *Model) {
			if e, _ := v.Selected(); e.ID != "authn-401" {
				t.Errorf("selected %s, want the new lesson's first", e.ID)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newFake(i18n.English)
			v := loaded(t, i18n.English, x, 120, 40)
			got := tt.run(t, v, x)
			var ids []string
			for _, m := range got {
				if ts, ok := m.(ToastMsg); ok {
					for _, t := range ts {
						ids = append(ids, t.ID)
					}
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(tt.toasts) {
				t.Errorf("toasted %v, want %v", ids, tt.toasts)
			}
			if n := notes(got); fmt.Sprint(n) != fmt.Sprint(tt.notes) {
				t.Errorf("notes %q, want %q", n, tt.notes)
			}
			if tt.check != nil {
				tt.check(t, v)
			}
		})
	}
}

// TestMouse: a click focuses the pane under it, the wheel scrolls it (relative to the view's
// corner), in both layouts.
func TestMouse(t *testing.T) {
	press := func(b tea.MouseButton, x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Button: b, Action: tea.MouseActionPress}
	}
	tests := []struct {
		w, h  int
		msg   tea.MouseMsg
		focus int
		sel   string
	}{
		{120, 40, press(tea.MouseButtonLeft, 100, 5), 1, "authz-bob-cm"},
		{120, 40, press(tea.MouseButtonLeft, 10, 5), 0, "authz-bob-cm"},
		{120, 40, press(tea.MouseButtonWheelDown, 10, 5), 0, "authn-which"}, // three exercises on
		{80, 24, press(tea.MouseButtonLeft, 10, 20), 1, "authz-bob-cm"},
		{80, 24, press(tea.MouseButtonWheelDown, 10, 2), 0, "authn-which"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d/%v@%d,%d", tt.w, tt.h, tt.msg.Button, tt.msg.X, tt.msg.Y), func(t *testing.T) {
			v := loaded(t, i18n.English, newFake(i18n.English), tt.w, tt.h)
			drive(t, v, tt.msg)
			if e, _ := v.Selected(); v.focus != tt.focus || e.ID != tt.sel {
				t.Errorf("focus %d on %s, want %d on %s", v.focus, e.ID, tt.focus, tt.sel)
			}
		})
	}
	// The wheel over the detail scrolls it (a short view, so that the hints do not fit).
	v := loaded(t, i18n.English, newFake(i18n.English), 80, 16)
	keys(t, v, "tab", "h", "h", "h", "g")
	if n := len(v.detail.Lines()); n < v.detail.Visible()+common.WheelStep {
		t.Fatalf("%d lines in a detail of %d", n, v.detail.Visible())
	}
	drive(t, v, press(tea.MouseButtonWheelDown, 10, 12))
	if v.detail.Offset() != common.WheelStep {
		t.Errorf("detail at %d after the wheel, want %d", v.detail.Offset(), common.WheelStep)
	}
}

// TestToastBox: the toast lists the last two exercises that ticked with why, counts the rest,
// and fits any width.
func TestToastBox(t *testing.T) {
	for _, lang := range i18n.Languages() {
		tr := i18n.For(lang)
		x := newFake(lang)
		var ts []Toast
		for _, id := range []string{"authn-which", "authz-bob-cm", "authz-who"} {
			e, _ := x.find(id)
			ts = append(ts, Toast{ID: id, Title: e.Title, Why: x.whys[id]})
		}
		for _, w := range []int{80, 120, 40} {
			box := ToastBox(common.DefaultStyles(), tr, ts, w)
			all := strings.Join(box, "\n")
			for _, want := range []string{fmt.Sprintf(tr.ToastMore, 1), ts[2].Title[:4]} {
				if !strings.Contains(all, want) {
					t.Errorf("%s/%d: toast has no %q:\n%s", lang, w, want, all)
				}
			}
			if strings.Contains(all, ts[0].Title) {
				t.Errorf("%s/%d: the oldest toast shows:\n%s", lang, w, all)
			}
			for i, l := range box {
				if lw := lipgloss.Width(l); lw != min(w, 64) {
					t.Errorf("%s/%d: line %d is %d cells", lang, w, i, lw)
				}
			}
		}
		if ToastBox(common.DefaultStyles(), tr, nil, 80) != nil {
			t.Error("a toast of nothing")
		}
	}
}

// TestWaiter: Init reads the exercises and waits for changes; a change is read again and
// re-arms the waiter, which ends when the root stops the views.
func TestWaiter(t *testing.T) {
	x := newFake(i18n.English)
	stop := make(chan struct{})
	tr := i18n.For(i18n.English)
	v := New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, x,
		Env{Where: at("03-authz", "authz"), Stop: stop})
	batch, ok := v.Init()().(tea.BatchMsg)
	if !ok || len(batch) != 2 || !v.Watching() {
		t.Fatalf("Init: %T, watching %v", batch, v.Watching())
	}
	first := batch[0]()
	if out := drive(t, v, first); count[ChangedMsg](out) != 1 || !v.Loaded() {
		t.Fatalf("first snapshot: %v, loaded %v", out, v.Loaded())
	}
	got := make(chan tea.Msg, 1)
	go func() { got <- batch[1]() }()
	x.pass("authz-bob-cm")
	var snap tea.Msg
	select {
	case snap = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not read the change")
	}
	cmd := v.Update(snap)
	next, ok := cmd().(tea.BatchMsg)
	if !ok {
		t.Fatalf("a change: %T", cmd())
	}
	var toasts, rearmed int
	ended := make(chan tea.Msg, len(next))
	for _, c := range next {
		go func() { ended <- c() }()
	}
	close(stop)
	for range next {
		select {
		case m := <-ended:
			switch m.(type) {
			case ToastMsg:
				toasts++
			case nil:
				rearmed++ // the new waiter, ended by stop
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a command did not return after stop")
		}
	}
	if toasts != 1 || rearmed != 1 {
		t.Errorf("after a change: %d toasts, %d waiters ended; want 1 and 1", toasts, rearmed)
	}
}

// TestKeysAndTitle: the help bar names the keys that act on the selected exercise, and the
// answer line's while it is open, in the learner's language.
func TestKeysAndTitle(t *testing.T) {
	for _, lang := range i18n.Languages() {
		tr := i18n.For(lang)
		v := loaded(t, lang, newFake(lang), 80, 24)
		if name, hint := v.Title(); name != tr.ViewExercisesTitle || hint != tr.ViewGlossaryHint {
			t.Errorf("%s: title %q, %q", lang, name, hint)
		}
		help := func() string {
			var out []string
			for _, k := range v.Keys() {
				out = append(out, k.Help().Key+" "+k.Help().Desc)
			}
			return strings.Join(out, "|")
		}
		for _, tt := range []struct {
			ex   string
			keys []string
			want []string
		}{
			{"authz-bob-cm", nil, []string{"h " + tr.KeyHint, "↑/↓ " + tr.BarSelect, "tab " + tr.KeyFocusNext}},
			{"authz-who", nil, []string{"h " + tr.KeyHint, "a " + tr.KeyAnswer, "↑/↓ " + tr.BarSelect, "tab " + tr.KeyFocusNext}},
			{"authn-which", nil, []string{"h " + tr.KeyHint, "1-9 " + tr.KeyChoose, "↑/↓ " + tr.BarSelect, "tab " + tr.KeyFocusNext}},
			{"authz-who", []string{"a"}, []string{"enter " + tr.KeyAnswer, "esc " + tr.BarCancel}},
		} {
			selectEx(t, v, tt.ex)
			keys(t, v, tt.keys...)
			if got := help(); got != strings.Join(tt.want, "|") {
				t.Errorf("%s %s %v: keys %q, want %q", lang, tt.ex, tt.keys, got, strings.Join(tt.want, "|"))
			}
			keys(t, v, "esc")
		}
	}
}

// TestOrder: the lesson of the step on screen comes first (LessonContent's step IDs start
// with the lesson ID), else the lessons of its phase, else lesson order; a new current lesson
// selects its first exercise. (It was runtime/tui's TestExercisesOrder.)
func TestOrder(t *testing.T) {
	ex := func(id, lesson, phase string) Exercise {
		return Exercise{ID: id, Lesson: lesson, Phase: phase, LessonTitle: lesson}
	}
	all := []Exercise{ex("a1", "02-authn", "authn"), ex("z1", "03-authz", "authz"), ex("z2", "03-authz", "authz"),
		ex("s1", "07-serve", "serve"), ex("w1", "21-watch", "serve")}
	tests := []struct {
		lesson, phase string
		want          string
		current       string // the headings marked current
	}{
		{"", "config", "[a1 z1 z2 s1 w1]", ""},
		{"03-authz", "authz", "[z1 z2 a1 s1 w1]", "03-authz"},
		{"21-watch", "serve", "[w1 a1 z1 z2 s1]", "21-watch"},
		{"serve", "serve", "[s1 w1 a1 z1 z2]", "07-serve 21-watch"}, // no lesson by that ID: its phase's
	}
	for _, tt := range tests {
		t.Run(tt.lesson+"/"+tt.phase, func(t *testing.T) {
			v := newView(i18n.English, nil, nil)
			v.View(80, 25) // a list of 10 lines
			v.take(loadedMsg{seq: 1, list: all})
			v.Move(2)
			v.SetCurrent(tt.lesson, tt.phase)
			got := v.Order()
			if fmt.Sprint(got) != tt.want {
				t.Errorf("order %v, want %s", got, tt.want)
			}
			if tt.current != "" && v.sel != got[0] {
				t.Errorf("selected %s, want the current lesson's first, %s", v.sel, got[0])
			}
			var curs []string
			for _, r := range v.rows {
				if r.current {
					curs = append(curs, r.heading)
				}
			}
			if cur := strings.Join(curs, " "); cur != tt.current {
				t.Errorf("current heading %q, want %q", cur, tt.current)
			}
		})
	}
	// A stale snapshot does not replace a newer one.
	v := newView(i18n.English, nil, nil)
	v.take(loadedMsg{seq: 2, list: all[:2]})
	v.take(loadedMsg{seq: 1, list: all})
	if len(v.All()) != 2 {
		t.Errorf("a stale snapshot replaced the list: %d exercises", len(v.All()))
	}
}
