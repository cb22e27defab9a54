package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/extension"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// The : command line's table (runtime/tui/cmdline): the root's own commands and those the
// views offer (view.Commander), in the order the suggestions and :help list them. The prompt's
// suggestions, :help and the running of a line all read this one table.

// commands builds the table; the views are made by then. srv names the users :break
// suggests; bps holds the breakpoints (nil: not wired).
func (m *model) commands(srv ServerInfo, bps Breakpoints) []cmdline.Command {
	var out []cmdline.Command
	out = append(out, cmdline.Command{
		Name: "requests", Aliases: []string{"req"}, Args: "[all]",
		Desc: func(t *i18n.Strings) string { return t.CmdRequests },
		Complete: func(args []string, _ string) []cmdline.Suggestion {
			if len(args) > 0 {
				return nil
			}
			return []cmdline.Suggestion{{Text: "all", Desc: m.tr.SuggestShowAll}}
		},
		Run: func(rest string) cmdline.Action {
			if rest != "" && rest != "all" {
				return cmdline.Action{Problem: m.tr.CmdRequestsArg}
			}
			m.at = viewRequests
			return cmdline.Action{Cmd: m.rqv().Update(requests.ListMsg{All: rest == "all"})}
		},
	})
	out = append(out, m.viewCommands(viewKubectl)...)
	out = append(out, m.viewCommands(viewEtcd)...)
	if ctl, ok := srv.(extension.Control); ok { // *server.Server; a test's fake may lack it
		out = append(out, extension.Command(m.tr, ctl))
	}
	out = append(out, cmdline.Command{
		Name: "break", Args: "[SPEC]",
		Desc: func(t *i18n.Strings) string { return t.CmdBreak },
		Complete: func(args []string, word string) []cmdline.Suggestion {
			if len(args) > 0 {
				return nil
			}
			return m.breakWords(srv, word)
		},
		Run: func(rest string) cmdline.Action { return m.breakLine(bps, "break", rest) },
	}, cmdline.Command{
		Name: "unbreak", Args: "SPEC",
		Desc: func(t *i18n.Strings) string { return t.CmdUnbreak },
		Complete: func(args []string, _ string) []cmdline.Suggestion {
			if len(args) > 0 {
				return nil
			}
			return cmdline.Words(m.rqv().Breakpoints(), m.tr.SuggestBreakpoint)
		},
		Run: func(rest string) cmdline.Action { return m.breakLine(bps, "unbreak", rest) },
	}, cmdline.Command{
		Name: "clear",
		Desc: func(t *i18n.Strings) string { return t.CmdClear },
		Run: func(string) cmdline.Action {
			m.at = viewRequests
			m.note = m.tr.NoteCleared
			return cmdline.Action{Cmd: m.rqv().Update(requests.ClearMsg{})}
		},
	}, cmdline.Command{
		Name: "lesson", Aliases: []string{"tour"},
		Desc: func(t *i18n.Strings) string { return t.CmdLesson },
		Run:  func(string) cmdline.Action { m.at = viewTour; return cmdline.Action{} },
	}, cmdline.Command{
		Name: "track", Args: "[N]",
		Desc: func(t *i18n.Strings) string { return t.CmdTrack },
		Run: func(rest string) cmdline.Action {
			m.at = viewTour
			cmd, problem := m.tour.TrackCommand(strings.Fields(rest))
			return cmdline.Action{Cmd: cmd, Problem: problem}
		},
	}, cmdline.Command{
		Name: "glossary", Aliases: []string{"gl"},
		Desc: func(t *i18n.Strings) string { return t.CmdGlossary },
		Run:  func(string) cmdline.Action { m.at = viewGlossary; return cmdline.Action{} },
	}, cmdline.Command{
		Name: "exercises", Aliases: []string{"ex"},
		Desc: func(t *i18n.Strings) string { return t.CmdExercises },
		Run: func(string) cmdline.Action {
			m.at = viewExercises
			m.syncCurrent()
			return cmdline.Action{}
		},
	}, cmdline.Command{
		Name: "help",
		Desc: func(t *i18n.Strings) string { return t.CmdHelp },
		Run:  func(string) cmdline.Action { m.info = m.commandsHelp(); return cmdline.Action{} },
	}, cmdline.Command{
		Name: "quit", Aliases: []string{"q"},
		Desc: func(t *i18n.Strings) string { return t.CmdQuit },
		Run:  func(string) cmdline.Action { return cmdline.Action{Cmd: tea.Quit} },
	})
	return append(out, m.viewCommands(viewBoard)...)
}

