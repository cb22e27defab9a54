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
			if m.prompt.IsOpen() != tt.prompt || m.prompt.Line() != tt.input {
				t.Errorf("command line open %v with %q, want %v with %q", m.prompt.IsOpen(), m.prompt.Line(), tt.prompt, tt.input)
			}
			if m.showHelp != tt.help {
				t.Errorf("help shown %v, want %v", m.showHelp, tt.help)
			}
			if !tt.quit && m.tour.Live().Checkpoint.ID() != tt.atPaused {
				t.Errorf("paused at %s, want %s", m.tour.Live().Checkpoint.ID(), tt.atPaused)
			}
		})
	}
}

// TestLateTerminalReport: a terminal's answer to the start-up colour query that arrives late
// (busy machine, slow SSH link) reaches bubbletea as alt+], the body as runes, then alt+\ (or
// BEL). It must not be taken for keys — its ':' would open the command line and swallow the
// learner's next key — and the keys after it still work; alt+] followed by an ordinary key is
// that key.
func TestLateTerminalReport(t *testing.T) {
	alt := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Alt: true} }
	runes := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
	tests := []struct {
		name     string
		msgs     []tea.KeyMsg
		atPaused string
		help     bool
	}{
		{"answer ended by ST, then n", []tea.KeyMsg{alt("]"), runes("11;rgb:0000/0000/0000"), alt("\\"), runes("n")}, cpID(1), false},
		{"answer ended by BEL, then n", []tea.KeyMsg{alt("]"), runes("11;rgb:ffff/ffff/ffff"), {Type: tea.KeyCtrlG}, runes("n")}, cpID(1), false},
		{"answer and n in one read", []tea.KeyMsg{alt("]"), runes("11;rgb:0000/0000/0000"), alt("\\"), runes("n?")}, cpID(1), true},
		{"alt+] then an ordinary key", []tea.KeyMsg{alt("]"), runes("?")}, cpID(0), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
			for _, msg := range tt.msgs {
				hs.send(msg)
				hs.settle()
			}
			m := hs.model.m
			if m.prompt.IsOpen() {
				t.Errorf("the report opened the command line with %q", m.prompt.Line())
			}
			if m.tour.Live().Checkpoint.ID() != tt.atPaused {
				t.Errorf("paused at %s, want %s", m.tour.Live().Checkpoint.ID(), tt.atPaused)
			}
			if m.showHelp != tt.help {
				t.Errorf("help shown %v, want %v", m.showHelp, tt.help)
			}
		})
	}
}
