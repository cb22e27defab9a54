package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

// storage is the fake server file the steps point into: a function of six lines (3-8), the
// step's focus on two of them (5-6), a long line, and lines below to scroll.
var storage = func() string {
	var b strings.Builder
	b.WriteString("package server\n\n")
	b.WriteString("// buildStorage makes the registry's storage for every resource.\n")
	b.WriteString("func (s *Server) buildStorage() error {\n")
	b.WriteString("\tcfg := s.storageConfig()\n")
	b.WriteString("\treturn s.registry.Build(cfg, \"a very long argument that does not fit in a narrow pane at all\")\n")
	b.WriteString("}\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "// filler %d: more source below the function, so the pane scrolls.\n", i)
	}
	return b.String()
}()

// fakeCode resolves the steps' code: ours in storage, upstream for "k8s.io/apiserver/pkg/x.F"
// only (any other symbol's module is missing), kube-apiserver's for "kube F" only.
type fakeCode struct{ src fstest.MapFS }

func (c fakeCode) Local(anchor, focus string) (Location, error) {
	if anchor != "(*Server).buildStorage" {
		return Location{}, fmt.Errorf("no anchor %q", anchor)
	}
	loc := Location{File: "server/storage.go", StartLine: 4, EndLine: 7, Source: []byte(storage)}
	if focus != "" {
		loc.FocusStart, loc.FocusEnd = 5, 6
	}
	return loc, nil
}

func (c fakeCode) Upstream(symbol string) (Location, error) {
	if symbol == "k8s.io/apiserver/pkg/x.F" {
		return Location{File: "/go/pkg/mod/k8s.io/apiserver@v0.37.2/pkg/x/x.go", StartLine: 4, EndLine: 7,
			FocusStart: 4, FocusEnd: 4, Source: []byte(storage)}, nil
	}
	return Location{}, &MissingModuleError{Module: "k8s.io/apiserver", Version: "v0.37.2", Err: errors.New("not found")}
}

func (c fakeCode) Kube(where string) (Location, error) {
	if where == "kube F" {
		return Location{File: "/go/pkg/mod/k8s.io/kubernetes@v1.37.2/cmd/kube-apiserver/app/server.go", StartLine: 4, EndLine: 7,
			FocusStart: 4, FocusEnd: 4, Source: []byte(storage)}, nil
	}
	return Location{}, &MissingModuleError{Module: lessons.KubeModule, Version: "v1.37.2", Err: errors.New("not found")}
}

func (c fakeCode) ServerSource() fs.FS { return c.src }

var (
	ours     = Code{Title: "Storage is built", Anchor: "(*Server).buildStorage", Focus: "cfg", Upstream: "k8s.io/apiserver/pkg/x.F", Kube: "kube F"}
	missing  = Code{Title: "Storage is built", Anchor: "(*Server).buildStorage", Focus: "cfg", Upstream: "k8s.io/apiserver/pkg/y.G", Kube: "kube G"}
	noAnchor = Code{Title: "Nothing to show"}
	cp       = server.Checkpoint{Phase: "storage", Name: "built", Title: "Storage is built"}
)

func newCode() fakeCode {
	return fakeCode{src: fstest.MapFS{
		"storage.go": {Data: []byte(storage)},
		"other.go":   {Data: []byte("package server\n\n// Storage is mentioned here too.\nvar storageNote = 1\n")},
	}}
}

func newPane(lang string, opts Options) *Pane {
	tr := i18n.For(lang)
	return New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)}, newCode(), opts)
}

// run runs cmd as bubbletea would, synchronously, and hands the pane what it sends.
func run(p *Pane, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			run(p, c)
		}
	case nil:
	default:
		run(p, p.Update(msg))
	}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// runSearch types query into the pane's search prompt and runs it.
