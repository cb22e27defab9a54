package walk

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	xansi "github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour/ansi"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/glamour/styles"
	"github.com/kubewalk/kubewalk/server"
)

// Lesson shows the step's text, rendered with glamour and re-wrapped to the pane.
type Lesson struct {
	frame
	style string // glamour style, chosen before the program runs

	step    Step
	hasStep bool
	cp      server.Checkpoint

	renderer *glamour.TermRenderer // renders without wrapping: the pane wraps
	cache    map[string][]string   // rendered lines by step ID and width

	lines  []string
	offset int
}

func NewLesson(c common.Common, style string) *Lesson {
	if style == "" {
		style = "notty"
	}
	return &Lesson{
		frame: newFrame(c), style: style, cache: map[string][]string{},
	}
}

func (p *Lesson) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.resize(w, h)
		p.relayout()
	}
}

// SetStep shows a step from the top.
func (p *Lesson) SetStep(step Step, ok bool, cp server.Checkpoint) {
	p.step, p.hasStep, p.cp = step, ok, cp
	p.offset = 0
	p.relayout()
}

func (p *Lesson) relayout() {
	p.Invalidate()
	if p.w < 3 {
		p.lines = nil
		return
	}
	p.lines = p.renderLines(p.w - 2)
	p.clamp()
}

// renderLines returns the step's lines for a text width, from the cache when it can.
func (p *Lesson) renderLines(w int) []string {
	key := p.cp.ID() + "\x00" + p.step.ID + "\x00" + strconv.Itoa(w)
	if l, ok := p.cache[key]; ok {
		return l
	}
	var out []string
	if !p.hasStep {
		if p.cp.Name == "" {
			out = common.WrapLines(p.st.Lesson.Missing.Render(p.tr.StartingServer), w)
		} else {
			out = append(out, common.WrapLines(p.st.Lesson.Title.Render(p.cp.Title), w)...)
			out = append(out, "")
			out = append(out, common.WrapLines(p.st.Lesson.Missing.Render(fmt.Sprintf(p.tr.LessonNoText, p.cp.ID())), w)...)
		}
		p.cache[key] = out
		return out
	}
	for _, l := range common.WrapLines(p.step.Title, w) {
		out = append(out, p.st.Lesson.Title.Render(l))
	}
	md := p.markdown(p.step.Text, w)
	out = append(out, md...)
	if p.step.Kube != "" {
		out = append(out, "")
		for _, l := range common.WrapLines(fmt.Sprintf(p.tr.LessonKube, p.step.Kube), w) {
			out = append(out, p.st.Lesson.Kube.Render(l))
		}
	}
	p.cache[key] = out
	return out
}

