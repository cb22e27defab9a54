package exercises

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// relayoutDetail writes the selected exercise into the detail pane.
func (v *Model) relayoutDetail() {
	w := v.detail.Inner() - 1
	e, ok := v.Selected()
	if w <= 0 || !ok {
		v.detail.SetTitle(v.c.Tr.PaneExercise, "", "")
		v.detail.SetLines(nil)
		return
	}
	st, tr := v.c.Styles, v.c.Tr
	var lines []string
	add := func(s string, style lipgloss.Style) {
		for _, l := range common.WrapLines(inlineCode(s, st.Served.Command, style), w) {
			lines = append(lines, " "+common.Unkeep.Replace(l))
		}
	}
	addStyled := func(s string) {
		for _, l := range common.WrapLines(s, w) {
			lines = append(lines, " "+common.Unkeep.Replace(l))
		}
	}
	blank := func() { lines = append(lines, "") }
	title := e.LessonTitle
	if title == "" {
		title = e.Lesson
	}
	where := st.List.Dim.Render(" · " + fmt.Sprintf(tr.ExLesson, title, e.Phase))
	// The state, with why it passed or why the last answer did not, comes first: it is
	// what changes.
	switch e.State {
	case Done:
		addStyled(st.Lane.OK.Render(tr.ExStateDone) + where)
		if e.Why != "" {
			add(fmt.Sprintf(tr.ExWhy, e.Why), st.Lane.OK)
		}
	case Open:
		addStyled(st.Lane.Heading.Render(tr.ExStateOpen) + where)
	case NeedsServe:
		addStyled(st.Lane.Held.Render(tr.ExStateNeedsServe) + where)
	default:
		addStyled(st.List.Dim.Render(fmt.Sprintf(tr.ExStateLocked, e.Phase)) + where)
	}
	if e.State != Done && e.LastTry != "" {
		add(fmt.Sprintf(tr.ExLastTry, e.LastTry), st.Lane.Stopped)
	}
	blank()
	add(e.Goal, st.Lane.Text)
	if len(e.Choices) > 0 {
		blank()
		for i, c := range e.Choices {
			add(fmt.Sprintf("%d. %s", i+1, c), st.Lane.Text)
		}
	}
	if e.State != Done {
		blank()
		switch e.Input {
		case InputText:
			add(tr.ExTextHow, st.List.Dim)
		case InputChoice:
			add(fmt.Sprintf(tr.ExChoiceHow, len(e.Choices)), st.List.Dim)
		default:
			add(tr.ExLiveHow, st.List.Dim)
		}
	}
	blank()
	if e.HintLevels > 0 && len(e.Hints) >= e.HintLevels {
		add(fmt.Sprintf(tr.ExHintsAll, e.HintLevels), st.Lane.Heading)
	} else {
		add(fmt.Sprintf(tr.ExHints, len(e.Hints), e.HintLevels), st.Lane.Heading)
	}
	for i, h := range e.Hints {
		label := fmt.Sprintf(tr.ExHintLevel, i+1)
		switch i {
		case 0:
			label = tr.ExHintNudge
		case 1:
			label = tr.ExHintPointer
		case 2:
			label = tr.ExHintSolution
		}
		head := fmt.Sprintf(tr.ExHintHead, i+1, label)
		hl := strings.Split(h, "\n")
		addStyled("• " + st.Lane.Label.Render(head) + inlineCode(hl[0], st.Served.Command, st.Lane.Text))
		for _, more := range hl[1:] {
			addStyled("  " + inlineCode(more, st.Served.Command, st.Lane.Text))
		}
	}
	if v.shownID != e.ID {
		v.shownID = e.ID
		v.detail.Top()
	}
	v.detail.SetTitle(tr.PaneExercise, e.Title, "")
	v.detail.SetLines(lines)
}

// inlineCode styles text's inline code spans (`like this`) with code and the rest with text;
// spaces inside a span become common.KeepSpace so that common.WrapLines keeps a span on one
// line when it can (the caller turns them back with common.Unkeep).
func inlineCode(s string, code, text lipgloss.Style) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j < 0 {
			break
		}
		if i > 0 {
			b.WriteString(text.Render(s[:i]))
		}
		span := strings.ReplaceAll(s[i+1:i+1+j], " ", string(common.KeepSpace))
		b.WriteString(code.Render(span))
		s = s[i+2+j:]
	}
	if s != "" {
		b.WriteString(text.Render(s))
	}
	return b.String()
}
