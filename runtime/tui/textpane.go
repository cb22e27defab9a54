package tui

import "github.com/kubewalk/kubewalk/runtime/i18n"

// textPane is a framed, scrollable list of lines (already wrapped or cut by whoever sets
// them): the kubectl output, a request's details, a decoded etcd value.
type textPane struct {
	frame
	name, detail, figure string

	lines  []string
	offset int
	// tail panes (the kubectl output) follow: they keep the last line in view as lines are
	// added, until the user scrolls up, and again once they scroll back to the end.
	tail, follow bool
}

func newTextPane(st *Styles, tr *i18n.Strings, name string) *textPane {
	return &textPane{frame: frame{st: st, tr: tr, dirty: true}, name: name}
}

// SetSize sets the pane's outer size.
func (p *textPane) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.w, p.h = w, h
		p.dirty = true
		p.clamp()
	}
}

// Inner is the width lines get (inside the borders).
func (p *textPane) Inner() int { return max(p.w-2, 0) }

// SetLines replaces the lines, keeping the scroll position (or the tail, when following).
func (p *textPane) SetLines(lines []string) {
	p.lines = lines
	p.dirty = true
	if p.follow {
		p.offset = len(p.lines)
	}
	p.clamp()
}

// SetTitle sets the title's parts (see frame.render).
func (p *textPane) SetTitle(name, detail, figure string) {
	if p.name != name || p.detail != detail || p.figure != figure {
		p.name, p.detail, p.figure = name, detail, figure
		p.dirty = true
	}
}

func (p *textPane) visible() int { return max(p.h-2, 1) }

func (p *textPane) clamp() {
	p.offset = max(min(p.offset, len(p.lines)-p.visible()), 0)
}

// Scroll moves the view by n lines; scrolling to the end resumes following.
func (p *textPane) Scroll(n int) {
	p.offset += n
	p.clamp()
	p.dirty = true
	if !p.tail {
		return
	}
	if n < 0 {
		p.follow = false
	} else if p.offset >= len(p.lines)-p.visible() {
		p.follow = true
	}
}

// Top scrolls to the first line.
func (p *textPane) Top() { p.offset = 0; p.follow = false; p.dirty = true }

// Page is the step of pgup/pgdn.
func (p *textPane) Page() int { return max(p.visible()-2, 1) }

// View renders the pane: exactly h lines of exactly w cells.
func (p *textPane) View() []string {
	return p.render(p.name, p.detail, p.figure, func() []string {
		return p.lines[p.offset:min(p.offset+p.visible(), len(p.lines))]
	})
}