func runSearch(p *Pane, query string) {
	p.StartSearch()
	for _, r := range query {
		run(p, p.SearchKey(keyMsg(string(r))))
	}
	run(p, p.SearchKey(keyMsg("enter")))
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

// TestGolden: the pane alone at 80×24 and 120×40, in English and Chinese, with NO_COLOR: the
// step's code, upstream's, upstream missing (with and without downloads), the kube pane, a
// search, wrapped lines, no step yet, a step without code. -update rewrites the files.
func TestGolden(t *testing.T) {
	cases := []struct {
		name string
		opts func(tr *i18n.Strings) Options
		do   func(p *Pane)
	}{
		{"step", nil, func(p *Pane) { run(p, p.SetStep(ours, true, cp)) }},
		{"upstream", nil, func(p *Pane) { run(p, p.SetStep(ours, true, cp)); run(p, p.ToggleUpstream()) }},
		{"upstream_missing", func(tr *i18n.Strings) Options { return Options{Fetches: NewFetches(tr, false, nil)} },
			func(p *Pane) { run(p, p.SetStep(missing, true, cp)); run(p, p.ToggleUpstream()) }},
		{"upstream_missing_nofetch", func(tr *i18n.Strings) Options { return Options{Fetches: NewFetches(tr, true, nil)} },
			func(p *Pane) { run(p, p.SetStep(missing, true, cp)); run(p, p.ToggleUpstream()) }},
		{"kube", func(*i18n.Strings) Options { return Options{Kube: true} }, func(p *Pane) { run(p, p.SetStep(ours, true, cp)) }},
		{"kube_missing", func(tr *i18n.Strings) Options { return Options{Kube: true, Fetches: NewFetches(tr, false, nil)} },
			func(p *Pane) { run(p, p.SetStep(missing, true, cp)) }},
		{"search", nil, func(p *Pane) { run(p, p.SetStep(ours, true, cp)); runSearch(p, "storage") }},
		{"search_typing", nil, func(p *Pane) {
			run(p, p.SetStep(ours, true, cp))
			p.StartSearch()
			run(p, p.SearchKey(keyMsg("s")))
		}},
		{"wrap", nil, func(p *Pane) { run(p, p.SetStep(ours, true, cp)); p.ToggleWrap() }},
		{"starting", nil, func(p *Pane) {}},
		{"no_anchor", nil, func(p *Pane) { run(p, p.SetStep(noAnchor, true, cp)) }},
		{"empty", func(*i18n.Strings) Options { return Options{Empty: "Select a stage."} }, func(p *Pane) {}},
	}
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range cases {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					var opts Options
					if tt.opts != nil {
						opts = tt.opts(i18n.For(lang))
					}
					p := newPane(lang, opts)
					p.SetSize(sz.w, sz.h)
					tt.do(p)
					if p.Loading() {
						t.Fatal("still loading after the commands ran")
					}
					golden.RequireEqual(t, []byte(check(t, p.View(), sz.w, sz.h)))
				})
			}
		}
	}
}

// TestSearch: the search finds the shown file's matches first, then the server source's; n
// and N cycle them; a match in another file opens it, esc (ClearSearch) goes back to the step.
func TestSearch(t *testing.T) {
	p := newPane("en", Options{})
	p.SetSize(80, 24)
	run(p, p.SetStep(ours, true, cp))
	runSearch(p, "storage")
	ms, cur := p.Matches()
	var files []string
	for _, m := range ms {
		if len(files) == 0 || files[len(files)-1] != m.File {
			files = append(files, m.File)
		}
	}
	if strings.Join(files, ",") != "server/storage.go,server/other.go" {
		t.Fatalf("matches in %v, want the shown file first, then the others", files)
	}
	if ms[cur].File != "server/storage.go" || !p.Searching() || p.Typing() {
		t.Fatalf("current match %+v, searching %v typing %v", ms[cur], p.Searching(), p.Typing())
	}
	for _, tt := range []struct {
		d        int
		browsing bool
	}{
		{-1, true}, // back from the first match of the step's file: the last match, other.go
		{1, false}, // forward again: the step's file
		{-1, true}, // and back
	} {
		run(p, p.NextMatch(tt.d))
		if _, cur := p.Matches(); p.Browsing() != tt.browsing {
			t.Fatalf("after NextMatch(%d): match %d, browsing %v, want %v", tt.d, cur, p.Browsing(), tt.browsing)
		}
	}
	if !strings.Contains(strings.Join(p.View(), "\n"), "server/other.go") {
		t.Error("the other file's match is not shown")
	}
	run(p, p.ClearSearch())
	if p.Searching() || p.Browsing() {
		t.Error("ClearSearch left the search or the file open")
	}
	if loc, _, ok := p.Shown(); !ok || loc.File != "server/storage.go" {
		t.Errorf("after ClearSearch the pane shows %q", loc.File)
	}
}

// TestSearchKeys: typing edits the prompt, esc cancels, an empty query finds nothing.
func TestSearchKeys(t *testing.T) {
	for _, tt := range []struct {
		keys      []string
		typing    bool
		searching bool
	}{
		{[]string{"s", "t"}, true, false},
		{[]string{"s", "esc"}, false, false},
		{[]string{"s", "backspace", "enter"}, false, false},
		{[]string{"c", "f", "g", "enter"}, false, true},
	} {
		p := newPane("en", Options{})
		p.SetSize(80, 24)
		run(p, p.SetStep(ours, true, cp))
		p.StartSearch()
		for _, k := range tt.keys {
			run(p, p.SearchKey(keyMsg(k)))
		}
		if p.Typing() != tt.typing || p.Searching() != tt.searching {
			t.Errorf("%v: typing %v searching %v, want %v %v", tt.keys, p.Typing(), p.Searching(), tt.typing, tt.searching)
		}
	}
}

// TestResolvedMsgIsThePanes: a pane takes only the resolutions it asked for.
func TestResolvedMsgIsThePanes(t *testing.T) {
	a, b := newPane("en", Options{}), newPane("en", Options{})
	a.SetSize(80, 24)
	b.SetSize(80, 24)
	msg := a.SetStep(ours, true, cp)()
	if cmd := b.Update(msg); cmd != nil {
		t.Error("b returned a command for a's message")
	}
	if _, _, ok := b.Shown(); ok {
		t.Error("b took a's resolution")
	}
	a.Update(msg)
	if _, rows, ok := a.Shown(); !ok || rows == 0 {
		t.Error("a did not take its resolution")
	}
	if a.Loading() {
		t.Error("a still loading")
	}
}

