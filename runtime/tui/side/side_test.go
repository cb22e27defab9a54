package side

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// code is the fake server file both sides point into: a function (lines 3-6), a long line, and
// filler below to scroll.
var code = func() string {
	var b strings.Builder
	b.WriteString("package server\n\n")
	b.WriteString("// buildStorage makes the registry's storage for every resource.\n")
	b.WriteString("func (s *Server) buildStorage() error {\n")
	b.WriteString("\tcfg := s.storageConfig()\n")
	b.WriteString("\treturn s.registry.Build(cfg, \"a very long argument that does not fit in half of a narrow screen\")\n")
	b.WriteString("}\n\n")
	for i := range 80 {
		fmt.Fprintf(&b, "// filler %d: more source below the function, so the sides scroll.\n", i)
	}
	return b.String()
}()

// fakeContent resolves ours for "(*Server).buildStorage", kube-apiserver's for "kube F" only
// (any other kube: location's module is missing), and says whether upstream is missing.
type fakeContent struct{ upMissing *source.MissingModuleError }

func (fakeContent) Local(anchor, focus string) (source.Location, error) {
	if anchor != "(*Server).buildStorage" {
		return source.Location{}, fmt.Errorf("no anchor %q", anchor)
	}
	return source.Location{File: "server/storage.go", StartLine: 4, EndLine: 7, FocusStart: 5, FocusEnd: 6, Source: []byte(code)}, nil
}

func (fakeContent) Upstream(string) (source.Location, error) {
	return source.Location{}, &source.MissingModuleError{Module: "k8s.io/apiserver", Version: "v0.37.2", Err: errors.New("not found")}
}

func (fakeContent) Kube(where string) (source.Location, error) {
	if where == "kube F" {
		return source.Location{File: "/go/pkg/mod/k8s.io/kubernetes@v1.37.2/cmd/kube-apiserver/app/server.go",
			StartLine: 4, EndLine: 7, FocusStart: 4, FocusEnd: 4, Source: []byte(code)}, nil
	}
	return source.Location{}, &source.MissingModuleError{Module: lessons.KubeModule, Version: "v1.37.2", Err: errors.New("not found")}
}

func (c fakeContent) UpstreamMissing() *source.MissingModuleError { return c.upMissing }

var (
	found   = source.Code{Title: "Storage is built", Anchor: "(*Server).buildStorage", Focus: "cfg", Upstream: "k8s.io/apiserver/pkg/x.F", Kube: "kube F"}
	missing = source.Code{Title: "Storage is built", Anchor: "(*Server).buildStorage", Focus: "cfg", Kube: "kube G"}
	cp      = server.Checkpoint{Phase: "storage", Name: "built", Title: "Storage is built"}
)

// fixture is the view over a walkthrough pane, as the root makes it.
type fixture struct {
	s   *Model
	src *source.Pane
}

func newFixture(lang string, fetch *source.Fetches, content fakeContent) fixture {
	tr := i18n.For(lang)
	if fetch == nil {
		fetch = source.NewFetches(tr, false, nil)
	}
	c := common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}
	src := source.New(common.Common{Styles: c.Styles, Tr: tr}, content, source.Options{Fetches: fetch})
	keys := Keys{
		FocusNext: key.NewBinding(key.WithKeys("tab")), FocusPrev: key.NewBinding(key.WithKeys("shift+tab")),
		Wrap: key.NewBinding(key.WithKeys("w")), Fetch: key.NewBinding(key.WithKeys("F"), key.WithHelp("F", tr.KeyFetch)),
	}
	return fixture{s: New(context.Background(), c, keys, content, src, fetch), src: src}
}

// run runs cmd as bubbletea would, synchronously, and hands both panes what it sends.
func (f fixture) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			f.run(c)
		}
	case nil:
	default:
		f.run(f.src.Update(msg))
		c, _ := f.s.Update(msg)
		f.run(c)
	}
}

// show gives both sides the step, as the root does, and opens the view at w×h.
func (f fixture) show(t *testing.T, step source.Code, w, h int) {
	t.Helper()
	f.s.SetSize(w, h)
	f.src.SetSize(w, h/2) // the walkthrough's layout, before the view opens
	f.run(f.src.SetStep(step, true, cp))
	f.run(f.s.SetStep(step, true, cp))
	cmd, note := f.s.Toggle()
	if note != "" || !f.s.Open() {
		t.Fatalf("Toggle: note %q, open %v", note, f.s.Open())
	}
	f.run(cmd)
	f.s.ApplyFocus()
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "end":
		return tea.KeyMsg{Type: tea.KeyEnd}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// check fails the test unless lines are h lines of w cells without escapes, and joins them.
func check(t *testing.T, lines []string, w, h int) string {
	t.Helper()
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := lipgloss.Width(l); got != w {
			t.Errorf("line %d is %d cells, want %d: %q", i, got, w, l)
		}
	}
	frame := strings.Join(lines, "\n")
	if strings.Contains(frame, "\x1b[") {
		t.Error("NO_COLOR frame has escape sequences")
	}
	return frame
}

