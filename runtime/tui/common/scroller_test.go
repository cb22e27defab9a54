package common

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// lines is a Scroller over n lines with a page of 5.
type lines struct{ n, at int }

func (l *lines) Scroll(d int) { l.at = max(min(l.at+d, l.n-1), 0) }
func (l *lines) Page() int    { return 5 }

// TestScrollKeyOf: each scroll key moves a Scroller by a line, a page or to an end; another
// key is not one of them.
func TestScrollKeyOf(t *testing.T) {
	k := NewScrollKeys(i18n.For(i18n.English))
	cases := []struct {
		key    tea.KeyMsg
		from   int
		to     int
		scroll bool
	}{
		{tea.KeyMsg{Type: tea.KeyDown}, 3, 4, true},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("k")}, 3, 2, true},
		{tea.KeyMsg{Type: tea.KeyPgDown}, 3, 8, true},
		{tea.KeyMsg{Type: tea.KeyPgUp}, 3, 0, true},
		{tea.KeyMsg{Type: tea.KeyEnd}, 3, 19, true},
		{tea.KeyMsg{Type: tea.KeyHome}, 3, 0, true},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")}, 3, 3, false},
	}
	for _, tt := range cases {
		l := &lines{n: 20, at: tt.from}
		if got := ScrollKeyOf(tt.key, k, l); got != tt.scroll || l.at != tt.to {
			t.Errorf("%s from %d: scrolled %v to %d, want %v to %d", tt.key, tt.from, got, l.at, tt.scroll, tt.to)
		}
	}
}
