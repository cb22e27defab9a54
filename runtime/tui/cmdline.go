package tui

import (
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

// The : command line, as in k9s: ":" opens a prompt on the bottom line; suggestions for the
// word being typed show above it; tab completes (again: the next suggestion, shift+tab the
// previous); ↑/↓ go through the lines run before; enter runs; esc backs out. A line that cannot
// run (an unknown command, a kubectl line a shell would be needed for, a bad breakpoint) stays
// in the prompt with the reason, so nothing typed is lost.

// command is one : command.
type command struct {
	name    string
	aliases []string
	args    string                     // the arguments' usage, "" when it takes none
	descOf  func(*i18n.Strings) string // what it does
}

// desc says what the command does, in tr's language.
func (c command) desc(tr *i18n.Strings) string { return c.descOf(tr) }

// commands are the : commands, in the order ? lists them.
var commands = []command{
	{"requests", []string{"req"}, "[all]", func(t *i18n.Strings) string { return t.CmdRequests }},
	{"kubectl", []string{"k"}, "ARGS", func(t *i18n.Strings) string { return t.CmdKubectl }},
	{"etcd", nil, "", func(t *i18n.Strings) string { return t.CmdEtcd }},
	{"break", nil, "[SPEC]", func(t *i18n.Strings) string { return t.CmdBreak }},
	{"unbreak", nil, "SPEC", func(t *i18n.Strings) string { return t.CmdUnbreak }},
	{"clear", nil, "", func(t *i18n.Strings) string { return t.CmdClear }},
	{"lesson", []string{"tour"}, "", func(t *i18n.Strings) string { return t.CmdLesson }},
	{"track", nil, "[N]", func(t *i18n.Strings) string { return t.CmdTrack }},
	{"glossary", []string{"gl"}, "", func(t *i18n.Strings) string { return t.CmdGlossary }},
	{"exercises", []string{"ex"}, "", func(t *i18n.Strings) string { return t.CmdExercises }},
	{"help", nil, "", func(t *i18n.Strings) string { return t.CmdHelp }},
	{"quit", []string{"q"}, "", func(t *i18n.Strings) string { return t.CmdQuit }},
	// The instructor's, listed only on a class host's screen (classCommand).
	{"board", nil, "", func(t *i18n.Strings) string { return t.CmdBoard }},
	{"msg", nil, "TEXT", func(t *i18n.Strings) string { return t.CmdMsg }},
	{"assign", nil, "ID", func(t *i18n.Strings) string { return t.CmdAssign }},
}

// classCommand reports whether c is for the instructor of a class only.
func classCommand(c command) bool { return c.name == "board" || c.name == "msg" || c.name == "assign" }

// lookupCommand finds a command by name or alias.
func lookupCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
		for _, a := range c.aliases {
			if a == name {
				return c, true
			}
		}
	}
	return command{}, false
}

// usage is a command as the suggestions and the help show it: ":kubectl (:k) ARGS".
func (c command) usage() string {
	s := ":" + c.name
	for _, a := range c.aliases {
		s += " (:" + a + ")"
	}
	if c.args != "" {
		s += " " + c.args
	}
	return s
}

// suggestion is one completion of the word being typed.
type suggestion struct {
	text string // replaces the word
	desc string // shown beside it
	// open is set when more may follow without a space (a "user=" or "authorization:").
	open bool
}

// completer knows what the suggestions draw on: the contexts and users of the run, the
// breakpoints set, and the language the suggestions are described in.
type completer struct {
	tr          *i18n.Strings
	host        bool // a class host's screen: the class commands are offered
	contexts    []string
	users       []string
	breakpoints []string
	// exercises are the exercises' IDs with their titles (for :assign).
	exercises []suggestion
}

// Words the kubectl suggestions offer.
var (
	kubectlResources = []string{"configmaps", "namespaces", "roles", "rolebindings", "clusterroles",
		"clusterrolebindings", "secrets", "serviceaccounts", "events"}
	kubectlCreate = []string{"configmap", "namespace", "role", "rolebinding", "clusterrole", "clusterrolebinding", "secret"}
	breakVerbs    = []string{"get", "list", "watch", "create", "update", "patch", "delete"}
)

