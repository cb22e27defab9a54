package etcd

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// sampleKeys are the keys of a small served cluster.
var sampleKeys = []string{"/registry/configmaps/default/demo", "/registry/configmaps/default/kube-root-ca.crt",
	"/registry/configmaps/kube-system/extension-apiserver-authentication", "/registry/namespaces/default",
	"/registry/namespaces/kube-system", "/registry/clusterroles/admin"}

const demo = "/registry/configmaps/default/demo"

func newCommon(lang string) common.Common {
	tr := i18n.For(lang)
	return common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// driver runs the view as bubbletea would: each command in a goroutine, its message back
// through Update. The watch's waiter is a command that returns only with the next change:
// settle waits for every other command.
type driver struct {
	t        *testing.T
	v        *Model
	b        *fakeBrowser
	msgs     chan tea.Msg
	inflight atomic.Int64
	notes    []string
	w, h     int
}

func newDriver(t *testing.T, lang string, b *fakeBrowser, w, h int) *driver {
	t.Helper()
	var br Browser
	if b != nil {
		br = b // a nil *fakeBrowser would be a non-nil Browser
	}
	d := &driver{t: t, b: b, msgs: make(chan tea.Msg, 256), w: w, h: h}
	d.v = New(newCommon(lang), br, t.Context())
	d.run(d.v.Init())
	d.frame()
	return d
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	d.inflight.Add(1)
	go func() {
		defer d.inflight.Add(-1)
		if msg := cmd(); msg != nil {
			d.msgs <- msg
		}
	}()
}

// send hands msg to the view (a batch's commands are run) and draws a frame.
func (d *driver) send(msg tea.Msg) {
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			d.run(c)
		}
		return
	case view.NoteMsg:
		d.notes = append(d.notes, string(msg))
		return
	}
	d.run(d.v.Update(msg))
	d.frame()
}

// settle delivers messages until nothing but the watch's waiter runs.
func (d *driver) settle() {
	d.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case msg := <-d.msgs:
			d.send(msg)
			continue
		case <-deadline:
			d.t.Fatalf("the view did not settle: %d commands running", d.inflight.Load())
		case <-time.After(time.Millisecond):
		}
		idle := int64(0)
		if d.v.WatchArmed() {
			idle = 1
		}
		if d.inflight.Load() <= idle && len(d.msgs) == 0 {
			return
		}
	}
}

// do sends each message (a key by name, or a message) and settles after each.
func (d *driver) do(msgs ...any) {
	d.t.Helper()
	for _, m := range msgs {
		if s, ok := m.(string); ok {
			m = keyMsg(s)
		}
		d.send(m.(tea.Msg))
		d.settle()
	}
}

// frame draws the view and checks it is exactly w×h cells.
func (d *driver) frame() string {
	d.t.Helper()
	lines := d.v.View(d.w, d.h)
	checkSize(d.t, lines, d.w, d.h)
	return ansi.Strip(strings.Join(lines, "\n"))
}

func checkSize(t *testing.T, lines []string, w, h int) {
	t.Helper()
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, lw, w, l)
		}
	}
}

// until delivers messages until cond holds, failing after a bound.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(30 * time.Second)
	for !cond() {
		select {
		case msg := <-d.msgs:
			d.send(msg)
		case <-deadline:
			d.t.Fatalf("waited in vain for %s", what)
		}
	}
}

func (d *driver) must(subs ...string) {
	d.t.Helper()
	f := d.frame()
	for _, s := range subs {
		if !strings.Contains(f, s) {
			d.t.Errorf("the frame lacks %q:\n%s", s, f)
		}
	}
}

// opened is a driver whose view has been opened (:etcd) and has listed sampleKeys.
func opened(t *testing.T, lang string, w, h int) *driver {
	t.Helper()
	d := newDriver(t, lang, newFake(sampleKeys...), w, h)
	d.do(OpenKeyMsg{})
	return d
}

