package tui

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/server"
)

// A follow-along class (issue 10): on the instructor's screen (Options.Class) the join line
// stays in a line of its own under the header, every live pause is published, and :board
// shows the class; on a student's screen (Options.Follow) a class line says whether the
// student follows, whether the connection is up, and the instructor's latest message, and the
// student's own server runs forward to the instructor's checkpoint (never back) while the
// student follows. D detaches and re-syncs, ! raises and lowers the stuck flag.

// classState is the screen's side of a class.
type classState struct {
	host   ClassHost
	follow ClassFollower

	board       ClassBoard
	boardLoaded bool
	boardTop    int // the board's first row on screen

	fs       FollowState
	fsLoaded bool
	// reported is what was last reported (checkpoint and exercises done); published the last
	// checkpoint published.
	reported  string
	done      int
	published string
}

// Messages of the class.
type (
	boardMsg  struct{ b ClassBoard }
	followMsg struct {
		st      FollowState
		changed <-chan struct{} // taken before st was read: closed at the next change
	}
)

// classBanner draws the join line and the class line: bold and in reverse video, so that it
// reads from the back of a room; the text carries the meaning without colour.
var classBanner = lipgloss.NewStyle().Bold(true).Reverse(true)

// newClassState returns the class wiring of opts, nil when there is no class.
func newClassState(opts Options) *classState {
	if opts.Class == nil && opts.Follow == nil {
		return nil
	}
	return &classState{host: opts.Class, follow: opts.Follow, done: -1}
}

// classLineCount is how many lines the class takes under the header: the join line on the
// instructor's screen; the state and the latest message on a student's.
func (m *model) classLineCount() int {
	switch {
	case m.cls == nil:
		return 0
	case m.cls.follow != nil:
		return 2
	}
	return m.hostLineCount()
}

// classInit starts reading the board or the student's state.
func (m *model) classInit() tea.Cmd {
	if m.cls == nil {
		return nil
	}
	return tea.Batch(m.waitBoard(true), m.waitFollow(nil))
}

// waitBoard reads the board at its next change, or after a second (idle times move on);
// first reads it at once.
func (m *model) waitBoard(first bool) tea.Cmd {
	if m.cls == nil || m.cls.host == nil {
		return nil
	}
	h, done, end := m.cls.host, m.done, m.ctx.Done()
	return func() tea.Msg {
		if !first {
			ch := h.Changed()
			t := time.NewTimer(time.Second)
			defer t.Stop()
			select {
			case <-ch:
			case <-t.C:
			case <-done:
				return nil
			case <-end:
				return nil
			}
		}
		return boardMsg{b: h.Board()}
	}
}

// waitFollow reads the student's state once changed is closed (at once when it is nil). The
// channel for the next read is taken before the state is read: a change that lands between
// this read and the next wait still wakes that wait (taken after, the change would be missed
// until the next one, and a following student would not move on).
func (m *model) waitFollow(changed <-chan struct{}) tea.Cmd {
	if m.cls == nil || m.cls.follow == nil {
		return nil
	}
	f, done, end := m.cls.follow, m.done, m.ctx.Done()
	return func() tea.Msg {
		if changed != nil {
			select {
			case <-changed:
			case <-done:
				return nil
			case <-end:
				return nil
			}
		}
		next := f.Changed()
		return followMsg{st: f.State(), changed: next}
	}
}

// classMsg handles the class's messages.
func (m *model) classMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case boardMsg:
		m.cls.board, m.cls.boardLoaded = msg.b, true
		return m.waitBoard(false)
	case followMsg:
		m.cls.fs, m.cls.fsLoaded = msg.st, true
		return tea.Batch(m.waitFollow(msg.changed), m.followStep(), m.classReport())
	case classNoteMsg:
		m.note = msg.note
	}
	return nil
}

// classEvent is called after every engine event: the instructor's screen publishes the live
// checkpoint (the last one once the server serves: an instructor who ran to the end takes the
// class there); a student's reports it and runs on to the instructor's if it is ahead.
func (m *model) classEvent() tea.Cmd {
	if m.cls == nil {
		return nil
	}
	if h := m.cls.host; h != nil {
		id := ""
		switch live := m.live(); {
		case m.served:
			all := server.Checkpoints()
			id = all[len(all)-1].ID()
		case live != nil && !m.running:
			id = live.Checkpoint.ID()
		}
		if id != "" && id != m.cls.published {
			m.cls.published = id
			return func() tea.Msg { h.Reached(id); return nil }
		}
		return nil
	}
	return tea.Batch(m.followStep(), m.classReport())
}

// classReport tells the host where the student is, when that changed. It returns nil (a
// tea.Cmd for symmetry with the other class steps).
func (m *model) classReport() tea.Cmd {
	if m.cls == nil || m.cls.follow == nil {
		return nil
	}
	id := ""
	if live := m.live(); live != nil {
		id = live.Checkpoint.ID()
	}
	done := 0
	if m.exs != nil {
		done, _ = m.ex.Done()
	}
	if id == m.cls.reported && done == m.cls.done {
		return nil
	}
	m.cls.reported, m.cls.done = id, done
	// On the update loop, not in a tea.Cmd: reports must reach the follower in order, and
	// Report never blocks (it only notes the progress for the connection's writer).
	m.cls.follow.Report(id, done)
	return nil
}

