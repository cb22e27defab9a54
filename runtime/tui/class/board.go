package class

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// The class board (:board, or B, on the instructor's screen): the join line large enough
// for a projector, the latest message, the assigned exercise with how the class stands on it,
// and one row per student — those who raised the stuck flag first — with their name, where
// they are (a checkpoint, serving, or a ▸ track step), exercises done, their state on the
// assigned exercise (done / trying / not started / not reached, and hints used), idle time and
// state. The state is in words and symbols (✋ STUCK, ⇢ following, ◇ free pace, ✗ offline),
// never in colour alone.

// View renders the board: exactly h lines of w cells.
func (m *Model) View(w, h int) []string {
	tr, st := m.c.Tr, m.c.Styles
	m.boardH = h
	if m.host == nil {
		return common.PlaceCenter(common.WrapLines(tr.BoardNotHost, w-4), w, h)
	}
	var out []string
	join := m.host.JoinLine()
	line := banner.Render(" " + join + " ")
	inner := []string{"", "   " + line + "   ", ""}
	bw := min(w, ansi.StringWidth(join)+10)
	if big, bigW, ok := bigJoin(join); ok && bigW+8 <= w && len(big)+5+boardBelowJoin <= h { // +3 lines in the box, +2 borders
		// Wide and tall enough: the address and the code in block letters, the line to copy
		// under them. Otherwise (80 columns) the line alone.
		inner = append(big, "", "   "+line, "")
		bw = bigW + 8
	}
	// The loopback hint (only this machine can join) is not repeated here: the class lines
	// above the body say it on every view, the board included.
	out = append(out, common.Box(st, tr.BoardJoinTitle, inner, bw, len(inner)+2, true)...)
	msg := tr.BoardNoMessage
	if m.board.Message != "" {
		msg = fmt.Sprintf(tr.BoardLastMessage, m.board.Message)
	}
	out = append(out, " "+msg)
	if m.board.Assigned != "" {
		sum := common.WrapLines(m.assignedSummary(), w-2)
		for _, l := range sum[:min(len(sum), 2)] {
			out = append(out, " "+l)
		}
	}
	out = append(out, "")
	rows := boardRows(tr, m.board)
	if !m.boardLoaded || len(m.board.Students) == 0 {
		rows = []string{" " + tr.BoardNoStudents}
	}
	room := h - len(out)
	if room < 2 {
		out = out[:max(h-2, 0)]
		room = h - len(out)
	}
	if len(rows) > room && len(m.board.Students) > 0 {
		// The header stays; the students scroll.
		body := rows[1:]
		top := min(max(m.boardTop, 0), max(len(body)-(room-1), 0))
		m.boardTop = top
		rows = append([]string{rows[0]}, body[top:min(top+room-1, len(body))]...)
	}
	out = append(out, rows...)
	for i := range out {
		out[i] = common.Fit(out[i], w)
	}
	for len(out) < h {
		out = append(out, strings.Repeat(" ", w))
	}
	return out[:h]
}

// boardBelowJoin is the room the board keeps under a large join line: the message, a blank
// line, the header and three students.
const boardBelowJoin = 6

// bigJoin draws a join line's address and code in block letters, a blank line above and
// between, each row indented by 3: the lines and their width (the join line itself
// included, 2 wider for its padding). ok is false when the line has no address and code, or a
// letter the font lacks.
func bigJoin(join string) (lines []string, width int, ok bool) {
	addr, code, ok := joinParts(join)
	if !ok {
		return nil, 0, false
	}
	a, okA := bigText(addr)
	k, okK := bigText(code)
	if !okA || !okK {
		return nil, 0, false
	}
	lines = append(lines, "")
	for _, r := range a {
		lines = append(lines, "   "+r)
	}
	lines = append(lines, "")
	for _, r := range k {
		lines = append(lines, "   "+r)
	}
	width = max(ansi.StringWidth(a[0]), ansi.StringWidth(k[0]), ansi.StringWidth(join)+2)
	return lines, width, true
}

// boardRows lays the students out in columns — name, place, state, the assigned exercise
// (while one is assigned), exercises done, idle time —: the header, then one row each, those
// stuck first (each group by name).
func boardRows(tr *i18n.Strings, bd Board) []string {
	assigned := bd.Assigned != ""
	// Who is stuck where comes first: at 80 columns what does not fit is cut from the end.
	row := func(name, at, done, ex, idle, state string) []string {
		if assigned {
			return []string{name, at, state, ex, done, idle}
		}
		return []string{name, at, state, done, idle}
	}
	cells := [][]string{row(tr.BoardColName, tr.BoardColCheckpoint, tr.BoardColDone, tr.BoardColAssigned, tr.BoardColIdle, tr.BoardColState)}
	students := slices.Clone(bd.Students)
	sort.SliceStable(students, func(i, j int) bool { return students[i].Stuck && !students[j].Stuck })
	for _, s := range students {
		var flags []string
		if s.Stuck {
			flags = append(flags, tr.BoardStuck)
		}
		switch {
		case !s.Connected:
			flags = append(flags, tr.BoardOffline)
		case s.Following:
			flags = append(flags, tr.BoardFollowing)
		default:
			flags = append(flags, tr.BoardFreePace)
		}
		ex := "—"
		if s.Exercise.ID == bd.Assigned {
			ex = exerciseStateText(tr, s.Exercise)
		}
		cells = append(cells, row(s.Name, placeText(tr, s.Place), fmt.Sprint(s.Done), ex, idleText(s.Idle.Seconds()), strings.Join(flags, " · ")))
	}
	w := make([]int, len(cells[0]))
	for _, row := range cells {
		for i, c := range row {
			w[i] = max(w[i], ansi.StringWidth(c))
		}
	}
	out := make([]string, 0, len(cells))
	for _, row := range cells {
		var b strings.Builder
		b.WriteString(" ")
		for i, c := range row {
			b.WriteString(c)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", w[i]-ansi.StringWidth(c)+2))
			}
		}
		out = append(out, b.String())
	}
	return out
}