// TestScroll: scrolling stays within the rows; wrap lays the long line over several rows.
func TestScroll(t *testing.T) {
	p := newPane("en", Options{})
	p.SetSize(60, 12)
	run(p, p.SetStep(ours, true, cp))
	_, rows, _ := p.Shown()
	for _, tt := range []struct {
		n, want int
	}{
		{-100, 0}, {3, 3}, {p.Page(), 3 + p.Page()}, {1 << 30, rows - 10}, {-(1 << 30), 0}, // the end: 12 rows less the borders in view
	} {
		p.Scroll(tt.n)
		if p.Offset() != tt.want {
			t.Errorf("Scroll(%d): at %d, want %d", tt.n, p.Offset(), tt.want)
		}
	}
	p.ToggleWrap()
	if _, wrapped, _ := p.Shown(); wrapped <= rows || !p.Wrapped() {
		t.Errorf("wrapped: %d rows, unwrapped %d", wrapped, rows)
	}
}

// TestFetches: F's notes when it cannot start, a download's progress and end, a failure the
// panes then explain, and a stop because the run ends, which says nothing.
func TestFetches(t *testing.T) {
	tr := i18n.For("en")
	mm := &MissingModuleError{Module: lessons.KubeModule, Version: "v1.37.2"}
	t.Run("refused", func(t *testing.T) {
		for _, tt := range []struct {
			off  bool
			mm   *MissingModuleError
			busy bool
			note string
		}{
			{off: true, mm: mm, note: tr.NoteFetchOff},
			{mm: nil, note: tr.NoteFetchNothing},
			{mm: mm, busy: true, note: fmt.Sprintf(tr.NoteFetchBusy, mm.Module)},
		} {
			block := make(chan struct{})
			f := NewFetches(tr, tt.off, func(ctx context.Context, _, _ string, _ func(int64)) (string, error) {
				<-block
				return "", nil
			})
			if tt.busy {
				f.job = &fetchJob{module: mm.Module}
			}
			cmd, note := f.Start(context.Background(), tt.mm)
			if cmd != nil || note != tt.note {
				t.Errorf("%+v: cmd %v note %q, want %q", tt, cmd != nil, note, tt.note)
			}
			close(block)
		}
	})
	for _, tt := range []struct {
		name    string
		err     error
		cancel  bool
		fetched string
		note    string
		text    string // what the kube pane says after
	}{
		{name: "done", fetched: mm.Module, note: fmt.Sprintf(tr.NoteFetched, mm.Module, mm.Version)},
		{name: "failed", err: errors.New("no network\nat all"), note: fmt.Sprintf(tr.NoteFetchFailed, mm.Module, "no network at all"),
			text: fmt.Sprintf(tr.ModuleFetchFailed, mm.Module, mm.Version, "no network\nat all")},
		{name: "stopped", err: context.Canceled, cancel: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			release := make(chan struct{})
			f := NewFetches(tr, false, func(ctx context.Context, mod, ver string, progress func(int64)) (string, error) {
				progress(2_500_000)
				<-release
				return "/mod", tt.err
			})
			p := newPane("en", Options{Kube: true, Fetches: f})
			p.SetSize(80, 24)
			run(p, p.SetStep(missing, true, cp))
			cmd, note := f.Start(ctx, p.Missing())
			if cmd == nil || note != "" || !f.Running() {
				t.Fatalf("Start: cmd %v note %q running %v", cmd != nil, note, f.Running())
			}
			cmds := cmd().(tea.BatchMsg)
			runDL, wait := cmds[0], cmds[1]
			end := make(chan tea.Msg, 1)
			go func() { end <- runDL() }()
			r := f.Update(ctx, wait().(FetchMsg))
			if !r.Changed || r.Cmd == nil {
				t.Fatalf("progress: %+v", r)
			}
			if mod, written, ok := f.Progress(); !ok || mod != mm.Module || written != "2.5 MB" {
				t.Errorf("Progress: %q %q %v", mod, written, ok)
			}
			if got := p.MissingText(p.Missing()); got != fmt.Sprintf(tr.ModuleFetching, mm.Module, mm.Version, "2.5 MB") {
				t.Errorf("during the download the pane says %q", got)
			}
			if tt.cancel {
				cancel()
			}
			close(release)
			r = f.Update(ctx, (<-end).(FetchMsg))
			f.Wait()
			if f.Running() || r.Fetched != tt.fetched || r.Note != tt.note {
				t.Errorf("end: running %v, %+v; want fetched %q note %q", f.Running(), r, tt.fetched, tt.note)
			}
			if tt.text != "" {
				if got := p.MissingText(p.Missing()); got != tt.text {
					t.Errorf("after the failure the pane says %q, want %q", got, tt.text)
				}
			}
		})
	}
}
