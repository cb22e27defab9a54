package class

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

var _ view.Commander = (*Model)(nil)

// Commands are the instructor's : commands, offered only on a class host's screen: :board
// shows the board, :msg TEXT sends every student a message, :assign ID assigns an exercise
// (tab completes the IDs). Off a host's screen each is refused with the reason.
func (m *Model) Commands() []cmdline.Command {
	run := func(f func(string) (tea.Cmd, string)) func(string) cmdline.Action {
		return func(rest string) cmdline.Action {
			cmd, problem := f(rest)
			return cmdline.Action{Cmd: cmd, Problem: problem}
		}
	}
	return []cmdline.Command{{
		Name: "board", Offered: m.IsHost,
		Desc: func(t *i18n.Strings) string { return t.CmdBoard },
		Run: func(string) cmdline.Action {
			if !m.IsHost() {
				return cmdline.Action{Problem: m.c.Tr.BoardNotHost}
			}
			return cmdline.Action{Show: true}
		},
	}, {
		Name: "msg", Args: "TEXT", Offered: m.IsHost,
		Desc: func(t *i18n.Strings) string { return t.CmdMsg },
		Run:  run(m.MsgLine),
	}, {
		Name: "assign", Args: "ID", Offered: m.IsHost,
		Desc:     func(t *i18n.Strings) string { return t.CmdAssign },
		Complete: m.completeExercise,
		Run:      run(m.AssignLine),
	}}
}

// completeExercise suggests the exercises' IDs (with their titles) for :assign.
func (m *Model) completeExercise(args []string, _ string) []cmdline.Suggestion {
	if len(args) > 0 || !m.IsHost() || m.opts.Exercises == nil {
		return nil
	}
	var out []cmdline.Suggestion
	for _, e := range m.opts.Exercises.All() {
		out = append(out, cmdline.Suggestion{Text: e.ID, Desc: e.Title})
	}
	return out
}
