package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
)

// TestProjectorGolden: the projector theme at 80×24 and 120×40, in English and Chinese, with
// colour (the golden keeps the escape codes) and under NO_COLOR (Ascii: no escape codes at
// all, so the larger chain markers [✓] [▶] [ ] and the status words carry every state).
func TestProjectorGolden(t *testing.T) {
	tests := []struct {
		name    string
		w, h    int
		content Content
		color   bool
	}{
		{"en_80x24", 80, 24, fakeContent{}, true},
		{"en_120x40", 120, 40, fakeContent{}, true},
		{"zh_80x24", 80, 24, fakeContent{zh: true}, true},
		{"zh_120x40", 120, 40, fakeContent{zh: true}, true},
		{"en_80x24_nocolor", 80, 24, fakeContent{}, false},
		{"en_120x40_nocolor", 120, 40, fakeContent{}, false},
		{"zh_80x24_nocolor", 80, 24, fakeContent{zh: true}, false},
		{"zh_120x40_nocolor", 120, 40, fakeContent{zh: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.color {
				lipgloss.SetColorProfile(termenv.ANSI256)
				t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
			}
			hs := newHarnessOpts(t, tt.w, tt.h, tt.content, nil, Options{GlamourStyle: "notty", Styles: ProjectorStyles()})
			hs.keys("2", " ")
			frame := hs.model.View()
			plain := hs.view()
			for _, mark := range []string{"[✓] config", "[▶] authn", "[ ] serve"} {
				if !strings.Contains(plain, mark) {
					t.Errorf("the chain lacks %q:\n%s", mark, plain)
				}
			}
			if !tt.color && strings.Contains(frame, "\x1b[38;") {
				t.Error("NO_COLOR frame has colours")
			}
			golden.RequireEqual(t, []byte(frame))
		})
	}
}

// TestThemeStyles: every theme --theme offers has styles; an unknown one is refused.
func TestThemeStyles(t *testing.T) {
	for _, name := range append([]string{""}, Themes...) {
		if s, ok := ThemeStyles(name); !ok || s == nil {
			t.Errorf("ThemeStyles(%q) = %v, %v", name, s, ok)
		}
	}
	if _, ok := ThemeStyles("neon"); ok {
		t.Error(`ThemeStyles("neon") is accepted`)
	}
}