// TestGolden: the view at 80×24 and 120×40, in English and Chinese, with NO_COLOR; every
// frame exactly w×h. -update rewrites the files.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		b    func() *fakeBrowser
		msgs []any
		zoom bool
	}{
		{"tree", func() *fakeBrowser { return newFake(sampleKeys...) }, []any{OpenKeyMsg{}, "down", "enter", "down", "right", "down"}, false},
		{"value_zoomed", func() *fakeBrowser { return newFake(sampleKeys...) }, []any{OpenKeyMsg{Key: demo}, "tab"}, true},
		{"not_wired", func() *fakeBrowser { return nil }, []any{OpenKeyMsg{}}, false},
		{"not_ready", func() *fakeBrowser {
			b := newFake(sampleKeys...)
			b.listErrs = []error{fmt.Errorf("list: %w", server.ErrEtcdNotReady)}
			return b
		}, []any{OpenKeyMsg{}}, false},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					d := newDriver(t, lang, tt.b(), sz.w, sz.h)
					d.do(tt.msgs...)
					lines := d.v.View(sz.w, sz.h)
					if tt.zoom {
						lines = d.v.ZoomView(sz.w, sz.h)
					}
					checkSize(t, lines, sz.w, sz.h)
					frame := strings.Join(lines, "\n")
					if strings.Contains(frame, "\x1b[") {
						t.Error("NO_COLOR frame has escape sequences")
					}
					golden.RequireEqual(t, []byte(frame))
				})
			}
		}
	}
}

// TestKeys: what each key does in the tree and in the value pane.
func TestKeys(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		check func(t *testing.T, d *driver)
	}{
		{"enter opens a resource", []string{"down", "enter"}, func(t *testing.T, d *driver) {
			d.must("▾ configmaps (3)", "▸ default (2)", "▸ kube-system (1)")
		}},
		{"space opens a resource", []string{"down", "space"}, func(t *testing.T, d *driver) {
			d.must("▾ configmaps (3)")
		}},
		{"enter again closes it", []string{"down", "enter", "enter"}, func(t *testing.T, d *driver) {
			d.must("▸ configmaps (3)", "▸ namespaces (2)")
		}},
		{"right opens, down onto a key decodes it", []string{"down", "right", "down", "right", "down"}, func(t *testing.T, d *driver) {
			if got := d.v.CursorKey(); got != demo {
				t.Errorf("cursor on %q", got)
			}
			if v, ok := d.v.Decoded(); !ok || v.Key != demo || d.v.Selected() != demo {
				t.Errorf("value %v (%v), selected %q", v, ok, d.v.Selected())
			}
			d.must("Value · demo", "kind: configmap", "namespace: default", "bytes, protobuf")
		}},
		{"l opens like right", []string{"down", "l"}, func(t *testing.T, d *driver) { d.must("▾ configmaps (3)") }},
		{"left on a key goes to its namespace", []string{"down", "right", "down", "right", "down", "left"}, func(t *testing.T, d *driver) {
			if got := d.v.CursorKey(); got != "" {
				t.Errorf("cursor on key %q, want the namespace row", got)
			}
			d.must("›  ▾ default (2)")
		}},
		{"h closes the namespace", []string{"down", "right", "down", "right", "h"}, func(t *testing.T, d *driver) {
			d.must("▸ default (2)")
		}},
		{"G to the end, g to the top", []string{"G", "g"}, func(t *testing.T, d *driver) { d.must("›▸ clusterroles (1)") }},
		{"tab moves to the value pane: down scrolls it, not the cursor", []string{"down", "tab", "down"}, func(t *testing.T, d *driver) {
			if d.v.focus != 1 || d.v.cursor != 1 {
				t.Errorf("focus %d, cursor %d; want 1, 1", d.v.focus, d.v.cursor)
			}
		}},
		{"tab twice is back in the tree", []string{"tab", "tab", "down"}, func(t *testing.T, d *driver) {
			if d.v.focus != 0 || d.v.cursor != 1 {
				t.Errorf("focus %d, cursor %d; want 0, 1", d.v.focus, d.v.cursor)
			}
		}},
		{"a key not the view's does nothing", []string{"x", "esc"}, func(t *testing.T, d *driver) {
			if d.v.cursor != 0 || d.v.focus != 0 || d.v.Selected() != "" {
				t.Errorf("cursor %d, focus %d, selected %q", d.v.cursor, d.v.focus, d.v.Selected())
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := opened(t, i18n.English, 120, 40)
			for _, k := range tt.keys {
				d.do(k)
			}
			tt.check(t, d)
		})
	}
}

