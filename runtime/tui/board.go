package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// The class board (:board, or B, on the instructor's screen): the join line large enough
// for a projector, the latest message, the assigned exercise with how the class stands on it,
// and one row per student — those who raised the stuck flag first — with their name, where
// they are (a checkpoint, serving, or a ▸ track step), exercises done, their state on the
// assigned exercise (done / trying / not started / not reached, and hints used), idle time and
// state. The state is in words and symbols (✋ STUCK, ⇢ following, ◇ free pace, ✗ offline),
// never in colour alone.

// boardBody renders the board in the body.
func (m *model) boardBody() []string {
	b := m.lay.body
	tr := m.tr
	c := m.cls
	if c == nil || c.host == nil {
		return placeCenter(wrapLines(tr.BoardNotHost, b.w-4), b.w, b.h)
	}
	var out []string
	join := c.host.JoinLine()
	line := classBanner.Render(" " + join + " ")
	inner := []string{"", "   " + line + "   ", ""}
	bw := min(b.w, ansi.StringWidth(join)+10)
	if big, w, ok := bigJoin(join); ok && w+8 <= b.w && len(big)+5+boardBelowJoin <= b.h { // +3 lines in the box, +2 borders
		// Wide and tall enough: the address and the code in block letters, the line to copy
		// under them. Otherwise (80 columns) the line alone.
		inner = append(big, "", "   "+line, "")
		bw = w + 8
	}
	// The loopback hint (only this machine can join) is not repeated here: the class lines
	// above the body say it on every view, the board included.
	out = append(out, box(m.st, tr.BoardJoinTitle, inner, bw, len(inner)+2, true)...)
	msg := tr.BoardNoMessage
	if c.board.Message != "" {
		msg = fmt.Sprintf(tr.BoardLastMessage, c.board.Message)
	}
	out = append(out, " "+msg)
	if c.board.Assigned != "" {
		sum := wrapLines(m.assignedSummary(), b.w-2)
		for _, l := range sum[:min(len(sum), 2)] {
			out = append(out, " "+l)
		}
	}
	out = append(out, "")
	rows := boardRows(tr, c.board)
	if !c.boardLoaded || len(c.board.Students) == 0 {
		rows = []string{" " + tr.BoardNoStudents}
	}
	room := b.h - len(out)
	if room < 2 {
		out = out[:max(b.h-2, 0)]
		room = b.h - len(out)
	}
	if len(rows) > room && len(c.board.Students) > 0 {
		// The header stays; the students scroll.
		body := rows[1:]
		top := min(max(c.boardTop, 0), max(len(body)-(room-1), 0))
		c.boardTop = top
		rows = append([]string{rows[0]}, body[top:min(top+room-1, len(body))]...)
	}
	out = append(out, rows...)
	for i := range out {
		out[i] = fit(out[i], b.w)
	}
	for len(out) < b.h {
		out = append(out, strings.Repeat(" ", b.w))
	}
	return out[:b.h]
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
func boardRows(tr *i18n.Strings, bd ClassBoard) []string {
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
func (m *model) assignedSummary() string {
	bd := m.cls.board
	counts := map[string]int{}
	for _, s := range bd.Students {
		st := ""
		if s.Exercise.ID == bd.Assigned {
			st = s.Exercise.State
		}
		counts[st]++
	}
	return fmt.Sprintf(m.tr.BoardAssigned, m.exerciseTitle(bd.Assigned), bd.Assigned,
		fmt.Sprintf(m.tr.BoardAssignedCounts, counts[ClassExDone], counts[ClassExTrying], counts[ClassExOpen], counts[ClassExLocked]+counts[""]))
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

// boardTitle is the board's title line: the class, the students, the instructor's checkpoint.
func (m *model) boardTitle() (left, right string) {
	c := m.cls
	if c == nil || c.host == nil {
		return m.tr.BoardTitle, ""
	}
	stuck := 0
	for _, s := range c.board.Students {
		if s.Stuck {
			stuck++
		}
	}
	left = fmt.Sprintf(m.tr.BoardTitleClass, c.board.Title, len(c.board.Students), stuck)
	return left, fmt.Sprintf(m.tr.BoardInstructorAt, placeText(m.tr, c.board.Place))
}

// boardKey scrolls the board.
func (m *model) boardKey(msg tea.KeyMsg) tea.Cmd {
	if m.cls == nil {
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.cls.boardTop--
	case key.Matches(msg, k.Down):
		m.cls.boardTop++
	case key.Matches(msg, k.PageUp):
		m.cls.boardTop -= m.lay.body.h / 2
	case key.Matches(msg, k.PageDown):
		m.cls.boardTop += m.lay.body.h / 2
	}
	m.cls.boardTop = max(m.cls.boardTop, 0)
	return nil
}

// msgLine runs :msg TEXT: the text goes to every student.
func (m *model) msgLine(text string) (tea.Cmd, string) {
	if m.cls == nil || m.cls.host == nil {
		return nil, m.tr.BoardNotHost
	}
	if strings.TrimSpace(text) == "" {
		return nil, m.tr.CmdMsgWhat
	}
	h := m.cls.host
	m.note = m.tr.NoteMsgSent
	return func() tea.Msg {
		if err := h.Broadcast(text); err != nil {
			return classNoteMsg{note: fmt.Sprintf(m.tr.NoteMsgFailed, err)}
		}
		return nil
	}, ""
}

// assignLine runs :assign ID: exercise ID goes to every student ("-" takes the assignment
// back; no ID says which is assigned). An ID that names no exercise is refused, and the line
// stays in the prompt with the reason.
func (m *model) assignLine(id string) (tea.Cmd, string) {
	tr := m.tr
	if m.cls == nil || m.cls.host == nil {
		return nil, tr.BoardNotHost
	}
	id = strings.TrimSpace(id)
	switch {
	case id == "" && m.cls.board.Assigned != "":
		m.note = fmt.Sprintf(tr.NoteAssignedNow, m.exerciseTitle(m.cls.board.Assigned), m.cls.board.Assigned)
		return nil, ""
	case id == "":
		return nil, tr.CmdAssignWhich
	case id == "-":
		id = ""
	case !m.exView().Loaded():
		return nil, tr.CmdAssignNoExercises
	case !slices.ContainsFunc(m.exView().All(), func(e Exercise) bool { return e.ID == id }):
		return nil, fmt.Sprintf(tr.CmdAssignUnknown, id)
	}
	h := m.cls.host
	if id == "" {
		m.note = tr.NoteAssignTakenBack
	} else {
		m.note = fmt.Sprintf(tr.NoteAssigned, m.exerciseTitle(id), id)
	}
	return func() tea.Msg {
		if err := h.Assign(id); err != nil {
			return classNoteMsg{note: fmt.Sprintf(tr.NoteAssignFailed, err)}
		}
		return nil
	}, ""
}

// classNoteMsg puts a remark in the status line.
type classNoteMsg struct{ note string }