// kubectlVerbs are the kubectl commands suggested first.
func kubectlVerbs(tr *i18n.Strings) []suggestion {
	return []suggestion{
		{text: "get", desc: tr.VerbGet}, {text: "describe", desc: tr.VerbDescribe},
		{text: "create", desc: tr.VerbCreate}, {text: "apply", desc: tr.VerbApply},
		{text: "delete", desc: tr.VerbDelete}, {text: "auth", desc: tr.VerbAuth},
		{text: "api-resources", desc: tr.VerbAPIResources},
		{text: "api-versions", desc: tr.VerbAPIVersions},
		{text: "label", desc: tr.VerbLabel}, {text: "annotate", desc: tr.VerbAnnotate},
		{text: "patch", desc: tr.VerbPatch}, {text: "explain", desc: tr.VerbExplain},
		{text: "version", desc: tr.VerbVersion}, {text: "config", desc: tr.VerbConfig},
	}
}

// kubectlFlags are the kubectl flags suggested after a "-".
func kubectlFlags(tr *i18n.Strings) []suggestion {
	return []suggestion{
		{text: "--context", desc: tr.FlagContext}, {text: "-w", desc: tr.FlagWatch},
		{text: "-o", desc: tr.FlagOutput}, {text: "-n", desc: tr.FlagNamespace},
		{text: "-A", desc: tr.FlagAllNamespaces}, {text: "--as", desc: tr.FlagAs},
		{text: "-f", desc: tr.FlagFile}, {text: "--dry-run=server", desc: tr.FlagDryRun},
	}
}

// breakStages are the stages a breakpoint can hold requests at.
func breakStages(tr *i18n.Strings) []suggestion {
	return []suggestion{
		{text: "authentication", desc: tr.StageWhenAuthn, open: true},
		{text: "authorization", desc: tr.StageWhenAuthz, open: true},
		{text: "admission", desc: tr.StageWhenAdmission, open: true},
		{text: "storage", desc: tr.StageWhenStorage, open: true},
	}
}