// TestValueScrolls: in the value pane the scroll keys scroll the value (a long one), in the
// tree they move the cursor.
func TestValueScrolls(t *testing.T) {
	d := newDriver(t, i18n.English, newFake(sampleKeys...), 80, 24)
	d.b.dataLines = 40
	d.do(OpenKeyMsg{Key: demo}, "tab")
	before := d.v.valuePane.Offset()
	d.do("down")
	if d.v.valuePane.Offset() != before+1 {
		t.Errorf("offset %d after down, want %d", d.v.valuePane.Offset(), before+1)
	}
	d.do("g")
	if d.v.valuePane.Offset() != 0 || d.v.CursorKey() != demo {
		t.Errorf("offset %d, cursor %q after g", d.v.valuePane.Offset(), d.v.CursorKey())
	}
}

// TestMessages: what the view does with OpenKeyMsg, view.ServerMsg and the watch.
func TestMessages(t *testing.T) {
	tests := []struct {
		name  string
		b     func() *fakeBrowser
		msgs  []any
		check func(t *testing.T, d *driver)
	}{
		{"open lists once and watches", func() *fakeBrowser { return newFake(sampleKeys...) }, []any{OpenKeyMsg{}, OpenKeyMsg{}}, func(t *testing.T, d *driver) {
			if lists, _ := d.b.counts(); lists != 1 || d.v.Listed() != 6 || !d.v.WatchArmed() {
				t.Errorf("%d lists, %d keys, watch armed %v", lists, d.v.Listed(), d.v.WatchArmed())
			}
			if _, hint := d.v.Title(); hint != d.v.c.Tr.ViewEtcdLive {
				t.Errorf("title hint %q, want live", hint)
			}
			d.must("etcd /registry/ · 6 keys")
		}},
		{"open a key before the listing", func() *fakeBrowser { return newFake(sampleKeys...) }, []any{OpenKeyMsg{Key: demo}}, func(t *testing.T, d *driver) {
			if d.v.CursorKey() != demo || d.v.Wanted() != "" || d.v.Selected() != demo {
				t.Errorf("cursor %q, wanted %q, selected %q", d.v.CursorKey(), d.v.Wanted(), d.v.Selected())
			}
		}},
		{"open a key pages further on", func() *fakeBrowser {
			keys := []string{"/registry/configmaps/zzz/last"}
			for i := range 1200 {
				keys = append(keys, fmt.Sprintf("/registry/configmaps/aaa/cm-%04d", i))
			}
			return newFake(keys...)
		}, []any{OpenKeyMsg{Key: "/registry/configmaps/zzz/last"}}, func(t *testing.T, d *driver) {
			if lists, _ := d.b.counts(); lists != 3 || d.v.CursorKey() != "/registry/configmaps/zzz/last" || d.v.Wanted() != "" {
				t.Errorf("%d lists, cursor %q, wanted %q", lists, d.v.CursorKey(), d.v.Wanted())
			}
		}},
		{"open a key that is not there", func() *fakeBrowser { return newFake(sampleKeys...) },
			[]any{OpenKeyMsg{}, OpenKeyMsg{Key: "/registry/configmaps/default/gone"}}, func(t *testing.T, d *driver) {
				if len(d.notes) != 1 || d.notes[0] != d.v.c.Tr.NoteKeyNotListed {
					t.Errorf("notes %q", d.notes)
				}
				d.must("not found")
			}},
		{"not wired: a key says so, :etcd does not", func() *fakeBrowser { return nil },
			[]any{OpenKeyMsg{}, OpenKeyMsg{Key: demo}}, func(t *testing.T, d *driver) {
				if len(d.notes) != 1 || d.notes[0] != d.v.c.Tr.NoteEtcdNotWired {
					t.Errorf("notes %q", d.notes)
				}
				d.must("not wired")
			}},
		{"not ready: asked again at the next stop", func() *fakeBrowser {
			b := newFake(sampleKeys...)
			b.listErrs = []error{fmt.Errorf("list: %w", server.ErrEtcdNotReady)}
			return b
		}, []any{OpenKeyMsg{}, view.ServerMsg{Paused: true}}, func(t *testing.T, d *driver) {
			if lists, _ := d.b.counts(); lists != 2 || d.v.Listed() != 6 {
				t.Errorf("%d lists, %d keys", lists, d.v.Listed())
			}
		}},
		{"a stop once listed reads nothing", func() *fakeBrowser { return newFake(sampleKeys...) },
			[]any{OpenKeyMsg{}, view.ServerMsg{Paused: true}, view.ServerMsg{Served: true}}, func(t *testing.T, d *driver) {
				if lists, _ := d.b.counts(); lists != 1 {
					t.Errorf("%d lists", lists)
				}
			}},
		{"a stop before the view was opened reads nothing", func() *fakeBrowser { return newFake(sampleKeys...) },
			[]any{view.ServerMsg{Paused: true}}, func(t *testing.T, d *driver) {
				if lists, _ := d.b.counts(); lists != 0 {
					t.Errorf("%d lists", lists)
				}
			}},
		{"a page that failed: enter on the more row reads it again", func() *fakeBrowser {
			var keys []string
			for i := range 700 {
				keys = append(keys, fmt.Sprintf("/registry/configmaps/ns/cm-%04d", i))
			}
			b := newFake(keys...)
			b.listErrs = []error{nil, errors.New("boom")}
			return b
		}, []any{OpenKeyMsg{}, "G"}, func(t *testing.T, d *driver) {
			d.must("boom")
			d.do("enter")
			if lists, _ := d.b.counts(); lists != 3 || d.v.Listed() != 700 {
				t.Errorf("%d lists, %d keys", lists, d.v.Listed())
			}
		}},
		{"a page read twice is taken once", func() *fakeBrowser { return newFake(sampleKeys...) },
			[]any{OpenKeyMsg{}, pageMsg{after: "/registry/configmaps/x", page: Page{Keys: []Key{{Key: "/registry/pods/default/p", ModRevision: 99}}}}}, func(t *testing.T, d *driver) {
				if d.v.Listed() != 6 {
					t.Errorf("%d keys", d.v.Listed())
				}
			}},
		{"an older value is not shown over a newer one", func() *fakeBrowser { return newFake(sampleKeys...) },
			[]any{OpenKeyMsg{Key: demo}, valueMsg{key: demo, val: Value{EtcdKey: Key{Key: demo, ModRevision: 0}, YAML: "old: yes"}}}, func(t *testing.T, d *driver) {
				if v, _ := d.v.Decoded(); strings.Contains(v.YAML, "old") {
					t.Errorf("the older value is shown: %q", v.YAML)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDriver(t, i18n.English, tt.b(), 120, 40)
			d.do(tt.msgs...)
			tt.check(t, d)
		})
	}
}

// TestWatch: the watch marks new and changed keys, decodes the shown key again, says when it
// was deleted, and the title stops saying live when the watch ends.
func TestWatch(t *testing.T) {
	d := opened(t, i18n.English, 120, 40)
	d.do(OpenKeyMsg{Key: demo})
	d.b.put("/registry/configmaps/default/new-one")
	d.until("the new key", func() bool { return d.v.Listed() == 7 })
	d.settle()
	d.must("+    new-one")
	d.b.put(demo)
	d.until("the new revision", func() bool { v, ok := d.v.Decoded(); return ok && v.Version == 2 })
	d.settle()
	d.must("~    demo", "version 2")
	d.b.del(demo)
	d.until("the deletion", func() bool { return d.v.Listed() == 6 })
	d.settle()
	d.must("deleted")
	d.b.closeWatches()
	d.until("the watch's end", func() bool { return !d.v.WatchArmed() })
	if _, hint := d.v.Title(); hint != "" {
		t.Errorf("title hint %q after the watch ended", hint)
	}
}

// TestMouse: a click focuses the pane under it, the wheel moves the cursor in the tree and
// scrolls the value pane; zoomed, the wheel works on the zoomed pane.
func TestMouse(t *testing.T) {
	wheel := func(b tea.MouseButton, x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Button: b, Action: tea.MouseActionPress}
	}
	tests := []struct {
		name        string
		w, h        int
		zoom        bool
		msgs        []tea.MouseMsg
		focus       int
		cursor, off int
	}{
		{"click the value (side by side)", 120, 40, false, []tea.MouseMsg{wheel(tea.MouseButtonLeft, 100, 5)}, 1, 3, 0},
		{"click the value (stacked)", 80, 24, false, []tea.MouseMsg{wheel(tea.MouseButtonLeft, 5, 20)}, 1, 3, 0},
		{"wheel in the tree", 120, 40, false, []tea.MouseMsg{wheel(tea.MouseButtonWheelDown, 5, 5)}, 0, 6, 0},
		{"wheel in the value", 80, 24, false, []tea.MouseMsg{wheel(tea.MouseButtonWheelDown, 5, 20)}, 1, 3, 3},
		{"zoomed on the tree: the wheel anywhere moves it", 80, 24, true, []tea.MouseMsg{wheel(tea.MouseButtonWheelUp, 5, 20)}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDriver(t, i18n.English, newFake(sampleKeys...), tt.w, tt.h)
			d.b.dataLines = 40
			d.do(OpenKeyMsg{}, OpenKeyMsg{Key: demo})
			if tt.zoom {
				d.v.ZoomView(tt.w, tt.h)
			}
			for _, m := range tt.msgs {
				d.do(m)
			}
			if d.v.focus != tt.focus || d.v.cursor != tt.cursor || d.v.valuePane.Offset() != tt.off {
				t.Errorf("focus %d, cursor %d, value offset %d; want %d, %d, %d", d.v.focus, d.v.cursor, d.v.valuePane.Offset(), tt.focus, tt.cursor, tt.off)
			}
		})
	}
}

