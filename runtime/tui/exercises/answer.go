package exercises

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// The answer line: a one-line text box at the bottom of the screen, where the root draws it
// (AnswerLine) in place of the help bar while the view captures the keys.
//
// It is hand-written rather than bubbles' textinput: it takes a paste's newlines and tabs as
// spaces, keeps the end of a long answer in view behind "…", and draws its cursor as "|" over
// the character under it with NO_COLOR, which the exercises goldens hold.

// startTyping opens the answer line, empty.
func (v *Model) startTyping() { v.typing, v.input, v.cur = true, nil, 0 }

// typeKey edits the answer line. It reports submit when enter was pressed (with what is
// typed); enter on an empty line does nothing, esc closes the line.
func (v *Model) typeKey(msg tea.KeyMsg) (answer string, submit bool) {
	// By type, not by binding: alt+enter submits and alt+esc cancels as well.
	switch msg.Type {
	case tea.KeyEsc:
		v.typing = false
	case tea.KeyEnter:
		if strings.TrimSpace(string(v.input)) == "" {
			return "", false
		}
		v.typing = false
		return string(v.input), true
	case tea.KeyLeft:
		v.cur = max(v.cur-1, 0)
	case tea.KeyRight:
		v.cur = min(v.cur+1, len(v.input))
	case tea.KeyHome, tea.KeyCtrlA:
		v.cur = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		v.cur = len(v.input)
	case tea.KeyBackspace:
		if v.cur > 0 {
			v.input = append(v.input[:v.cur-1], v.input[v.cur:]...)
			v.cur--
		}
	case tea.KeyDelete:
		if v.cur < len(v.input) {
			v.input = append(v.input[:v.cur], v.input[v.cur+1:]...)
		}
	case tea.KeyCtrlU:
		v.input, v.cur = append([]rune{}, v.input[v.cur:]...), 0
	case tea.KeyRunes, tea.KeySpace:
		rs := msg.Runes
		if msg.Type == tea.KeySpace {
			rs = []rune{' '}
		}
		var clean []rune
		for _, r := range rs {
			switch {
			case r == '\n' || r == '\r' || r == '\t':
				clean = append(clean, ' ')
			case r >= ' ' && r != 0x7f:
				clean = append(clean, r)
			}
		}
		v.input = append(v.input[:v.cur], append(clean, v.input[v.cur:]...)...)
		v.cur += len(clean)
	}
	return "", false
}

// AnswerLine is the open answer line as the screen's bottom line shows it, w cells wide.
func (v *Model) AnswerLine(w int) string {
	st, tr := v.c.Styles, v.c.Tr
	before := string(v.input[:v.cur])
	cursor, after := "█", ""
	if v.cur < len(v.input) {
		at := string(v.input[v.cur])
		after = string(v.input[v.cur+1:])
		if lipgloss.ColorProfile() == termenv.Ascii {
			cursor = "|" + at
		} else {
			cursor = st.Prompt.Cursor.Render(at)
		}
	}
	lead := st.Prompt.Colon.Render(tr.ExAnswerPrompt)
	text := before + cursor + after
	room := w - ansi.StringWidth(lead) - 1
	if over := ansi.StringWidth(text) - room; over > 0 {
		text = "…" + ansi.TruncateLeft(text, over+1, "")
	}
	line := lead + text
	if ansi.StringWidth(line)+ansi.StringWidth(tr.ExAnswerHint) <= w {
		line += st.Prompt.Desc.Render(tr.ExAnswerHint)
	}
	return common.Fit(line, w)
}
