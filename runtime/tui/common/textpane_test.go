package common

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
)

// output is n lines as a kubectl get -w prints them.
func output(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("cm-%05d   1      %ds   default   created by kubewalk", i, i%90)
	}
	return lines
}

// BenchmarkTextPaneSetLines is the kubectl pane taking 5,000 lines of output (see TextPane).
func BenchmarkTextPaneSetLines(b *testing.B) {
	p := NewTextPane(DefaultStyles(), "kubectl")
	p.SetSize(120, 40)
	p.SetTail()
	lines := output(5000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		p.SetLines(lines)
	}
}

// BenchmarkViewportSetContent is the same with bubbles' viewport, which TextPane does not use
// for this reason.
func BenchmarkViewportSetContent(b *testing.B) {
	v := viewport.New(118, 38)
	lines := output(5000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		v.SetContent(strings.Join(lines, "\n"))
		v.GotoBottom()
	}
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgup":
		return tea.KeyMsg{Type: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// TestTextPaneScroll: the keys and the wheel move the offset within the lines, a page keeps
// two lines of context, and a tail pane stops following when scrolled up and follows again at
// the end.
func TestTextPaneScroll(t *testing.T) {
	k := ScrollKeys{
		Up:       key.NewBinding(key.WithKeys("up")),
		Down:     key.NewBinding(key.WithKeys("down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup")),
		PageDown: key.NewBinding(key.WithKeys("pgdown")),
		Top:      key.NewBinding(key.WithKeys("g")),
		Bottom:   key.NewBinding(key.WithKeys("G")),
	}
	wheel := func(b tea.MouseButton) tea.MouseMsg { return tea.MouseMsg{Button: b, Action: tea.MouseActionPress} }
	tests := []struct {
		name   string
		tail   bool
		keys   []string
		wheel  []tea.MouseButton
		offset int
		follow bool
	}{
		{name: "down", keys: []string{"down", "down"}, offset: 2},
		{name: "up at top", keys: []string{"up"}, offset: 0},
		{name: "page", keys: []string{"pgdown"}, offset: 8}, // 12 rows: 10 visible, 8 a page
		{name: "page up", keys: []string{"pgdown", "pgdown", "pgup"}, offset: 8},
		{name: "bottom", keys: []string{"G"}, offset: 90},
		{name: "past bottom", keys: []string{"G", "down"}, offset: 90},
		{name: "top", keys: []string{"G", "g"}, offset: 0},
		{name: "wheel", wheel: []tea.MouseButton{tea.MouseButtonWheelDown, tea.MouseButtonWheelDown, tea.MouseButtonWheelUp}, offset: 3},
		{name: "tail follows", tail: true, offset: 90, follow: true},
		{name: "tail scrolled up", tail: true, keys: []string{"up"}, offset: 89},
		{name: "tail back at end", tail: true, keys: []string{"up", "G"}, offset: 90, follow: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewTextPane(DefaultStyles(), "pane")
			if tt.tail {
				p.SetTail()
			}
			p.SetSize(40, 12)
			p.SetLines(output(100))
			for _, s := range tt.keys {
				if !p.ScrollKey(keyMsg(s), k) {
					t.Fatalf("%s not taken", s)
				}
			}
			for _, b := range tt.wheel {
				if !p.ScrollMouse(wheel(b)) {
					t.Fatalf("wheel %v not taken", b)
				}
			}
			if p.Offset() != tt.offset {
				t.Errorf("offset %d, want %d", p.Offset(), tt.offset)
			}
			if tt.tail {
				p.SetLines(output(101))
				want := tt.offset
				if tt.follow {
					want = 91
				}
				if p.Offset() != want {
					t.Errorf("after a line more: offset %d, want %d", p.Offset(), want)
				}
			}
			if v := p.View(); len(v) != 12 || !strings.Contains(v[1], fmt.Sprintf("cm-%05d", p.Offset())) {
				t.Errorf("view does not start at line %d: %q", p.Offset(), v[1])
			}
			if p.ScrollKey(keyMsg("x"), k) {
				t.Error("x taken as a scroll key")
			}
		})
	}
}