// TestGolden: the view at 80×24 and 120×40, in English and Chinese, with NO_COLOR: both sides
// found (ours focused), the kube side focused and scrolled, kube-apiserver's module missing
// (with and without downloads), both sides wrapped, and the kube side zoomed. -update rewrites
// the files.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		step source.Code
		noDL bool
		keys []string
		zoom bool
	}{
		{name: "open", step: found},
		{name: "kube_focused", step: found, keys: []string{"tab", "down", "down"}},
		{name: "kube_missing", step: missing},
		{name: "kube_missing_nofetch", step: missing, noDL: true},
		{name: "wrap", step: found, keys: []string{"w"}},
		{name: "zoom_kube", step: found, keys: []string{"tab"}, zoom: true},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range cases {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					f := newFixture(lang, source.NewFetches(i18n.For(lang), tt.noDL, nil), fakeContent{})
					f.show(t, tt.step, sz.w, sz.h)
					for _, k := range tt.keys {
						if _, ok := f.s.Key(keyMsg(k)); !ok {
							t.Fatalf("key %q not handled", k)
						}
					}
					if f.src.Loading() || f.s.Kube().Loading() {
						t.Fatal("still loading after the commands ran")
					}
					lines := f.s.View()
					if tt.zoom {
						f.s.ZoomSize(sz.w, sz.h)
						lines = f.s.ZoomView()
					}
					golden.RequireEqual(t, []byte(check(t, lines, sz.w, sz.h)))
				})
			}
		}
	}
}

// TestKeys: which keys the view takes, and what they do to the focus and the focused side.
func TestKeys(t *testing.T) {
	for _, tt := range []struct {
		name       string
		keys       []string
		handled    bool
		focus      int
		srcOff     int // the left side's offset after, relative to before
		kubeScroll bool
		wrapped    bool
	}{
		{name: "tab", keys: []string{"tab"}, handled: true, focus: 1},
		{name: "tab twice", keys: []string{"tab", "tab"}, handled: true, focus: 0},
		{name: "down scrolls ours", keys: []string{"down"}, handled: true, srcOff: 1},
		{name: "down scrolls kube's", keys: []string{"tab", "pgdown"}, handled: true, focus: 1, kubeScroll: true},
		{name: "end scrolls kube's", keys: []string{"tab", "end"}, handled: true, focus: 1, kubeScroll: true},
		{name: "wrap wraps both", keys: []string{"w"}, handled: true, wrapped: true},
		{name: "other keys are the walkthrough's", keys: []string{"x"}, handled: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture("en", nil, fakeContent{})
			f.show(t, found, 120, 40)
			src0, kube0 := f.src.Offset(), f.s.Kube().Offset()
			var handled bool
			for _, k := range tt.keys {
				_, handled = f.s.Key(keyMsg(k))
			}
			if handled != tt.handled {
				t.Errorf("handled %v, want %v", handled, tt.handled)
			}
			if f.s.Focus() != tt.focus {
				t.Errorf("focus %d, want %d", f.s.Focus(), tt.focus)
			}
			if got := f.src.Offset() - src0; got != tt.srcOff {
				t.Errorf("our side moved %d, want %d", got, tt.srcOff)
			}
			if got := f.s.Kube().Offset() != kube0; got != tt.kubeScroll {
				t.Errorf("kube side scrolled %v, want %v", got, tt.kubeScroll)
			}
			if f.src.Wrapped() != tt.wrapped || f.s.Kube().Wrapped() != tt.wrapped {
				t.Errorf("wrapped %v/%v, want %v", f.src.Wrapped(), f.s.Kube().Wrapped(), tt.wrapped)
			}
		})
	}
}

