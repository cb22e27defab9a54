package common

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TextPane is a framed, scrollable list of lines (already wrapped or cut by whoever sets them):
// the glossary, the kubectl output, a request's details, a decoded etcd value. It is the one
// place that maps up/down/pgup/pgdn/top/bottom and the mouse wheel onto a scroll position
// (ScrollKey, ScrollMouse).
//
// It keeps its own offset rather than a bubbles viewport.Model, for a measured reason
// (BenchmarkTextPaneSetLines against BenchmarkViewportSetContent, 5,000 lines of output):
// viewport v1.0.0 takes its content as one string and splits it and measures every line's width
// again on each SetContent (0.8–1.5 ms and 350 KB for 5,000 lines on the 2-core machine, once
// joined for it), where SetLines keeps the caller's slice (4 ns, no allocation). The kubectl pane sets its lines
// on every chunk of output a `get -w` streams, and whoever sets lines has wrapped them to the
// pane's width already, so none of that work is needed. Its View pads through lipgloss, which
// Box does anyway; and its page step is a whole page, where kubewalk's keeps two lines of
// context (Page), which the goldens and the learners' habits hold.
type TextPane struct {
	Frame
	name, detail, figure string

	lines  []string
	offset int
	// tail panes (the kubectl output) follow: they keep the last line in view as lines are
	// added, until the user scrolls up, and again once they scroll back to the end.
	tail, follow bool
}

// NewTextPane returns an empty pane titled name.
func NewTextPane(st *Styles, name string) *TextPane {
	return &TextPane{Frame: Frame{st: st, dirty: true}, name: name}
}

// SetTail makes the pane follow its last line (see TextPane.tail).
func (p *TextPane) SetTail() { p.tail, p.follow = true, true }

// Follow brings a tail pane back to following its last line.
func (p *TextPane) Follow() { p.follow = true }

// SetSize sets the pane's outer size.
func (p *TextPane) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.w, p.h = w, h
		p.dirty = true
		p.clamp()
	}
}

// Inner is the width lines get (inside the borders).
func (p *TextPane) Inner() int { return max(p.w-2, 0) }

// SetLines replaces the lines, keeping the scroll position (or the tail, when following).
// The pane keeps the slice: the caller must not change it afterwards.
func (p *TextPane) SetLines(lines []string) {
	p.lines = lines
	p.dirty = true
	if p.follow {
		p.offset = len(p.lines)
	}
	p.clamp()
}

// Lines returns the lines last set.
func (p *TextPane) Lines() []string { return p.lines }

// SetTitle sets the title's parts (see Frame.Render).
func (p *TextPane) SetTitle(name, detail, figure string) {
	if p.name != name || p.detail != detail || p.figure != figure {
		p.name, p.detail, p.figure = name, detail, figure
		p.dirty = true
	}
}

// Visible is the number of lines the pane shows.
func (p *TextPane) Visible() int { return max(p.h-2, 1) }

func (p *TextPane) clamp() {
	p.offset = max(min(p.offset, len(p.lines)-p.Visible()), 0)
}

// Offset is the index of the first line shown.
func (p *TextPane) Offset() int { return p.offset }

// SetOffset scrolls to show line n first (clamped); following is left as it is.
func (p *TextPane) SetOffset(n int) {
	p.offset = n
	p.clamp()
	p.dirty = true
}

// Reveal scrolls, if line n is not well in view, to show it with one line above it.
func (p *TextPane) Reveal(n int) {
	if n < p.offset || n >= p.offset+p.Visible()-1 {
		p.SetOffset(max(n-1, 0))
	}
}

// Scroll moves the view by n lines; scrolling to the end resumes following.
func (p *TextPane) Scroll(n int) {
	p.offset += n
	p.clamp()
	p.dirty = true
	if !p.tail {
		return
	}
	if n < 0 {
		p.follow = false
	} else if p.offset >= len(p.lines)-p.Visible() {
		p.follow = true
	}
}

// Top scrolls to the first line.
func (p *TextPane) Top() { p.offset = 0; p.follow = false; p.dirty = true }

// Bottom scrolls to the last line (and a tail pane follows again).
func (p *TextPane) Bottom() { p.Scroll(1 << 30) }

// Page is the step of pgup/pgdn: a page less two lines, which stay in view as context.
func (p *TextPane) Page() int { return max(p.Visible()-2, 1) }

// ScrollKeys are the bindings a scrolling pane answers.
type ScrollKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
}

// ScrollKey scrolls by the key, if it is one of k's, and says whether it was.
func (p *TextPane) ScrollKey(msg tea.KeyMsg, k ScrollKeys) bool {
	switch {
	case key.Matches(msg, k.Up):
		p.Scroll(-1)
	case key.Matches(msg, k.Down):
		p.Scroll(1)
	case key.Matches(msg, k.PageUp):
		p.Scroll(-p.Page())
	case key.Matches(msg, k.PageDown):
		p.Scroll(p.Page())
	case key.Matches(msg, k.Top):
		p.Top()
	case key.Matches(msg, k.Bottom):
		p.Bottom()
	default:
		return false
	}
	return true
}

// Scroller is a pane that scrolls by lines and pages and is not a TextPane: the source pane,
// a side of the side-by-side view, the walkthrough's focused pane.
type Scroller interface {
	Scroll(n int)
	Page() int
}

// ScrollKeyOf scrolls p by the key, if it is one of k's, and says whether it was: a line, a
// page, or to either end (a scroll past it, which the pane clamps).
func ScrollKeyOf(msg tea.KeyMsg, k ScrollKeys, p Scroller) bool {
	switch {
	case key.Matches(msg, k.Up):
		p.Scroll(-1)
	case key.Matches(msg, k.Down):
		p.Scroll(1)
	case key.Matches(msg, k.PageUp):
		p.Scroll(-p.Page())
	case key.Matches(msg, k.PageDown):
		p.Scroll(p.Page())
	case key.Matches(msg, k.Top):
		p.Scroll(-1 << 30)
	case key.Matches(msg, k.Bottom):
		p.Scroll(1 << 30)
	default:
		return false
	}
	return true
}

// NewScrollKeys returns kubewalk's scroll keys with help in tr's language (the root's KeyMap
// takes its Up … Bottom from here).
func NewScrollKeys(tr *i18n.Strings) ScrollKeys {
	return ScrollKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", tr.KeyUp)),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", tr.KeyDown)),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup/b", tr.KeyPageUp)),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "f"), key.WithHelp("pgdn/f", tr.KeyPageDown)),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", tr.KeyTop)),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", tr.KeyBottom)),
	}
}

// WheelStep is how many lines one turn of the mouse wheel scrolls.
const WheelStep = 3

// ScrollMouse scrolls by a wheel event and says whether it was one.
func (p *TextPane) ScrollMouse(msg tea.MouseMsg) bool {
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		p.Scroll(-WheelStep)
	case tea.MouseButtonWheelDown:
		p.Scroll(WheelStep)
	default:
		return false
	}
	return true
}

// View renders the pane: exactly h lines of exactly w cells.
func (p *TextPane) View() []string {
	return p.Render(p.name, p.detail, p.figure, func() []string {
		return p.lines[p.offset:min(p.offset+p.Visible(), len(p.lines))]
	})
}
