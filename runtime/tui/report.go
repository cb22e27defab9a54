package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// isReportText reports whether runes could be the body of a terminal's colour report
// ("11;rgb:0000/0000/0000").
func isReportText(runes []rune) bool {
	for _, r := range runes {
		if !strings.ContainsRune("0123456789abcdefABCDEF;:/rgb", r) {
			return false
		}
	}
	return len(runes) > 0
}

// lateReport swallows a terminal's answer to a query that arrived after the query gave up
// waiting (lipgloss asks for the background colour at start; on a busy machine or a slow SSH
// link the answer comes later). bubbletea v1 does not parse OSC answers: ESC ] 11;rgb:…
// ESC \ arrives as alt+], the body as runes, then alt+\. Without this, the body's runes would
// be taken for keys — ':' opens the command line and what follows is typed into it. Only a
// body that looks like a report is swallowed: any other key ends it and is handled.
func (m *model) lateReport(msg tea.KeyMsg) bool {
	switch {
	case msg.Type == tea.KeyRunes && msg.Alt && string(msg.Runes) == "]":
		m.inReport = true
		return true
	case !m.inReport:
		return false
	case msg.Type == tea.KeyRunes && msg.Alt && string(msg.Runes) == "\\", msg.Type == tea.KeyCtrlG:
		m.inReport = false // the terminator: ST or BEL
		return true
	case msg.Type == tea.KeyRunes && !msg.Alt && isReportText(msg.Runes):
		return true
	}
	m.inReport = false
	return false
}
