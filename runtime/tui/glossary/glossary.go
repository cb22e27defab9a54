// Package glossary is the :glossary view: the terms kubewalk uses (content/glossary.md,
// embedded and parsed when the view is made), English, Chinese and the note side by side in
// columns sized in terminal cells, each cell wrapped within its column, and under each term,
// indented, its English definition and the Chinese variants kubewalk does not use; one
// scrollable pane.
//
// It is the first view moved out of the root model (issue 18) and the example to follow: it
// implements view.View, keeps its own state and keys, and draws with runtime/tui/common.
package glossary

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// Model is the glossary view.
type Model struct {
	c     common.Common
	pane  *common.TextPane
	terms []i18n.Term
	err   error
	// w and h are the size the table was laid out for.
	w, h int
}

var _ view.View = (*Model)(nil)

// New makes the view. The glossary is parsed here: it is embedded in the binary, and a parse
// error is shown in the pane rather than failing the run.
func New(c common.Common) *Model {
	terms, err := i18n.Glossary()
	v := &Model{c: c, pane: common.NewTextPane(c.Styles, c.Tr.PaneGlossary), terms: terms, err: err}
	v.pane.SetFocused(true)
	return v
}

// Init starts nothing: the glossary has no background work.
func (v *Model) Init() tea.Cmd { return nil }

// Update scrolls the pane by the scroll keys and the mouse wheel.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		v.pane.ScrollKey(msg, v.c.Scroll)
	case tea.MouseMsg:
		v.pane.ScrollMouse(msg)
	}
	return nil
}

// View renders the pane at w×h, laying the table out again when the size changed.
func (v *Model) View(w, h int) []string {
	if w != v.w || h != v.h {
		v.w, v.h = w, h
		v.pane.SetSize(w, h)
		v.relayout()
	}
	return v.pane.View()
}

// Keys are the help bar's bindings.
func (v *Model) Keys() []key.Binding {
	return []key.Binding{key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", v.c.Tr.BarScroll)), v.c.Scroll.PageDown}
}

// Title is the header's name and hint.
func (v *Model) Title() (string, string) { return v.c.Tr.ViewGlossaryTitle, v.c.Tr.ViewGlossaryHint }

func (v *Model) relayout() {
	w := v.pane.Inner() - 1 // one space of margin on the left
	if w <= 0 {
		v.pane.SetLines(nil)
		return
	}
	st, tr := v.c.Styles, v.c.Tr
	var lines []string
	add := func(l string) { lines = append(lines, " "+l) }
	for _, l := range common.WrapLines(st.Lane.Dim.Render(tr.GlossaryIntro), w) {
		add(l)
	}
	add("")
	if v.err != nil {
		for _, l := range common.WrapLines(st.Lane.Stopped.Render(fmt.Sprintf(tr.GlossaryError, v.err)), w) {
			add(l)
		}
		v.pane.SetLines(lines)
		return
	}
	// Column widths: each term column as wide as its widest term, within a share of the line,
	// and the note gets the rest (or, when too narrow, goes under the terms).
	enW, zhW := ansi.StringWidth(tr.GlossaryEnglish), ansi.StringWidth(tr.GlossaryChinese)
	for _, t := range v.terms {
		enW = max(enW, ansi.StringWidth(t.English))
		zhW = max(zhW, ansi.StringWidth(t.Chinese))
	}
	enW, zhW = min(enW, w*35/100), min(zhW, w*30/100)
	const gap = 2
	noteW := w - enW - zhW - 2*gap
	stacked := noteW < 16
	if stacked {
		noteW = w - 4
	}
	row := func(en, zh, note string, style func(...string) string) {
		ens, zhs := common.WrapLines(en, enW), common.WrapLines(zh, zhW)
		var notes []string
		if !stacked {
			notes = common.WrapLines(note, noteW)
		}
		for i := range max(len(ens), len(zhs), len(notes)) {
			cell := func(ls []string, i, w int) string {
				if i < len(ls) {
					return common.Fit(ls[i], w)
				}
				return common.Fit("", w)
			}
			l := cell(ens, i, enW) + "  " + cell(zhs, i, zhW)
			if i < len(notes) {
				l += "  " + notes[i]
			}
			add(style(l))
		}
		if stacked && note != "" {
			for _, l := range common.WrapLines(note, noteW) {
				add("    " + st.Lane.Dim.Render(l))
			}
		}
	}
	// under each term, indented: its definition, and the Chinese variants kubewalk does not use
	more := func(t i18n.Term) {
		lines := []string{t.Definition}
		if len(t.Rejected) > 0 {
			lines = append(lines, fmt.Sprintf(tr.GlossaryRejected, strings.Join(t.Rejected, "、")))
		}
		for _, m := range lines {
			for _, l := range common.WrapLines(m, w-4) {
				add("    " + st.Lane.Dim.Render(l))
			}
		}
	}
	noteHead := tr.GlossaryNote
	if stacked {
		noteHead = ""
	}
	row(tr.GlossaryEnglish, tr.GlossaryChinese, noteHead, st.Lane.Heading.Render)
	for _, t := range v.terms {
		row(t.English, t.Chinese, t.Note, st.Lane.Text.Render)
		more(t)
	}
	v.pane.SetTitle(tr.PaneGlossary, "", fmt.Sprintf("%d", len(v.terms)))
	v.pane.SetLines(lines)
}
