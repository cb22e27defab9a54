package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// glossaryView is the :glossary view: the terms kubewalk uses (content/glossary.md, embedded
// and parsed when the screen is built), English, Chinese and the note side by side in columns
// sized in terminal cells, each cell wrapped within its column, and under each term, indented,
// its English definition and the Chinese variants kubewalk does not use; one scrollable pane.
type glossaryView struct {
	st    *Styles
	tr    *i18n.Strings
	pane  *textPane
	terms []i18n.Term
	err   error
}

func newGlossaryView(st *Styles, tr *i18n.Strings) *glossaryView {
	terms, err := i18n.Glossary()
	v := &glossaryView{st: st, tr: tr, pane: newTextPane(st, tr, tr.PaneGlossary), terms: terms, err: err}
	v.pane.SetFocused(true)
	return v
}

// SetSize sets the pane's size and lays the table out for it.
func (v *glossaryView) SetSize(w, h int) {
	v.pane.SetSize(w, h)
	v.relayout()
}

// View renders the pane.
func (v *glossaryView) View() []string { return v.pane.View() }

func (v *glossaryView) relayout() {
	w := v.pane.Inner() - 1 // one space of margin on the left
	if w <= 0 {
		v.pane.SetLines(nil)
		return
	}
	st := v.st
	var lines []string
	add := func(l string) { lines = append(lines, " "+l) }
	for _, l := range wrapLines(st.Lane.Dim.Render(v.tr.GlossaryIntro), w) {
		add(l)
	}
	add("")
	if v.err != nil {
		for _, l := range wrapLines(st.Lane.Stopped.Render(fmt.Sprintf(v.tr.GlossaryError, v.err)), w) {
			add(l)
		}
		v.pane.SetLines(lines)
		return
	}
	// Column widths: each term column as wide as its widest term, within a share of the line,
	// and the note gets the rest (or, when too narrow, goes under the terms).
	enW, zhW := ansi.StringWidth(v.tr.GlossaryEnglish), ansi.StringWidth(v.tr.GlossaryChinese)
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
		ens, zhs := wrapLines(en, enW), wrapLines(zh, zhW)
		var notes []string
		if !stacked {
			notes = wrapLines(note, noteW)
		}
		for i := range max(len(ens), len(zhs), len(notes)) {
			cell := func(ls []string, i, w int) string {
				if i < len(ls) {
					return fit(ls[i], w)
				}
				return fit("", w)
			}
			l := cell(ens, i, enW) + "  " + cell(zhs, i, zhW)
			if i < len(notes) {
				l += "  " + notes[i]
			}
			add(style(l))
		}
		if stacked && note != "" {
			for _, l := range wrapLines(note, noteW) {
				add("    " + st.Lane.Dim.Render(l))
			}
		}
	}
	// under each term, indented: its definition, and the Chinese variants kubewalk does not use
	more := func(t i18n.Term) {
		lines := []string{t.Definition}
		if len(t.Rejected) > 0 {
			lines = append(lines, fmt.Sprintf(v.tr.GlossaryRejected, strings.Join(t.Rejected, "、")))
		}
		for _, m := range lines {
			for _, l := range wrapLines(m, w-4) {
				add("    " + st.Lane.Dim.Render(l))
			}
		}
	}
	noteHead := v.tr.GlossaryNote
	if stacked {
		noteHead = ""
	}
	row(v.tr.GlossaryEnglish, v.tr.GlossaryChinese, noteHead, st.Lane.Heading.Render)
	for _, t := range v.terms {
		row(t.English, t.Chinese, t.Note, st.Lane.Text.Render)
		more(t)
	}
	v.pane.SetTitle(v.tr.PaneGlossary, "", fmt.Sprintf("%d", len(v.terms)))
	v.pane.SetLines(lines)
}

// glossaryKey scrolls the glossary.
func (m *model) glossaryKey(msg tea.KeyMsg) {
	k, p := m.keys, m.gl.pane
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
		p.Scroll(1 << 30)
	}
}
