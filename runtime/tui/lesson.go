package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/lipgloss"

	"github.com/kubewalk/kubewalk/server"
)

// lessonPane shows the step's text, rendered with glamour and re-wrapped to the pane.
type lessonPane struct {
	frame
	style string // glamour style, chosen before the program runs

	step    Step
	hasStep bool
	cp      server.Checkpoint

	renderers map[int]*glamour.TermRenderer // by wrap width
	cache     map[string][]string           // rendered lines by step ID and width

	lines  []string
	offset int
}

func newLessonPane(st *Styles, style string) *lessonPane {
	if style == "" {
		style = "notty"
	}
	return &lessonPane{
		frame: frame{st: st, dirty: true}, style: style,
		renderers: map[int]*glamour.TermRenderer{}, cache: map[string][]string{},
	}
}

func (p *lessonPane) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.w, p.h = w, h
		p.relayout()
	}
}

// SetStep shows a step from the top.
func (p *lessonPane) SetStep(step Step, ok bool, cp server.Checkpoint) {
	p.step, p.hasStep, p.cp = step, ok, cp
	p.offset = 0
	p.relayout()
}

func (p *lessonPane) relayout() {
	p.dirty = true
	if p.w < 3 {
		p.lines = nil
		return
	}
	p.lines = p.renderLines(p.w - 2)
	p.clamp()
}

// renderLines returns the step's lines for a text width, from the cache when it can.
func (p *lessonPane) renderLines(w int) []string {
	key := p.cp.ID() + "\x00" + p.step.ID + "\x00" + strconv.Itoa(w)
	if l, ok := p.cache[key]; ok {
		return l
	}
	var out []string
	if !p.hasStep {
		if p.cp.Name == "" {
			out = wrapLines(p.st.Lesson.Missing.Render("Starting the server…"), w)
		} else {
			out = append(out, wrapLines(p.st.Lesson.Title.Render(p.cp.Title), w)...)
			out = append(out, "")
			out = append(out, wrapLines(p.st.Lesson.Missing.Render("No lesson text for "+p.cp.ID()+" yet."), w)...)
		}
		p.cache[key] = out
		return out
	}
	for _, l := range wrapLines(p.step.Title, w) {
		out = append(out, p.st.Lesson.Title.Render(l))
	}
	md := p.markdown(p.step.Text, w)
	out = append(out, md...)
	if p.step.Kube != "" {
		out = append(out, "")
		for _, l := range wrapLines("In kube-apiserver: "+p.step.Kube, w) {
			out = append(out, p.st.Lesson.Kube.Render(l))
		}
	}
	p.cache[key] = out
	return out
}

// markdown renders text with glamour at width w and re-wraps the result: glamour wraps only at
// spaces, so a Chinese paragraph comes back as one over-long line.
func (p *lessonPane) markdown(text string, w int) []string {
	r, ok := p.renderers[w]
	if !ok {
		var err error
		r, err = glamour.NewTermRenderer(
			glamour.WithStandardStyle(p.style),
			glamour.WithColorProfile(lipgloss.ColorProfile()),
			glamour.WithWordWrap(w),
		)
		if err != nil {
			return wrapLines(text, w)
		}
		p.renderers[w] = r
	}
	s, err := r.Render(text)
	if err != nil {
		return wrapLines(text, w)
	}
	lines := wrapLines(s, w)
	// Trim the blank lines glamour puts around the document.
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return append([]string{""}, lines...)
}

func (p *lessonPane) visible() int { return max(p.h-2, 1) }

func (p *lessonPane) clamp() {
	p.offset = max(min(p.offset, len(p.lines)-p.visible()), 0)
}

// Scroll moves the view by n lines.
func (p *lessonPane) Scroll(n int) {
	p.offset += n
	p.clamp()
	p.dirty = true
}

func (p *lessonPane) Page() int { return max(p.visible()-2, 1) }

// detail names the lesson, with the scroll position when the text is longer than the pane.
func (p *lessonPane) detail() string {
	var parts []string
	if p.hasStep && p.step.Lesson != "" {
		parts = append(parts, p.step.Lesson)
	}
	if len(p.lines) > p.visible() {
		pct := 100 * (p.offset + p.visible()) / len(p.lines)
		parts = append(parts, strconv.Itoa(pct)+"%")
	}
	return strings.Join(parts, " · ")
}

// View renders the pane: exactly h lines of exactly w cells.
func (p *lessonPane) View() []string {
	return p.render(paneLesson.String(), p.detail(), func() []string {
		return p.lines[p.offset:min(p.offset+p.visible(), len(p.lines))]
	})
}