// assignedSummary is the board's line about the assigned exercise: its title and ID, and how
// many students have done it, are trying it, have not started and have not reached it yet.
func (m *Model) assignedSummary() string {
	bd := m.board
	counts := map[string]int{}
	for _, s := range bd.Students {
		st := ""
		if s.Exercise.ID == bd.Assigned {
			st = s.Exercise.State
		}
		counts[st]++
	}
	tr := m.c.Tr
	return fmt.Sprintf(tr.BoardAssigned, m.exerciseTitle(bd.Assigned), bd.Assigned,
		fmt.Sprintf(tr.BoardAssignedCounts, counts[ExDone], counts[ExTrying], counts[ExOpen], counts[ExLocked]+counts[""]))
}

// idleText is an idle time in whole seconds, minutes or hours.
func idleText(sec float64) string {
	s := int(sec)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm", s/60)
	}
	return fmt.Sprintf("%dh", s/3600)
}

// Title is the board's title line: the class, the students, the instructor's checkpoint.
func (m *Model) Title() (left, right string) {
	tr := m.c.Tr
	if m.host == nil {
		return tr.BoardTitle, ""
	}
	stuck := 0
	for _, s := range m.board.Students {
		if s.Stuck {
			stuck++
		}
	}
	left = fmt.Sprintf(tr.BoardTitleClass, m.board.Title, len(m.board.Students), stuck)
	return left, fmt.Sprintf(tr.BoardInstructorAt, placeText(tr, m.board.Place))
}

// Keys are the board's help bar: B goes back to the walkthrough, :msg, the scroll keys.
func (m *Model) Keys() []key.Binding {
	tr := m.c.Tr
	b := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	return []key.Binding{b("B", tr.BarBoardBack), b(":msg", tr.BarMsg), b("↑/↓", tr.BarScroll)}
}

// boardKey scrolls the board's students.
func (m *Model) boardKey(msg tea.KeyMsg) tea.Cmd {
	k := m.c.Scroll
	switch {
	case key.Matches(msg, k.Up):
		m.boardTop--
	case key.Matches(msg, k.Down):
		m.boardTop++
	case key.Matches(msg, k.PageUp):
		m.boardTop -= m.boardH / 2
	case key.Matches(msg, k.PageDown):
		m.boardTop += m.boardH / 2
	}
	m.boardTop = max(m.boardTop, 0)
	return nil
}

// MsgLine runs :msg TEXT: the text goes to every student. It returns the reason the line
// cannot run ("" when it runs).
func (m *Model) MsgLine(text string) (tea.Cmd, string) {
	tr := m.c.Tr
	if m.host == nil {
		return nil, tr.BoardNotHost
	}
	if strings.TrimSpace(text) == "" {
		return nil, tr.CmdMsgWhat
	}
	h := m.host
	m.opts.Tour.Note(tr.NoteMsgSent)
	return func() tea.Msg {
		if err := h.Broadcast(text); err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.NoteMsgFailed, err))
		}
		return nil
	}, ""
}

// AssignLine runs :assign ID: exercise ID goes to every student ("-" takes the assignment
// back; no ID says which is assigned). An ID that names no exercise is refused: the reason is
// returned, and the line stays in the prompt with it.
func (m *Model) AssignLine(id string) (tea.Cmd, string) {
	tr, tour, ex := m.c.Tr, m.opts.Tour, m.opts.Exercises
	if m.host == nil {
		return nil, tr.BoardNotHost
	}
	id = strings.TrimSpace(id)
	switch {
	case id == "" && m.board.Assigned != "":
		tour.Note(fmt.Sprintf(tr.NoteAssignedNow, m.exerciseTitle(m.board.Assigned), m.board.Assigned))
		return nil, ""
	case id == "":
		return nil, tr.CmdAssignWhich
	case id == "-":
		id = ""
	case !ex.Loaded():
		return nil, tr.CmdAssignNoExercises
	case !slices.ContainsFunc(ex.All(), func(e exercises.Exercise) bool { return e.ID == id }):
		return nil, fmt.Sprintf(tr.CmdAssignUnknown, id)
	}
	h := m.host
	if id == "" {
		tour.Note(tr.NoteAssignTakenBack)
	} else {
		tour.Note(fmt.Sprintf(tr.NoteAssigned, m.exerciseTitle(id), id))
	}
	return func() tea.Msg {
		if err := h.Assign(id); err != nil {
			return view.NoteMsg(fmt.Sprintf(tr.NoteAssignFailed, err))
		}
		return nil
	}, ""
}
