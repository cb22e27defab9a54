package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestCoalescedKeys: keys that reach the program in one read (a fast typist over SSH, a busy
// machine) arrive as one KeyRunes; outside a text line each still does what it does alone,
// inside one they are typed, and a paste is never taken for keys.
func TestCoalescedKeys(t *testing.T) {
	tests := []struct {
		name     string
		msg      tea.KeyMsg
		quit     bool
		prompt   bool
		input    string
		help     bool
		atPaused string
	}{
		{"help then quit", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?q")}, true, false, "", true, cpID(0)},
		{"command line and its text", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":msg")}, false, true, "msg", false, cpID(0)},
		{"a step then help", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("n?")}, false, false, "", true, cpID(1)},
		{"a paste is not keys", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("?q"), Paste: true}, false, false, "", false, cpID(0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
			hs.send(tt.msg)
			hs.settle()
			m := hs.model.m
			if hs.quit != tt.quit {
				t.Errorf("quit = %v, want %v", hs.quit, tt.quit)
			}
			if m.prompt.open != tt.prompt || string(m.prompt.input) != tt.input {
				t.Errorf("command line open %v with %q, want %v with %q", m.prompt.open, string(m.prompt.input), tt.prompt, tt.input)
			}
			if m.showHelp != tt.help {
				t.Errorf("help shown %v, want %v", m.showHelp, tt.help)
			}
			if !tt.quit && m.live().Checkpoint.ID() != tt.atPaused {
				t.Errorf("paused at %s, want %s", m.live().Checkpoint.ID(), tt.atPaused)
			}
		})
	}
}