// followStep runs the student's server forward to the instructor's checkpoint when the
// student follows and the instructor is ahead. A student reviewing an earlier step goes on
// reviewing: only the live stop moves.
func (m *model) followStep() tea.Cmd {
	c := m.cls
	if c == nil || c.follow == nil || !c.fsLoaded {
		return nil
	}
	st := c.fs
	if !st.Following || st.Instructor == "" || st.Fatal != "" {
		return nil
	}
	live := m.live()
	if m.running || m.served || m.failed != nil || live == nil {
		return nil
	}
	to := checkpointIndex(st.Instructor)
	if to < 0 || to <= checkpointIndex(live.Checkpoint.ID()) {
		return nil // never back
	}
	m.running, m.target = true, fmt.Sprintf(m.tr.ClassTargetInstructor, st.Instructor)
	if m.review < 0 {
		m.state.SetFrozen(true)
	}
	eng, id := m.eng, st.Instructor
	return func() tea.Msg { return continuedMsg{err: eng.Continue(engine.ToCheckpoint(id))} }
}

// checkpointIndex is a checkpoint's position in server.Checkpoints(), -1 for an unknown ID.
func checkpointIndex(id string) int {
	for i, c := range server.Checkpoints() {
		if c.ID() == id {
			return i
		}
	}
	return -1
}

// classKey handles the class keys: on a student's screen D (detach, re-sync) and ! (stuck);
// on the instructor's B opens the board. ok is false when the key is not one of them.
func (m *model) classKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	c := m.cls
	if c == nil {
		return nil, false
	}
	k := m.keys
	if c.host != nil && key.Matches(msg, k.ClassBoard) {
		// B opens the board and, on the board, goes back to the walkthrough.
		if m.at == viewBoard {
			m.at = viewTour
		} else {
			m.at = viewBoard
		}
		return nil, true
	}
	if c.follow == nil {
		return nil, false
	}
	f := c.follow
	switch {
	case key.Matches(msg, k.ClassFollow):
		if c.fs.Following {
			f.Detach()
			m.note = m.tr.ClassNoteDetached
		} else {
			f.Resync()
			m.note = m.tr.ClassNoteResynced
		}
		c.fs.Following = !c.fs.Following
		return m.followStep(), true
	case key.Matches(msg, k.ClassStuck):
		c.fs.Stuck = !c.fs.Stuck
		f.SetStuck(c.fs.Stuck)
		m.note = m.tr.ClassNoteUnstuck
		if c.fs.Stuck {
			m.note = m.tr.ClassNoteStuck
		}
		return nil, true
	}
	return nil, false
}

// classLines are the lines under the header: the join line on the instructor's screen, the
// class state and the latest message on a student's.
func (m *model) classLines() []string {
	c := m.cls
	if c == nil {
		return nil
	}
	tr := m.tr
	if c.host != nil {
		var notes []string
		if c.boardLoaded {
			stuck := 0
			for _, st := range c.board.Students {
				if st.Stuck {
					stuck++
				}
			}
			notes = append(notes, fmt.Sprintf(tr.ClassBoardCount, len(c.board.Students), stuck))
		}
		if c.host.LoopbackOnly() {
			notes = append(notes, m.st.Status.Note.Render(fmt.Sprintf(tr.ClassLoopbackHint, JoinPort(c.host.JoinLine()))))
		}
		return hostLines(c.host.JoinLine(), notes, tr, m.w, m.hostLineCount())
	}
	st := c.fs
	var state string
	switch {
	case !c.fsLoaded:
		state = tr.ClassConnecting
	case st.Fatal != "":
		state = fmt.Sprintf(tr.ClassLeft, st.Fatal)
	case !st.Connected && st.Problem != "":
		state = fmt.Sprintf(tr.ClassReconnecting, st.Problem)
	case !st.Connected:
		state = tr.ClassConnecting
	case st.Following:
		state = fmt.Sprintf(tr.ClassFollowing, orDash(st.Instructor))
	default:
		state = fmt.Sprintf(tr.ClassFreePace, orDash(st.Instructor))
	}
	title := st.Title
	if title == "" {
		title = tr.ClassDefaultTitle
	}
	line := classBanner.Render(" "+title+" ") + " " + state
	if st.Stuck {
		line += " · " + m.st.Status.Paused.Render(tr.ClassStuckFlag)
	}
	msg := m.st.Status.Note.Render(tr.ClassNoMessage)
	if st.Message != "" {
		msg = m.st.Status.Paused.Render(tr.ClassMessage) + " " + st.Message
	}
	// The keys go where they fit whole: after the state, else after the message (80 columns,
	// no message yet), else after the state, cut.
	keys := m.st.Status.Note.Render(" · " + tr.ClassKeys)
	switch {
	case lipgloss.Width(line+keys) <= m.w:
		line += keys
	case lipgloss.Width(msg+keys) <= m.w:
		msg += keys
	default:
		line += keys
	}
	return []string{fit(line, m.w), fit(msg, m.w)}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// JoinPort is the port of a join line's address ("kubewalk join ADDR --code CODE"), "7443"
// when the line has none.
func JoinPort(line string) string {
	for _, f := range strings.Fields(line) {
		if _, port, err := net.SplitHostPort(f); err == nil && port != "" {
			return port
		}
	}
	return "7443"
}