// TestMouse: a click focuses the side it lands on; the wheel scrolls the focused side.
func TestMouse(t *testing.T) {
	for _, tt := range []struct {
		name       string
		msgs       []tea.MouseMsg
		focus      int
		kubeScroll bool
	}{
		{name: "click right", msgs: []tea.MouseMsg{{X: 60, Button: tea.MouseButtonLeft}}, focus: 1},
		{name: "click left", msgs: []tea.MouseMsg{{X: 60, Button: tea.MouseButtonLeft}, {X: 59, Button: tea.MouseButtonLeft}}, focus: 0},
		{name: "wheel on the right", msgs: []tea.MouseMsg{{X: 100, Button: tea.MouseButtonLeft}, {Button: tea.MouseButtonWheelDown}}, focus: 1, kubeScroll: true},
		{name: "wheel on the left", msgs: []tea.MouseMsg{{Button: tea.MouseButtonWheelDown}}, focus: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture("en", nil, fakeContent{})
			f.show(t, found, 120, 40)
			kube0 := f.s.Kube().Offset()
			for _, msg := range tt.msgs {
				f.s.Mouse(msg)
			}
			if f.s.Focus() != tt.focus {
				t.Errorf("focus %d, want %d", f.s.Focus(), tt.focus)
			}
			if got := f.s.Kube().Offset() != kube0; got != tt.kubeScroll {
				t.Errorf("kube side scrolled %v, want %v", got, tt.kubeScroll)
			}
		})
	}
}

// TestToggle: no step, no view (a note says why); opened, the kube pane resolves; closed, it
// keeps the step without resolving the next one until it opens again.
func TestToggle(t *testing.T) {
	tr := i18n.For("en")
	f := newFixture("en", nil, fakeContent{})
	f.s.SetSize(120, 40)
	if cmd, note := f.s.Toggle(); cmd != nil || note != tr.NoteSideNoStep || f.s.Open() {
		t.Fatalf("without a step: cmd %v note %q open %v", cmd != nil, note, f.s.Open())
	}
	f.show(t, found, 120, 40)
	if _, _, ok := f.s.Kube().Shown(); !ok {
		t.Fatal("the kube side shows nothing once open")
	}
	f.s.Key(keyMsg("tab"))
	if cmd, note := f.s.Toggle(); cmd != nil || note != "" || f.s.Open() || f.s.Focus() != 0 {
		t.Fatalf("closing: cmd %v note %q open %v focus %d", cmd != nil, note, f.s.Open(), f.s.Focus())
	}
	if cmd := f.s.SetStep(missing, true, cp); cmd != nil || f.s.Kube().Loading() {
		t.Error("a closed view resolved the next step")
	}
	if f.s.Missing() != nil {
		t.Error("a closed view says a module is missing")
	}
	cmd, _ := f.s.Toggle()
	f.run(cmd)
	if mm := f.s.Missing(); mm == nil || mm.Module != lessons.KubeModule {
		t.Errorf("reopened on a missing module: Missing %v", mm)
	}
}

// TestHelpKeysAndUpstream: F is offered only when a side lacks a module and downloads are on;
// Init's answer is what the welcome reads, and a download of that module clears it.
func TestHelpKeysAndUpstream(t *testing.T) {
	tr := i18n.For("en")
	names := func(bs []key.Binding) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Help().Key)
		}
		return out
	}
	for _, tt := range []struct {
		step source.Code
		off  bool
		want string
	}{
		{found, false, "s"},
		{missing, false, "s F"},
		{missing, true, "s"},
	} {
		f := newFixture("en", source.NewFetches(tr, tt.off, nil), fakeContent{})
		f.show(t, tt.step, 120, 40)
		if got := strings.Join(names(f.s.HelpKeys()), " "); got != tt.want {
			t.Errorf("%s off=%v: help keys %q, want %q", tt.step.Kube, tt.off, got, tt.want)
		}
	}

	up := &source.MissingModuleError{Module: "k8s.io/apiserver", Version: "v0.37.2"}
	fetched := make(chan struct{})
	fetch := source.NewFetches(tr, false, func(ctx context.Context, mod, ver string, progress func(int64)) (string, error) {
		close(fetched)
		return "/mod", nil
	})
	f := newFixture("en", fetch, fakeContent{upMissing: up})
	f.run(f.s.Init())
	if f.s.UpstreamMissing() != up {
		t.Fatalf("UpstreamMissing %v after Init, want %v", f.s.UpstreamMissing(), up)
	}
	f.show(t, found, 120, 40)
	f.run(f.src.ToggleUpstream()) // u: the walkthrough's side shows upstream, which is missing
	cmd, note := f.s.StartFetch()
	if cmd == nil || note != "" {
		t.Fatalf("StartFetch: cmd %v note %q", cmd != nil, note)
	}
	runDL := cmd().(tea.BatchMsg)[0] // the download; the progress waiter ends with it
	end := runDL()
	<-fetched
	c, note := f.s.Update(end)
	f.run(c)
	if want := fmt.Sprintf(tr.NoteFetched, up.Module, up.Version); note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	if f.s.UpstreamMissing() != nil {
		t.Errorf("UpstreamMissing %v after the download", f.s.UpstreamMissing())
	}
}