// TestKeysAndTitle: the help bar and the header, in the learner's language.
func TestKeysAndTitle(t *testing.T) {
	for _, lang := range i18n.Languages() {
		tr := i18n.For(lang)
		v := New(newCommon(lang), nil, t.Context())
		name, hint := v.Title()
		if name != fmt.Sprintf(tr.ViewEtcdTitle, Prefix) || hint != "" {
			t.Errorf("%s: title %q, %q", lang, name, hint)
		}
		var help []string
		for _, k := range v.Keys() {
			help = append(help, k.Help().Key+" "+k.Help().Desc)
		}
		want := []string{"↑/↓ " + tr.BarMove, "enter " + tr.BarOpenClose, "tab " + tr.KeyFocusNext}
		if strings.Join(help, "|") != strings.Join(want, "|") {
			t.Errorf("%s: keys %q, want %q", lang, help, want)
		}
	}
}

// TestSplitKey: resources with a group, namespaced and cluster-scoped keys.
func TestSplitKey(t *testing.T) {
	for _, tt := range []struct{ key, res, ns, name string }{
		{"/registry/configmaps/default/demo", "configmaps", "default", "demo"},
		{"/registry/namespaces/default", "namespaces", "", "default"},
		{"/registry/apiregistration.k8s.io/apiservices/v1.apps", "apiregistration.k8s.io/apiservices", "", "v1.apps"},
		{"/registry/events.k8s.io/events/default/e1", "events.k8s.io/events", "default", "e1"},
		{"/registry/ranges", "ranges", "", ""},
	} {
		res, ns, name := SplitKey(tt.key)
		if res != tt.res || ns != tt.ns || name != tt.name {
			t.Errorf("SplitKey(%q) = %q, %q, %q; want %q, %q, %q", tt.key, res, ns, name, tt.res, tt.ns, tt.name)
		}
	}
}
