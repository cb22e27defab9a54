package cmdline

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// table is a small table: what ran is recorded in ran.
func table(ran *[]string, host *bool) *Registry {
	desc := func(s string) func(*i18n.Strings) string { return func(*i18n.Strings) string { return s } }
	run := func(name string) func(string) Action {
		return func(args string) Action {
			*ran = append(*ran, name+"("+args+")")
			if args == "bad" {
				return Action{Problem: "bad argument"}
			}
			return Action{Show: name == "view"}
		}
	}
	return New(i18n.For("en"),
		Command{Name: "requests", Aliases: []string{"req"}, Args: "[all]", Desc: desc("the requests"), Run: run("requests"),
			Complete: func(args []string, _ string) []Suggestion {
				if len(args) > 0 {
					return nil
				}
				return Words([]string{"all", "alles"}, "show all")
			}},
		Command{Name: "view", Args: "[KEY]", Desc: desc("a view's"), Run: run("view")},
		Command{Name: "help", Desc: desc("every key"), Run: run("help")},
		Command{Name: "board", Desc: desc("the class"), Run: run("board"), Offered: func() bool { return *host }},
	)
}

// TestRegistryRuns: a line runs its command by name or alias, with its arguments; an unknown
// name or arguments to a command that takes none are refused without running anything.
func TestRegistryRuns(t *testing.T) {
	en := i18n.For("en")
	for _, tt := range []struct {
		line, ran, problem string
		show               bool
	}{
		{"", "", "", false},
		{"  :  ", "", "", false},
		{"requests", "requests()", "", false},
		{":req  all ", "requests(all)", "", false},
		{"view /registry/x", "view(/registry/x)", "", true},
		{"view bad", "view(bad)", "bad argument", false},
		{"board", "board()", "", false}, // not offered, still runs: it says why itself
		{"nope", "", fmt.Sprintf(en.CmdUnknown, "nope"), false},
		{"help me", "", fmt.Sprintf(en.CmdNoArgs, "help"), false},
	} {
		t.Run(tt.line, func(t *testing.T) {
			var ran []string
			host := false
			a := table(&ran, &host).Run(tt.line)
			if got := strings.Join(ran, ","); got != tt.ran || a.Problem != tt.problem || a.Show != tt.show {
				t.Errorf("Run(%q): ran %q, %+v; want ran %q, problem %q, show %v", tt.line, got, a, tt.ran, tt.problem, tt.show)
			}
		})
	}
}

// TestRegistryCompletes: the first word completes to the commands offered (with the usage in
// the description), later words to what the command suggests, kept when they extend the word.
func TestRegistryCompletes(t *testing.T) {
	for _, tt := range []struct {
		line string
		host bool
		from int
		want []string
	}{
		{"", false, 0, []string{"requests", "view", "help"}},
		{"", true, 0, []string{"requests", "view", "help", "board"}},
		{"re", false, 0, []string{"requests"}},
		{"b", false, 0, nil},
		{"requests ", false, 9, []string{"all", "alles"}},
		{"req al", false, 4, []string{"all", "alles"}},
		{"req all", false, 4, []string{"alles"}},
		{"req all ", false, 8, nil},
		{"view x", false, 5, nil},
		{"nope x", false, 5, nil},
	} {
		t.Run(fmt.Sprintf("%q host %v", tt.line, tt.host), func(t *testing.T) {
			var ran []string
			host := tt.host
			from, out := table(&ran, &host).Complete([]rune(tt.line), len([]rune(tt.line)))
			var got []string
			for _, s := range out {
				got = append(got, s.Text)
			}
			if from != tt.from || !slices.Equal(got, tt.want) {
				t.Errorf("Complete(%q) = %d %q, want %d %q", tt.line, from, got, tt.from, tt.want)
			}
			if len(ran) > 0 {
				t.Errorf("completing ran %q", ran)
			}
		})
	}
	var ran []string
	host := false
	if _, out := table(&ran, &host).Complete([]rune("req"), 3); len(out) != 1 || out[0].Desc != "(:req) [all] — the requests" {
		t.Errorf("a command's suggestion is described %+v, want its usage then what it does", out)
	}
}

// TestRegistryHelp: :help lists the commands offered, usage and description in columns.
func TestRegistryHelp(t *testing.T) {
	var ran []string
	for _, host := range []bool{false, true} {
		lines := table(&ran, &host).HelpLines(common.DefaultStyles())
		want := []string{
			"  :requests (:req) [all]  the requests",
			"  :view [KEY]             a view's",
			"  :help                   every key",
		}
		if host {
			want = append(want, "  :board                  the class")
		}
		var got []string
		for _, l := range lines {
			got = append(got, ansi.Strip(l))
		}
		if !slices.Equal(got, want) {
			t.Errorf("host %v: help\n%s\nwant\n%s", host, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestRegistryRefusesTwice: a name or alias in the table twice, or a row without Run, is a
// programming error caught when the table is made.
func TestRegistryRefusesTwice(t *testing.T) {
	run := func(string) Action { return Action{} }
	desc := func(*i18n.Strings) string { return "" }
	for _, tt := range []struct {
		name string
		cmds []Command
	}{
		{"a name twice", []Command{{Name: "a", Run: run, Desc: desc}, {Name: "a", Run: run, Desc: desc}}},
		{"an alias as a name", []Command{{Name: "a", Aliases: []string{"b"}, Run: run, Desc: desc}, {Name: "b", Run: run, Desc: desc}}},
		{"no Run", []Command{{Name: "a", Desc: desc}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New accepted it")
				}
			}()
			New(i18n.For("en"), tt.cmds...)
		})
	}
}

// TestPromptTab: tab takes the one suggestion (a space after it), cycles through several,
// shift+tab goes back; enter reports the line to run; a refused line keeps its reason until
// the next edit.
func TestPromptTab(t *testing.T) {
	var ran []string
	host := false
	p := NewPrompt(table(&ran, &host))
	p.Open()
	typeKeys := func(s string) {
		for _, r := range s {
			p.Key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		}
	}
	tab := func(typ tea.KeyType) { p.Key(tea.KeyMsg{Type: typ}) }
	typeKeys("re")
	tab(tea.KeyTab)
	if p.Line() != "requests " {
		t.Fatalf("one suggestion: %q, want %q", p.Line(), "requests ")
	}
	tab(tea.KeyTab)
	tab(tea.KeyTab)
	if p.Line() != "requests alles" {
		t.Errorf("tab twice: %q", p.Line())
	}
	tab(tea.KeyShiftTab)
	if p.Line() != "requests all" {
		t.Errorf("shift+tab: %q", p.Line())
	}
	if run, _ := p.Key(tea.KeyMsg{Type: tea.KeyEnter}); !run {
		t.Error("enter did not report a line to run")
	}
	p.Fail("no")
	if p.Err() != "no" || !p.IsOpen() {
		t.Errorf("a refused line: err %q open %v", p.Err(), p.IsOpen())
	}
	typeKeys("x")
	if p.Err() != "" {
		t.Errorf("an edit kept the reason %q", p.Err())
	}
	p.Ran(p.Line())
	if p.IsOpen() {
		t.Error("the prompt stays open after the line ran")
	}
	p.Open()
	p.Key(tea.KeyMsg{Type: tea.KeyUp})
	if p.Line() != "requests allx" {
		t.Errorf("↑ brings %q, want the line run", p.Line())
	}
}