// viewCommands are the commands the view id offers (view.Commander); one whose action says Show
// brings the view on screen.
func (m *model) viewCommands(id viewID) []cmdline.Command {
	c, ok := m.views[id].(view.Commander)
	if !ok {
		return nil
	}
	cmds := c.Commands()
	for i := range cmds {
		run := cmds[i].Run
		cmds[i].Run = func(rest string) cmdline.Action {
			a := run(rest)
			if a.Show && a.Problem == "" {
				m.at = id
			}
			return a
		}
	}
	return cmds
}

// breakLine runs :break and :unbreak (name) with rest on bps.
func (m *model) breakLine(bps Breakpoints, name, rest string) cmdline.Action {
	if bps == nil {
		m.note = m.tr.NoteBreakNotWired
		return cmdline.Action{}
	}
	if rest == "" {
		if name == "unbreak" {
			return cmdline.Action{Problem: m.tr.CmdUnbreakWhich}
		}
		return cmdline.Action{Cmd: func() tea.Msg { return breakListMsg{specs: bps.List()} }}
	}
	remove := name == "unbreak"
	line := name + " " + rest
	return cmdline.Action{Cmd: func() tea.Msg {
		var err error
		if remove {
			err = bps.Remove(rest)
		} else {
			err = bps.Add(rest)
		}
		return breakSetMsg{line: line, spec: rest, remove: remove, err: err}
	}}
}

// breakStages are the stages a breakpoint can hold requests at.
func breakStages(tr *i18n.Strings) []cmdline.Suggestion {
	return []cmdline.Suggestion{
		{Text: "authentication", Desc: tr.StageWhenAuthn, Open: true},
		{Text: "authorization", Desc: tr.StageWhenAuthz, Open: true},
		{Text: "admission", Desc: tr.StageWhenAdmission, Open: true},
		{Text: "storage", Desc: tr.StageWhenStorage, Open: true},
	}
}

// breakUsers are the users a breakpoint's user= suggests: the server's once it serves, then
// the walkthrough's.
func breakUsers(srv ServerInfo) []string {
	var out []string
	seen := map[string]bool{}
	if srv != nil && srv.ServeStatus() == server.Serving {
		for _, id := range srv.Identities() {
			if !seen[id.User] {
				seen[id.User] = true
				out = append(out, id.User)
			}
		}
	}
	for _, u := range []string{"alice", "bob", "system:apiserver"} {
		if !seen[u] {
			out = append(out, u)
		}
	}
	return out
}

// breakWords suggests a breakpoint spec, clause by clause.
func (m *model) breakWords(srv ServerInfo, word string) []cmdline.Suggestion {
	cut := strings.LastIndexAny(word, ":,")
	if cut < 0 {
		return breakStages(m.tr)
	}
	head, clause := word[:cut+1], word[cut+1:]
	var cands []cmdline.Suggestion
	if k, v, ok := strings.Cut(clause, "="); ok {
		var vals []string
		switch k {
		case "user":
			vals = breakUsers(srv)
		case "verb":
			vals = kubectlview.APIVerbs
		case "resource":
			vals = kubectlview.Resources
		}
		for _, x := range vals {
			if strings.HasPrefix(x, v) && x != v {
				cands = append(cands, cmdline.Suggestion{Text: head + k + "=" + x, Desc: k})
			}
		}
		return cands
	}
	for _, k := range []struct{ key, desc string }{
		{"user=", m.tr.SuggestOnlyUser}, {"verb=", m.tr.SuggestOnlyVerb}, {"resource=", m.tr.SuggestOnlyResource},
	} {
		if strings.HasPrefix(k.key, clause) {
			cands = append(cands, cmdline.Suggestion{Text: head + k.key, Desc: k.desc, Open: true})
		}
	}
	return cands
}
