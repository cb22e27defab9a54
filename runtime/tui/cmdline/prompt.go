package cmdline

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// The : command line, as in k9s: ":" opens a prompt on the bottom line; suggestions for the
// word being typed show above it; tab completes (again: the next suggestion, shift+tab the
// previous); ↑/↓ go through the lines run before; enter runs; esc backs out. A line that cannot
// run (an unknown command, a kubectl line a shell would be needed for, a bad breakpoint) stays
// in the prompt with the reason, so nothing typed is lost.

// Prompt is the command line's state: the line typed, the cursor, the suggestions for the word
// before it (from the Registry), the reason the line last did not run, and the lines run before.
type Prompt struct {
	reg   *Registry
	open  bool
	input []rune
	cur   int
	err   string
	hist  *kubectl.History

	from int
	sugg []Suggestion
	sel  int    // the suggestion tab put in the line, -1 none
	base []rune // the line before tab started cycling; nil when not cycling
	bcur int
}

// NewPrompt makes a shut prompt over the table reg.
func NewPrompt(reg *Registry) *Prompt {
	return &Prompt{reg: reg, hist: kubectl.NewHistory(200), sel: -1}
}

// Open shows an empty prompt.
func (p *Prompt) Open() {
	*p = Prompt{reg: p.reg, open: true, hist: p.hist, sel: -1}
	p.suggest()
}

// Reopen shows the prompt again with line and why it did not run.
func (p *Prompt) Reopen(line, err string) {
	*p = Prompt{reg: p.reg, open: true, hist: p.hist, sel: -1, input: []rune(line), cur: len([]rune(line)), err: err}
	p.suggest()
}

// Close hides the prompt.
func (p *Prompt) Close() { *p = Prompt{reg: p.reg, hist: p.hist, sel: -1} }

// Table is the table of commands the prompt suggests from.
func (p *Prompt) Table() *Registry { return p.reg }

// IsOpen reports whether the prompt is shown.
func (p *Prompt) IsOpen() bool { return p.open }

// Err is why the line last did not run, "" when it did or was edited since.
func (p *Prompt) Err() string { return p.err }

// Fail keeps the line in the prompt with why it did not run.
func (p *Prompt) Fail(why string) { p.err = why }

// Ran records line, which ran, for ↑ and closes the prompt.
func (p *Prompt) Ran(line string) {
	p.hist.Add(strings.TrimSpace(line))
	p.Close()
}

// Line is what is typed.
func (p *Prompt) Line() string { return string(p.input) }

func (p *Prompt) suggest() {
	p.from, p.sugg = p.reg.Complete(p.input, p.cur)
	p.sel, p.base = -1, nil
}

// set replaces the line and puts the cursor at its end.
func (p *Prompt) set(s string) {
	p.input = []rune(s)
	p.cur = len(p.input)
}

