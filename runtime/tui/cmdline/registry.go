// Package cmdline is the TUI's : command line, as in k9s: one table of commands (Registry) that
// the prompt's suggestions, the :help box and the running of a line all read, and the prompt
// itself (Prompt). The root (runtime/tui) builds the table once: its own commands, and those a
// view package offers through view.Commander, each where the help lists it.
//
// A command is a row: its name and aliases, the usage of its arguments, what it does (in the
// learner's language), whether it is offered now, how its arguments complete, and what it runs.
package cmdline

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// Suggestion is one completion of the word being typed.
type Suggestion struct {
	Text string // replaces the word
	Desc string // shown beside it
	// Open is set when more may follow without a space (a "user=", an etcd key's "/registry/").
	Open bool
}

// Words are ws as suggestions, each described by desc.
func Words(ws []string, desc string) []Suggestion {
	out := make([]Suggestion, len(ws))
	for i, w := range ws {
		out[i] = Suggestion{Text: w, Desc: desc}
	}
	return out
}

// Action is what running a command did.
type Action struct {
	// Cmd is started after the line ran (nil: nothing).
	Cmd tea.Cmd
	// Show switches the screen to the view that offers the command (view.Commander); the
	// root's own commands switch the screen themselves.
	Show bool
	// Problem is why the line cannot run: it stays in the prompt with the reason, nothing
	// typed is lost. Cmd and Show are ignored then.
	Problem string
}

// Command is one : command: a row of the table.
type Command struct {
	Name    string
	Aliases []string
	// Args is the arguments' usage ("ARGS", "[KEY]"), "" when it takes none (a line with
	// arguments is refused then).
	Args string
	// Desc says what it does, in tr's language.
	Desc func(tr *i18n.Strings) string
	// Offered reports whether the suggestions and :help list it now (nil: always). A command
	// not offered still runs when typed in full, and says itself why it cannot.
	Offered func() bool
	// Complete suggests the word being typed after the arguments before it (nil: none). What
	// it returns is kept when it starts with word and is not word itself.
	Complete func(args []string, word string) []Suggestion
	// Run runs the command with the rest of the line (trimmed).
	Run func(args string) Action
}

// Usage is the command as the suggestions and the help show it: ":kubectl (:k) ARGS".
func (c Command) Usage() string {
	s := ":" + c.Name
	for _, a := range c.Aliases {
		s += " (:" + a + ")"
	}
	if c.Args != "" {
		s += " " + c.Args
	}
	return s
}

func (c Command) offered() bool { return c.Offered == nil || c.Offered() }

// Registry is the table of : commands, in the order the suggestions and :help list them.
type Registry struct {
	tr   *i18n.Strings
	cmds []Command
}

// New makes the table of cmds, described in tr's language. A name or alias used twice is a
// programming error: New panics, so the test of any screen finds it.
func New(tr *i18n.Strings, cmds ...Command) *Registry {
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			if seen[n] {
				panic(fmt.Sprintf("cmdline: :%s is in the table twice", n))
			}
			seen[n] = true
		}
		if c.Run == nil || c.Desc == nil {
			panic(fmt.Sprintf("cmdline: :%s has no Run or no Desc", c.Name))
		}
	}
	return &Registry{tr: tr, cmds: cmds}
}

// Lookup finds a command by name or alias, offered or not.
func (r *Registry) Lookup(name string) (Command, bool) {
	for _, c := range r.cmds {
		if c.Name == name {
			return c, true
		}
		for _, a := range c.Aliases {
			if a == name {
				return c, true
			}
		}
	}
	return Command{}, false
}

// Offered are the commands listed now, in order.
func (r *Registry) Offered() []Command {
	var out []Command
	for _, c := range r.cmds {
		if c.offered() {
			out = append(out, c)
		}
	}
	return out
}

// Run runs a command line (with or without its ":"): the command's action, or the reason it
// cannot run. An empty line does nothing.
func (r *Registry) Run(line string) Action {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	if line == "" {
		return Action{}
	}
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	c, ok := r.Lookup(name)
	if !ok {
		return Action{Problem: fmt.Sprintf(r.tr.CmdUnknown, name)}
	}
	if rest != "" && c.Args == "" {
		return Action{Problem: fmt.Sprintf(r.tr.CmdNoArgs, c.Name)}
	}
	return c.Run(rest)
}

// Complete returns where the word before the cursor starts and its suggestions: the commands
// offered while the first word is typed, then what the command's Complete suggests.
func (r *Registry) Complete(input []rune, cur int) (from int, out []Suggestion) {
	line := string(input[:cur])
	if !strings.ContainsAny(line, " \t") {
		word := strings.TrimSpace(line)
		for _, c := range r.Offered() {
			for _, n := range append([]string{c.Name}, c.Aliases...) {
				if strings.HasPrefix(n, word) {
					desc := c.Desc(r.tr)
					if u := strings.TrimSpace(strings.TrimPrefix(c.Usage(), ":"+c.Name)); u != "" {
						desc = u + " — " + desc
					}
					out = append(out, Suggestion{Text: c.Name, Desc: desc})
					break
				}
			}
		}
		return 0, out
	}
	fields := strings.Fields(line)
	word := ""
	if !strings.HasSuffix(line, " ") {
		word = fields[len(fields)-1]
		fields = fields[:len(fields)-1]
	}
	from = cur - len([]rune(word))
	c, ok := r.Lookup(fields[0])
	if !ok || c.Complete == nil {
		return from, nil
	}
	for _, s := range c.Complete(fields[1:], word) {
		if strings.HasPrefix(s.Text, word) && s.Text != word {
			out = append(out, s)
		}
	}
	return from, out
}

// HelpLines are the commands offered as :help lists them: the usage, then what each does.
func (r *Registry) HelpLines(st *common.Styles) []string {
	cmds := r.Offered()
	w := 0
	for _, c := range cmds {
		w = max(w, ansi.StringWidth(c.Usage()))
	}
	lines := make([]string, 0, len(cmds))
	for _, c := range cmds {
		lines = append(lines, "  "+st.Help.FullKey.Render(common.Fit(c.Usage(), w))+"  "+st.Help.FullDesc.Render(c.Desc(r.tr)))
	}
	return lines
}
