package glossary

import (
	"fmt"
	"os"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

func TestMain(m *testing.M) {
	// NO_COLOR, as the TUI's goldens: no colour, a dark background for adaptive colours.
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
	os.Exit(m.Run())
}

func newView(lang string) *Model {
	tr := i18n.For(lang)
	return New(common.Common{Styles: common.DefaultStyles(), Tr: tr, Scroll: common.NewScrollKeys(tr)})
}

func keyMsg(s string) tea.KeyMsg {
	switch s {
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)}
}

// TestGolden: the view alone at 80×24 and 120×40, in English and Chinese, with NO_COLOR, at
// the top, a page down and at the end; every frame exactly w×h. -update rewrites the files.
func TestGolden(t *testing.T) {
	for _, lang := range i18n.Languages() {
		for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
			for _, tt := range []struct {
				name string
				keys []string
			}{{"top", nil}, {"page", []string{"pgdown"}}, {"end", []string{"G"}}} {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					v := newView(lang)
					v.View(sz.w, sz.h)
					for _, k := range tt.keys {
						if cmd := v.Update(keyMsg(k)); cmd != nil {
							t.Errorf("%s returned a command", k)
						}
					}
					lines := v.View(sz.w, sz.h)
					if len(lines) != sz.h {
						t.Errorf("%d lines, want %d", len(lines), sz.h)
					}
					for i, l := range lines {
						if w := lipgloss.Width(l); w != sz.w {
							t.Errorf("line %d is %d cells, want %d: %q", i, w, sz.w, l)
						}
					}
					frame := strings.Join(lines, "\n")
					if strings.Contains(frame, "\x1b[") {
						t.Error("NO_COLOR frame has escape sequences")
					}
					golden.RequireEqual(t, []byte(frame))
				})
			}
		}
	}
}

// TestScrollAndResize: keys and the wheel move the table, keys that are not the view's do
// nothing, and a new size lays the table out again for the new width.
func TestScrollAndResize(t *testing.T) {
	first := func(v *Model, w, h int) string { return v.View(w, h)[1] }
	tests := []struct {
		name  string
		msgs  []tea.Msg
		moved bool
	}{
		{"down", []tea.Msg{keyMsg("down")}, true},
		{"j", []tea.Msg{keyMsg("j")}, true},
		{"page", []tea.Msg{keyMsg("f")}, true},
		{"wheel", []tea.Msg{tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress}}, true},
		{"wheel back", []tea.Msg{
			tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress},
			tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress}}, false},
		{"other key", []tea.Msg{keyMsg("x")}, false},
		{"top", []tea.Msg{keyMsg("G"), keyMsg("g")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newView(i18n.English)
			top := first(v, 80, 24)
			for _, m := range tt.msgs {
				v.Update(m)
			}
			if moved := first(v, 80, 24) != top; moved != tt.moved {
				t.Errorf("moved = %v, want %v", moved, tt.moved)
			}
		})
	}
	v := newView(i18n.English)
	narrow := strings.Join(v.View(80, 24), "\n")
	if wide := v.View(120, 24); lipgloss.Width(wide[0]) != 120 || strings.Join(wide, "\n") == narrow {
		t.Error("the view was not laid out again for 120 columns")
	}
}

// TestKeysAndTitle: the help bar names scrolling and paging, the header the view, in the
// learner's language.
func TestKeysAndTitle(t *testing.T) {
	for _, lang := range i18n.Languages() {
		tr := i18n.For(lang)
		v := newView(lang)
		name, hint := v.Title()
		if name != tr.ViewGlossaryTitle || hint != tr.ViewGlossaryHint {
			t.Errorf("%s: title %q, %q", lang, name, hint)
		}
		var help []string
		for _, k := range v.Keys() {
			help = append(help, k.Help().Desc)
		}
		if want := []string{tr.BarScroll, tr.KeyPageDown}; strings.Join(help, "|") != strings.Join(want, "|") {
			t.Errorf("%s: keys %q, want %q", lang, help, want)
		}
	}
}
