// Package side is kube-apiserver side by side (s in the walkthrough): the body split into our
// code for the step on screen and, beside it, the kube-apiserver v1.37.2 function its kube:
// location names, read from k8s.io/kubernetes in the Go module cache. When the cache lacks a
// module (k8s.io/kubernetes here, k8s.io/apiserver for u), the pane says so and F fetches it
// with the go command, in a tea.Cmd that reports progress; quitting cancels it (the go command
// is killed) and the root waits for it to end (source.Fetches.Wait).
//
// It is a mode of the walkthrough, not a view of its own: the walkthrough's source pane is
// lent to it (the left side), the kube pane is its own (the right side), and it holds which
// side has the focus. The root asks it through methods only.
package side

import (
	"context"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/server"
)

// UpstreamChecker is implemented by a Content that can tell, off the update loop, whether
// k8s.io/apiserver's source (the u key's) is in the module cache, for the welcome screen.
type UpstreamChecker interface {
	UpstreamMissing() *source.MissingModuleError
}

// UpstreamCheckMsg says whether k8s.io/apiserver's source is missing (for the welcome).
type UpstreamCheckMsg struct{ Missing *source.MissingModuleError }

// Keys are the walkthrough's bindings the side-by-side view answers besides c.Scroll: tab and
// shift+tab switch side, Wrap wraps both sides, Fetch (in the help bar) downloads a missing
// module.
type Keys struct {
	FocusNext, FocusPrev, Wrap, Fetch key.Binding
}

// Model is the side-by-side view's state.
type Model struct {
	c       common.Common
	keys    Keys
	ctx     context.Context
	content source.Resolver
	fetch   *source.Fetches

	src  *source.Pane // the walkthrough's source pane, the left side
	kube *source.Pane // kube-apiserver's function, the right side

	open      bool
	focus     int // 0: ours, 1: kube-apiserver's
	w, h      int // the body, as last laid out
	upMissing *source.MissingModuleError
}

// New returns the view, closed, over the walkthrough's source pane src. Its kube pane resolves
// through content (a source.KubeSource); fetch are the run's downloads; ctx ends them.
func New(ctx context.Context, c common.Common, keys Keys, content source.Resolver, src *source.Pane, fetch *source.Fetches) *Model {
	return &Model{
		c: c, keys: keys, ctx: ctx, content: content, fetch: fetch, src: src,
		kube: source.New(common.Common{Styles: c.Styles, Tr: c.Tr}, content, source.Options{Kube: true, Fetches: fetch}),
	}
}

// Init asks the content, off the update loop, whether u will find its source; the answer is
// an UpstreamCheckMsg for Update.
func (s *Model) Init() tea.Cmd {
	c, ok := s.content.(UpstreamChecker)
	if !ok {
		return nil
	}
	return func() tea.Msg { return UpstreamCheckMsg{Missing: c.UpstreamMissing()} }
}

// Open reports whether the view is open.
func (s *Model) Open() bool { return s.open }

// Focus is the side with the focus: 0 ours, 1 kube-apiserver's.
func (s *Model) Focus() int { return s.focus }

// Kube is the kube pane (for tests that wait on it).
func (s *Model) Kube() *source.Pane { return s.kube }

// UpstreamMissing is k8s.io/apiserver's module when Init found it missing, else nil.
func (s *Model) UpstreamMissing() *source.MissingModuleError { return s.upMissing }

// SetStep gives the kube pane the step on screen; it resolves the location only while the view
// is open.
func (s *Model) SetStep(code source.Code, ok bool, cp server.Checkpoint) tea.Cmd {
	if s.open {
		return s.kube.SetStep(code, ok, cp)
	}
	s.kube.Point(code, ok, cp)
	return nil
}

// Toggle opens or closes the view; it answers a note instead when there is no step to show.
// The root lays the screen out again after it.
func (s *Model) Toggle() (tea.Cmd, string) {
	if !s.open && !s.kube.HasStep() {
		return nil, s.c.Tr.NoteSideNoStep
	}
	s.open = !s.open
	s.focus = 0
	if !s.open {
		return nil, ""
	}
	s.layout()
	return s.kube.Load(), ""
}

// SetSize takes the body's size; the panes are sized to it while the view is open.
func (s *Model) SetSize(w, h int) {
	s.w, s.h = w, h
	if s.open {
		s.layout()
	}
}

func (s *Model) layout() {
	s.src.SetSize(s.w/2, s.h)
	s.kube.SetSize(s.w-s.w/2, s.h)
}