// complete returns where the word before the cursor starts and its suggestions.
func (c completer) complete(input []rune, cur int) (from int, out []suggestion) {
	line := string(input[:cur])
	if !strings.ContainsAny(line, " \t") {
		word := strings.TrimSpace(line)
		for _, cmd := range commands {
			if classCommand(cmd) && !c.host {
				continue
			}
			names := append([]string{cmd.name}, cmd.aliases...)
			for _, n := range names {
				if strings.HasPrefix(n, word) {
					desc := cmd.desc(c.tr)
					if u := strings.TrimSpace(strings.TrimPrefix(cmd.usage(), ":"+cmd.name)); u != "" {
						desc = u + " — " + desc
					}
					out = append(out, suggestion{text: cmd.name, desc: desc})
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
	cmd, ok := lookupCommand(fields[0])
	if !ok {
		return from, nil
	}
	args := fields[1:]
	var cands []suggestion
	switch cmd.name {
	case "requests":
		if len(args) == 0 {
			cands = []suggestion{{text: "all", desc: c.tr.SuggestShowAll}}
		}
	case "kubectl":
		cands = c.kubectlWords(args, word)
	case "break":
		if len(args) == 0 {
			return from, c.breakWords(word)
		}
	case "assign":
		if len(args) == 0 {
			cands = c.exercises
		}
	case "unbreak":
		if len(args) == 0 {
			for _, b := range c.breakpoints {
				cands = append(cands, suggestion{text: b, desc: c.tr.SuggestBreakpoint})
			}
		}
	}
	for _, s := range cands {
		if strings.HasPrefix(s.text, word) && s.text != word {
			out = append(out, s)
		}
	}
	return from, out
}

// kubectlWords suggests the next kubectl word after args.
func (c completer) kubectlWords(args []string, word string) []suggestion {
	tr := c.tr
	if len(args) > 0 && (args[len(args)-1] == "--context") {
		return words(c.contexts, tr.SuggestContext)
	}
	if strings.HasPrefix(word, "--context=") {
		var out []suggestion
		for _, x := range c.contexts {
			out = append(out, suggestion{text: "--context=" + x, desc: tr.SuggestContext})
		}
		return out
	}
	if strings.HasPrefix(word, "-") {
		return kubectlFlags(tr)
	}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && (a == "--context" || a == "-o" || a == "-n" || a == "--as" || a == "-f") {
				i++ // its value
			}
			continue
		}
		pos = append(pos, a)
	}
	switch {
	case len(pos) == 0:
		return kubectlVerbs(tr)
	case len(pos) == 1 && pos[0] == "auth":
		return []suggestion{{text: "can-i", desc: tr.SuggestCanI}, {text: "whoami", desc: tr.SuggestWhoami}}
	case len(pos) == 1 && pos[0] == "create":
		return words(kubectlCreate, tr.SuggestKind)
	case len(pos) == 1 && strings.Contains(" get describe delete label annotate patch explain edit ", " "+pos[0]+" "):
		return words(kubectlResources, tr.SuggestResource)
	case len(pos) == 2 && pos[0] == "auth" && pos[1] == "can-i":
		return words(breakVerbs, tr.SuggestVerb)
	case len(pos) == 3 && pos[0] == "auth" && pos[1] == "can-i":
		return words(kubectlResources, tr.SuggestResource)
	}
	return nil
}

// breakWords suggests a breakpoint spec, clause by clause.
func (c completer) breakWords(word string) []suggestion {
	cut := strings.LastIndexAny(word, ":,")
	if cut < 0 {
		var out []suggestion
		for _, s := range breakStages(c.tr) {
			if strings.HasPrefix(s.text, word) && s.text != word {
				out = append(out, s)
			}
		}
		return out
	}
	head, clause := word[:cut+1], word[cut+1:]
	var cands []suggestion
	if k, v, ok := strings.Cut(clause, "="); ok {
		var vals []string
		switch k {
		case "user":
			vals = c.users
		case "verb":
			vals = breakVerbs
		case "resource":
			vals = kubectlResources
		}
		for _, x := range vals {
			if strings.HasPrefix(x, v) && x != v {
				cands = append(cands, suggestion{text: head + k + "=" + x, desc: k})
			}
		}
		return cands
	}
	for _, k := range []struct{ key, desc string }{
		{"user=", c.tr.SuggestOnlyUser}, {"verb=", c.tr.SuggestOnlyVerb}, {"resource=", c.tr.SuggestOnlyResource},
	} {
		if strings.HasPrefix(k.key, clause) {
			cands = append(cands, suggestion{text: head + k.key, desc: k.desc, open: true})
		}
	}
	return cands
}

func words(ws []string, desc string) []suggestion {
	out := make([]suggestion, len(ws))
	for i, w := range ws {
		out[i] = suggestion{text: w, desc: desc}
	}
	return out
}

// prompt is the command line's state.
type prompt struct {
	open  bool
	input []rune
	cur   int
	err   string
	hist  *kubectl.History

	from int
	sugg []suggestion
	sel  int    // the suggestion tab put in the line, -1 none
	base []rune // the line before tab started cycling; nil when not cycling
	bcur int
}

func newPrompt() *prompt { return &prompt{hist: kubectl.NewHistory(200), sel: -1} }

// Open shows an empty prompt.
func (p *prompt) Open(c completer) {
	*p = prompt{open: true, hist: p.hist, sel: -1}
	p.suggest(c)
}

// Reopen shows the prompt again with line and why it did not run.
func (p *prompt) Reopen(line, err string, c completer) {
	*p = prompt{open: true, hist: p.hist, sel: -1, input: []rune(line), cur: len([]rune(line)), err: err}
	p.suggest(c)
}

// Close hides the prompt.
func (p *prompt) Close() { *p = prompt{hist: p.hist, sel: -1} }

// Line is what is typed.
func (p *prompt) Line() string { return string(p.input) }

func (p *prompt) suggest(c completer) {
	p.from, p.sugg = c.complete(p.input, p.cur)
	p.sel, p.base = -1, nil
}

// set replaces the line and puts the cursor at its end.
func (p *prompt) set(s string) {
	p.input = []rune(s)
	p.cur = len(p.input)
}

// Key edits the line. It reports run when enter was pressed (the caller runs Line()), and
// closed when esc closed the prompt.
func (p *prompt) Key(msg tea.KeyMsg, c completer) (run, closed bool) {
	edited := true
	switch msg.Type {
	case tea.KeyEsc:
		p.Close()
		return false, true
	case tea.KeyEnter:
		return true, false
	case tea.KeyTab, tea.KeyShiftTab:
		d := 1
		if msg.Type == tea.KeyShiftTab {
			d = -1
		}
		p.tab(d, c)
		return false, false
	case tea.KeyUp, tea.KeyDown:
		var s string
		var ok bool
		if msg.Type == tea.KeyUp {
			s, ok = p.hist.Prev(p.Line())
		} else {
			s, ok = p.hist.Next(p.Line())
		}
		if ok {
			p.set(s)
		}
	case tea.KeyLeft:
		p.cur = max(p.cur-1, 0)
	case tea.KeyRight:
		p.cur = min(p.cur+1, len(p.input))
	case tea.KeyHome, tea.KeyCtrlA:
		p.cur = 0
	case tea.KeyEnd, tea.KeyCtrlE:
		p.cur = len(p.input)
	case tea.KeyBackspace:
		if p.cur > 0 {
			p.input = append(p.input[:p.cur-1], p.input[p.cur:]...)
			p.cur--
		} else if len(p.input) == 0 {
			p.Close() // backspace on an empty line backs out, as in k9s and vim
			return false, true
		}
	case tea.KeyDelete:
		if p.cur < len(p.input) {
			p.input = append(p.input[:p.cur], p.input[p.cur+1:]...)
		}
	case tea.KeyCtrlU:
		p.input = append([]rune{}, p.input[p.cur:]...)
		p.cur = 0
	case tea.KeyCtrlW:
		i := p.cur
		for i > 0 && p.input[i-1] == ' ' {
			i--
		}
		for i > 0 && p.input[i-1] != ' ' {
			i--
		}
		p.input = append(p.input[:i], p.input[p.cur:]...)
		p.cur = i
	case tea.KeyRunes, tea.KeySpace:
		rs := msg.Runes
		if msg.Type == tea.KeySpace {
			rs = []rune{' '}
		}
		if len(p.input) == 0 && len(rs) == 1 && rs[0] == '?' {
			break // ? on an empty line: the suggestions list every command already
		}
		var clean []rune
		for _, r := range rs {
			switch {
			case r == '\n' || r == '\r' || r == '\t':
				clean = append(clean, ' ')
			case r >= ' ' && r != 0x7f:
				clean = append(clean, r)
			}
		}
		p.input = append(p.input[:p.cur], append(clean, p.input[p.cur:]...)...)
		p.cur += len(clean)
	default:
		edited = false
	}
	if edited {
		p.err = ""
		p.suggest(c)
	}
	return false, false
}

// tab completes the word before the cursor: one suggestion is taken (with a space after it
// unless more may follow); several are cycled through.
func (p *prompt) tab(d int, c completer) {
	if p.base == nil {
		switch len(p.sugg) {
		case 0:
			return
		case 1:
			s := p.sugg[0]
			text := s.text
			if !s.open {
				text += " "
			}
			rest := p.input[p.cur:]
			p.input = append(append(append([]rune{}, p.input[:p.from]...), []rune(text)...), rest...)
			p.cur = p.from + len([]rune(text))
			p.err = ""
			p.suggest(c)
			return
		}
		p.base = append([]rune{}, p.input...)
		p.bcur = p.cur
		p.sel = 0
		if d < 0 {
			p.sel = len(p.sugg) - 1
		}
	} else {
		p.sel = (p.sel + d + len(p.sugg)) % len(p.sugg)
	}
	text := []rune(p.sugg[p.sel].text)
	p.input = append(append(append([]rune{}, p.base[:p.from]...), text...), p.base[p.bcur:]...)
	p.cur = p.from + len(text)
}

// maxSuggestions is how many suggestions show above the prompt.
const maxSuggestions = 12

// overlay is the suggestions (or the reason the line did not run) in a box drawn over the
// bottom of the body, w cells wide: at most maxSuggestions of them, the selected one marked.
func (p *prompt) overlay(st *Styles, tr *i18n.Strings, w int) []string {
	lines := p.overlayLines(st, tr, w-2)
	if len(lines) == 0 {
		return nil
	}
	title := tr.SuggestTitle
	if p.err != "" {
		title = tr.SuggestErrorTitle
	} else if len(p.sugg) > 0 && !strings.Contains(string(p.input), " ") {
		title = tr.SuggestCommandsTitle
	}
	return box(st, title, lines, w, len(lines)+2, true)
}

func (p *prompt) overlayLines(st *Styles, tr *i18n.Strings, w int) []string {
	var out []string
	if p.err != "" {
		for _, l := range wrapLines("✗ "+p.err, w-1) {
			out = append(out, " "+st.Prompt.Error.Render(l))
		}
	}
	if len(p.sugg) == 0 {
		return out
	}
	first := 0
	if p.sel >= maxSuggestions {
		first = p.sel - maxSuggestions + 1
	}
	textW := 0
	for _, s := range p.sugg {
		textW = max(textW, ansi.StringWidth(s.text))
	}
	textW = min(textW, w/2)
	for i := first; i < len(p.sugg) && i < first+maxSuggestions; i++ {
		s := p.sugg[i]
		mark, style := "  ", st.Prompt.Suggestion
		if i == p.sel {
			mark, style = "▶ ", st.Prompt.Selected
		}
		line := mark + style.Render(fit(s.text, textW)) + "  " + st.Prompt.Desc.Render(s.desc)
		out = append(out, fit(line, w))
	}
	if n := len(p.sugg) - maxSuggestions; n > 0 {
		out = append(out, fit(st.Prompt.Desc.Render(strings.Repeat(" ", 2)+fmt.Sprintf(tr.SuggestMore, len(p.sugg))), w))
	}
	return out
}

// line is the prompt as the bottom line shows it: ":" then the text with the cursor, then a
// hint when there is room.
func (p *prompt) line(st *Styles, tr *i18n.Strings, w int) string {
	before := string(p.input[:p.cur])
	// The cursor is a block at the end of the line; inside it, the character under it in
	// reverse video, or (without colour and attributes, NO_COLOR) a bar before it.
	cursor, after := "█", ""
	if p.cur < len(p.input) {
		at := string(p.input[p.cur])
		after = string(p.input[p.cur+1:])
		if lipgloss.ColorProfile() == termenv.Ascii {
			cursor = "|" + at
		} else {
			cursor = st.Prompt.Cursor.Render(at)
		}
	}
	text := st.Prompt.Colon.Render(":") + before + cursor + after
	// Keep the cursor in view on a long line: cut from the left.
	if over := ansi.StringWidth(text) - (w - 1); over > 0 {
		text = "…" + ansi.TruncateLeft(text, over+1, "")
	}
	hint := tr.PromptHint
	if ansi.StringWidth(text)+ansi.StringWidth(hint) <= w {
		text += st.Prompt.Desc.Render(hint)
	}
	return fit(text, w)
}

// sortedCopy returns a sorted copy of ss.
func sortedCopy(ss []string) []string {
	out := append([]string(nil), ss...)
	sort.Strings(out)
	return out
}