// Key edits the line. It reports run when enter was pressed (the caller runs Line()), and
// closed when esc closed the prompt.
func (p *Prompt) Key(msg tea.KeyMsg) (run, closed bool) {
	edited := true
	switch msg.Type {
	case tea.KeyEsc:
		p.Close()
		return false, true
	case tea.KeyEnter:
		return true, false
	case tea.KeyTab, tea.KeyShiftTab:
		d := 1
		if msg.Type == tea.KeyShiftTab {
			d = -1
		}
		p.tab(d)
		return false, false
	case tea.KeyUp, tea.KeyDown:
		var s string
		var ok bool
		if msg.Type == tea.KeyUp {
			s, ok = p.hist.Prev(p.Line())
		} else {
			s, ok = p.hist.Next(p.Line())
		}
		if ok {
			p.set(s)
		}
	case tea.KeyLeft:
		p.cur = max(p.cur-1, 0)
	case tea.KeyRight:
		p.cur = min(p.cur+1, len(p.input))
	case tea.KeyHome, tea.KeyCtrlA:
		p.cur = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		p.cur = len(p.input)
	case tea.KeyBackspace:
		if p.cur > 0 {
			p.input = append(p.input[:p.cur-1], p.input[p.cur:]...)
			p.cur--
		} else if len(p.input) == 0 {
			p.Close() // backspace on an empty line backs out, as in k9s and vim
			return false, true
		}
	case tea.KeyDelete:
		if p.cur < len(p.input) {
			p.input = append(p.input[:p.cur], p.input[p.cur+1:]...)
		}
	case tea.KeyCtrlU:
		p.input = append([]rune{}, p.input[p.cur:]...)
		p.cur = 0
	case tea.KeyCtrlW:
		i := p.cur
		for i > 0 && p.input[i-1] == ' ' {
			i--
		}
		for i > 0 && p.input[i-1] != ' ' {
			i--
		}
		p.input = append(p.input[:i], p.input[p.cur:]...)
		p.cur = i
	case tea.KeyRunes, tea.KeySpace:
		rs := msg.Runes
		if msg.Type == tea.KeySpace {
			rs = []rune{' '}
		}
		if len(p.input) == 0 && len(rs) == 1 && rs[0] == '?' {
			break // ? on an empty line: the suggestions list every command already
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
		p.input = append(p.input[:p.cur], append(clean, p.input[p.cur:]...)...)
		p.cur += len(clean)
	default:
		edited = false
	}
	if edited {
		p.err = ""
		p.suggest()
	}
	return false, false
}

// tab completes the word before the cursor: one suggestion is taken (with a space after it
// unless more may follow); several are cycled through.
func (p *Prompt) tab(d int) {
	if p.base == nil {
		switch len(p.sugg) {
		case 0:
			return
		case 1:
			s := p.sugg[0]
			text := s.Text
			if !s.Open {
				text += " "
			}
			rest := p.input[p.cur:]
			p.input = append(append(append([]rune{}, p.input[:p.from]...), []rune(text)...), rest...)
			p.cur = p.from + len([]rune(text))
			p.err = ""
			p.suggest()
			return
		}
		p.base = append([]rune{}, p.input...)
		p.bcur = p.cur
		p.sel = 0
		if d < 0 {
			p.sel = len(p.sugg) - 1
		}
	} else {
		p.sel = (p.sel + d + len(p.sugg)) % len(p.sugg)
	}
	text := []rune(p.sugg[p.sel].Text)
	p.input = append(append(append([]rune{}, p.base[:p.from]...), text...), p.base[p.bcur:]...)
	p.cur = p.from + len(text)
}

// MaxSuggestions is how many suggestions show above the prompt.
const MaxSuggestions = 12

// Overlay is the suggestions (or the reason the line did not run) in a box drawn over the
// bottom of the body, w cells wide: at most MaxSuggestions of them, the selected one marked.
func (p *Prompt) Overlay(st *common.Styles, tr *i18n.Strings, w int) []string {
	lines := p.overlayLines(st, tr, w-2)
	if len(lines) == 0 {
		return nil
	}
	title := tr.SuggestTitle
	if p.err != "" {
		title = tr.SuggestErrorTitle
	} else if len(p.sugg) > 0 && !strings.Contains(string(p.input), " ") {
		title = tr.SuggestCommandsTitle
	}
	return common.Box(st, title, lines, w, len(lines)+2, true)
}

func (p *Prompt) overlayLines(st *common.Styles, tr *i18n.Strings, w int) []string {
	var out []string
	if p.err != "" {
		for _, l := range common.WrapLines("✗ "+p.err, w-1) {
			out = append(out, " "+st.Prompt.Error.Render(l))
		}
	}
	if len(p.sugg) == 0 {
		return out
	}
	first := 0
	if p.sel >= MaxSuggestions {
		first = p.sel - MaxSuggestions + 1
	}
	textW := 0
	for _, s := range p.sugg {
		textW = max(textW, ansi.StringWidth(s.Text))
	}
	textW = min(textW, w/2)
	for i := first; i < len(p.sugg) && i < first+MaxSuggestions; i++ {
		s := p.sugg[i]
		mark, style := "  ", st.Prompt.Suggestion
		if i == p.sel {
			mark, style = "▶ ", st.Prompt.Selected
		}
		line := mark + style.Render(common.Fit(s.Text, textW)) + "  " + st.Prompt.Desc.Render(s.Desc)
		out = append(out, common.Fit(line, w))
	}
	if n := len(p.sugg) - MaxSuggestions; n > 0 {
		out = append(out, common.Fit(st.Prompt.Desc.Render(strings.Repeat(" ", 2)+fmt.Sprintf(tr.SuggestMore, len(p.sugg))), w))
	}
	return out
}

// View is the prompt as the bottom line shows it: ":" then the text with the cursor, then a
// hint when there is room.
func (p *Prompt) View(st *common.Styles, tr *i18n.Strings, w int) string {
	before := string(p.input[:p.cur])
	// The cursor is a block at the end of the line; inside it, the character under it in
	// reverse video, or (without colour and attributes, NO_COLOR) a bar before it.
	cursor, after := "█", ""
	if p.cur < len(p.input) {
		at := string(p.input[p.cur])
		after = string(p.input[p.cur+1:])
		if lipgloss.ColorProfile() == termenv.Ascii {
			cursor = "|" + at
		} else {
			cursor = st.Prompt.Cursor.Render(at)
		}
	}
	text := st.Prompt.Colon.Render(":") + before + cursor + after
	// Keep the cursor in view on a long line: cut from the left.
	if over := ansi.StringWidth(text) - (w - 1); over > 0 {
		text = "…" + ansi.TruncateLeft(text, over+1, "")
	}
	hint := tr.PromptHint
	if ansi.StringWidth(text)+ansi.StringWidth(hint) <= w {
		text += st.Prompt.Desc.Render(hint)
	}
	return common.Fit(text, w)
}