// markdown renders text with glamour and wraps the result to width w.
//
// glamour is asked not to wrap: its word wrapper breaks after hyphens ("--" / "image=nginx")
// and miscounts around styled inline code, and it cannot break Chinese text. Instead the
// spaces inside inline code (and the padding glamour puts around it) are replaced by common.KeepSpace
// (common.GluedSpace) before rendering, so wrapLines sees each code span as one word; they become
// spaces again after wrapping.
func (p *Lesson) markdown(text string, w int) []string {
	if p.renderer == nil {
		r, err := glamour.NewTermRenderer(
			glamour.WithStyles(lessonStyle(p.style, lipgloss.ColorProfile() == termenv.Ascii)),
			glamour.WithColorProfile(lipgloss.ColorProfile()),
			glamour.WithWordWrap(0),
		)
		if err != nil {
			return common.WrapLines(text, w)
		}
		p.renderer = r
	}
	s, err := p.renderer.Render(protectCodeSpans(text))
	if err != nil {
		return common.WrapLines(text, w)
	}
	lines := common.WrapLines(s, w)
	for i, l := range lines {
		lines[i] = common.Unkeep.Replace(l)
	}
	// Trim the blank lines glamour puts around the document.
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(xansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return append([]string{""}, lines...)
}

// lessonStyle is glamour's standard style of that name (notty when unknown) with the padding
// around inline code made unbreakable. Without colour (the notty and ascii styles, which
// NO_COLOR picks, or any style on a terminal without colour) inline code keeps its backticks:
// those styles, and the colour they lose, were the only thing that set code apart from the
// prose around it.
func lessonStyle(name string, noColor bool) ansi.StyleConfig {
	base, ok := styles.DefaultStyles[name]
	if !ok {
		base = styles.DefaultStyles[styles.NoTTYStyle]
		name = styles.NoTTYStyle
	}
	cfg := *base
	if noColor || name == styles.NoTTYStyle || name == styles.AsciiStyle {
		cfg.Code.Prefix, cfg.Code.Suffix = "`", "`"
	}
	keep := func(s string) string { return strings.ReplaceAll(s, " ", string(common.GluedSpace)) }
	cfg.Code.Prefix, cfg.Code.Suffix = keep(cfg.Code.Prefix), keep(cfg.Code.Suffix)
	// The notty and ascii styles mark emphasis with the Markdown markers themselves (**bold**,
	// *italic*, ~~struck~~), which a learner reads as stray asterisks: ask for the attributes
	// instead (shown where the terminal can, plain text where it cannot).
	for _, p := range []*ansi.StylePrimitive{&cfg.Strong, &cfg.Emph, &cfg.Strikethrough} {
		if p.BlockPrefix != "" && strings.Trim(p.BlockPrefix, "*~_") == "" {
			p.BlockPrefix, p.BlockSuffix = "", ""
		}
	}
	if cfg.Strong.Bold == nil {
		cfg.Strong.Bold = boolPtr(true)
	}
	if cfg.Emph.Italic == nil {
		cfg.Emph.Italic = boolPtr(true)
	}
	return cfg
}

func boolPtr(b bool) *bool { return &b }

// protectCodeSpans replaces the spaces (and line breaks) inside Markdown inline code spans by
// common.KeepSpace. A span opens with a run of backticks and closes with a run of the same length;
// fenced code blocks and backslash-escaped backticks are left alone, as is a run that is never
// closed (it is literal text).
func protectCodeSpans(md string) string {
	var out, chunk strings.Builder // chunk: text outside fences, not yet processed
	fence := ""
	for _, line := range strings.SplitAfter(md, "\n") {
		t := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			out.WriteString(line)
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"):
			out.WriteString(protectSpans(chunk.String()))
			chunk.Reset()
			out.WriteString(line)
			fence = t[:3]
		default:
			chunk.WriteString(line)
		}
	}
	out.WriteString(protectSpans(chunk.String()))
	return out.String()
}

// protectSpans does protectCodeSpans' work on text without fenced blocks.
func protectSpans(s string) string {
	keep := strings.NewReplacer(" ", string(common.KeepSpace), "\n", string(common.KeepSpace))
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i += 2
			continue
		case s[i] != '`':
			b.WriteByte(s[i])
			i++
			continue
		}
		n := backticks(s, i)
		end := closingRun(s, i+n, n)
		if end < 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		code := s[i+n : end]
		// CommonMark strips one space on both sides of a span (for spans that hold a
		// backtick): keep those as they are.
		lead, trail := "", ""
		if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
			lead, trail, code = " ", " ", code[1:len(code)-1]
		}
		b.WriteString(s[i:i+n] + lead + keep.Replace(code) + trail + s[end:end+n])
		i = end + n
	}
	return b.String()
}

// backticks is the length of the run of backticks at s[i:].
func backticks(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	return n
}

// closingRun finds the next run of exactly n backticks at or after from, or -1.
func closingRun(s string, from, n int) int {
	for i := from; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		m := backticks(s, i)
		if m == n {
			return i
		}
		i += m
	}
	return -1
}
func (p *Lesson) visible() int { return max(p.h-2, 1) }

func (p *Lesson) clamp() {
	p.offset = max(min(p.offset, len(p.lines)-p.visible()), 0)
}

// Scroll moves the view by n lines.
func (p *Lesson) Scroll(n int) {
	p.offset += n
	p.clamp()
	p.Invalidate()
}

func (p *Lesson) Page() int { return max(p.visible()-2, 1) }

// detail names the lesson.
func (p *Lesson) detail() string {
	if p.hasStep {
		return p.step.Lesson
	}
	return ""
}

// figure is the scroll position when the text is longer than the pane.
func (p *Lesson) figure() string {
	if len(p.lines) <= p.visible() {
		return ""
	}
	return strconv.Itoa(100*(p.offset+p.visible())/len(p.lines)) + "%"
}

// View renders the pane: exactly h lines of exactly w cells.
func (p *Lesson) View() []string {
	return p.Render(p.tr.PaneLesson, p.detail(), p.figure(), func() []string {
		return p.lines[p.offset:min(p.offset+p.visible(), len(p.lines))]
	})
}

// Step is the step shown, and whether there is one.
func (p *Lesson) Step() (Step, bool) { return p.step, p.hasStep }

// Lines are the step's rendered lines at the pane's width.
func (p *Lesson) Lines() []string { return p.lines }