// ZoomSize sizes the focused side alone to the whole body (the root's z).
func (s *Model) ZoomSize(w, h int) { s.focused().SetSize(w, h) }

// ApplyFocus tells the panes which side has the focus. Closed, it leaves the walkthrough's
// pane to the root and unfocuses the kube pane.
func (s *Model) ApplyFocus() {
	if s.open {
		s.src.SetFocused(s.focus == 0)
	}
	s.kube.SetFocused(s.open && s.focus == 1)
}

func (s *Model) focused() *source.Pane {
	if s.focus == 1 {
		return s.kube
	}
	return s.src
}

// Key handles the keys that differ in the side-by-side view: tab switches side, the scrolling
// keys scroll the focused side, wrap wraps both. It reports false for the rest (and for every
// key while the left side's search takes them).
func (s *Model) Key(msg tea.KeyMsg) (tea.Cmd, bool) {
	k, sc := s.keys, s.c.Scroll
	p := s.focused()
	switch {
	case s.src.Typing() || s.src.Searching():
		return nil, false
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		s.focus = 1 - s.focus
		s.ApplyFocus()
	case common.ScrollKeyOf(msg, sc, p): // scrolled the focused side
	case key.Matches(msg, k.Wrap):
		s.src.ToggleWrap()
		s.kube.ToggleWrap()
	default:
		return nil, false
	}
	return nil, true
}

// Mouse scrolls the focused side with the wheel and focuses the side clicked; X is relative
// to the body's corner.
func (s *Model) Mouse(msg tea.MouseMsg) {
	p := s.focused()
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		p.Scroll(-3)
	case tea.MouseButtonWheelDown:
		p.Scroll(3)
	case tea.MouseButtonLeft:
		s.focus = 0
		if msg.X >= s.w/2 {
			s.focus = 1
		}
		s.ApplyFocus()
	}
}

// View draws both sides, ours on the left.
func (s *Model) View() []string { return common.JoinColumns(s.src.View(), s.kube.View()) }

// ZoomView draws the focused side alone (sized by ZoomSize).
func (s *Model) ZoomView() []string { return s.focused().View() }

// HelpKeys are the view's bindings for the help bar: s closes it, F fetches a module a side
// lacks (unless downloads are off).
func (s *Model) HelpKeys() []key.Binding {
	out := []key.Binding{key.NewBinding(key.WithKeys("s"), key.WithHelp("s", s.c.Tr.BarClose))}
	if s.Missing() != nil && !s.fetch.Off() {
		out = append(out, s.keys.Fetch)
	}
	return out
}

// Missing is the module a pane on screen lacks: the kube pane's (while open), else the
// walkthrough's upstream source's; nil when none.
func (s *Model) Missing() *source.MissingModuleError {
	if s.open {
		if mm := s.kube.Missing(); mm != nil {
			return mm
		}
	}
	if s.src.Upstream() {
		return s.src.Missing()
	}
	return nil
}

// StartFetch downloads the module a pane on screen lacks, off the update loop; the note says
// why not, or is empty.
func (s *Model) StartFetch() (tea.Cmd, string) {
	cmd, note := s.fetch.Start(s.ctx, s.Missing())
	s.fetchDirty()
	return cmd, note
}

// Update takes the kube pane's resolutions (source.ResolvedMsg), a fetch's progress and end
// (source.FetchMsg) and Init's answer; the note is for the status line ("" says nothing).
func (s *Model) Update(msg tea.Msg) (tea.Cmd, string) {
	switch msg := msg.(type) {
	case source.ResolvedMsg:
		return s.kube.Update(msg), ""
	case source.FetchMsg:
		r := s.fetch.Update(s.ctx, msg)
		if r.Changed {
			s.fetchDirty()
		}
		if r.Fetched == "" {
			return r.Cmd, r.Note
		}
		if s.upMissing != nil && s.upMissing.Module == r.Fetched {
			s.upMissing = nil
		}
		return tea.Batch(s.src.Reload(), s.reloadKube()), r.Note
	case UpstreamCheckMsg:
		s.upMissing = msg.Missing
	}
	return nil, ""
}

// reloadKube reloads the kube pane if it is open (else it loads when it opens).
func (s *Model) reloadKube() tea.Cmd {
	if !s.open {
		s.kube.ForgetErrors()
		return nil
	}
	return s.kube.Reload()
}

// fetchDirty redraws the panes that may show a fetch's state.
func (s *Model) fetchDirty() {
	s.src.Invalidate()
	s.kube.Invalidate()
}
