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
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// A follow-along class (issue 10): on the instructor's screen (Options.Class) the join line
// stays in a line of its own under the header, the instructor's place is published — every
// live pause, the serving server, then every step of the after-serve track shown — :board
// shows the class and :assign ID assigns an exercise to it. On a student's screen
// (Options.Follow) a class line says whether the student follows, whether the connection is
// up (or the class has ended), and the instructor's latest message; a third line shows the
// assigned exercise (A opens it). While the student follows, their own server runs forward to
// the instructor's checkpoint (never back), on to serving when the instructor's serves, and
// then their screen goes along the track with the instructor (never back: a step the student
// went back to on their own stays on screen). D detaches and re-syncs, ! raises and lowers the
// stuck flag.

// classState is the screen's side of a class.
type classState struct {
	host   ClassHost
	follow ClassFollower

	board       ClassBoard
	boardLoaded bool
	boardTop    int // the board's first row on screen

	fs       FollowState
	fsLoaded bool
	// fsNext is the channel the state waiter waits on: closed, the next state is on its way.
	fsNext <-chan struct{}
	// reported is what was last reported (place and exercises done, the assigned exercise's
	// state); published the last place published.
	reported   ClassPlace
	done       int
	reportedEx ClassExercise
	published  ClassPlace
	// trackFollowed is the furthest track step following has taken the student to (-1:
	// none): a student on an earlier step went back on their own and is left there.
	trackFollowed int
	// opened records the exercises the student has had on screen (the assigned one is then
	// "trying"); seenAssign is the assignment the student has been told about.
	opened     map[string]bool
	seenAssign int
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
	return &classState{host: opts.Class, follow: opts.Follow, done: -1, trackFollowed: -1, opened: map[string]bool{}}
}

// classLineCount is how many lines the class takes under the header: the join line on the
// instructor's screen; the state and the latest message on a student's, and the assigned
// exercise while there is one.
func (m *model) classLineCount() int {
	switch {
	case m.cls == nil:
		return 0
	case m.cls.follow != nil && m.cls.fs.Assigned != "":
		return 3
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
		lines := m.classLineCount()
		m.cls.fs, m.cls.fsLoaded, m.cls.fsNext = msg.st, true, msg.changed
		if msg.st.Assigned != "" && msg.st.AssignedSeq != m.cls.seenAssign {
			m.cls.seenAssign = msg.st.AssignedSeq
			m.note = fmt.Sprintf(m.tr.ClassNoteAssigned, m.exerciseTitle(msg.st.Assigned))
		}
		if m.classLineCount() != lines && m.w > 0 {
			m.resize(m.w, m.h) // the assignment's line comes or goes
		}
		return tea.Batch(m.waitFollow(msg.changed), m.followStep(), m.classReport())
	case classNoteMsg:
		m.note = msg.note
	}
	return nil
}

// classEvent is called after every engine event: the instructor's screen publishes its place;
// a student's runs on to the instructor's if it is further on, and reports where it is.
func (m *model) classEvent() tea.Cmd {
	if m.cls == nil {
		return nil
	}
	if m.cls.host != nil {
		return m.classPublish()
	}
	return tea.Batch(m.followStep(), m.classReport())
}

// classMoved is called when the screen went to another track step: the instructor's screen
// publishes it, a student's reports it.
func (m *model) classMoved() tea.Cmd {
	switch {
	case m.cls == nil:
		return nil
	case m.cls.host != nil:
		return m.classPublish()
	}
	return m.classReport()
}

// classPlace is where this screen is in the course: the live stop while the startup runs
// (zero before the first), then the serving server and the track step on screen.
func (m *model) classPlace() ClassPlace {
	if m.served {
		all := server.Checkpoints()
		p := ClassPlace{Checkpoint: all[len(all)-1].ID(), Served: true}
		if m.inTrack() {
			p.Step = m.trackStep().ID
		}
		return p
	}
	if live := m.live(); live != nil {
		return ClassPlace{Checkpoint: live.Checkpoint.ID()}
	}
	return ClassPlace{}
}

// classPublish publishes the instructor's place when it changed: a live pause (not while the
// server runs to the next), the serving server (an instructor who ran to the end takes the
// class there), a track step. The host ignores a place that is not further on.
func (m *model) classPublish() tea.Cmd {
	h := m.cls.host
	p := m.classPlace()
	if p.IsZero() || (m.running && !m.served) || p == m.cls.published {
		return nil
	}
	m.cls.published = p
	return func() tea.Msg { h.Reached(p); return nil }
}

// classReport tells the host where the student is and how they stand on the assigned
// exercise, when that changed. It returns nil (a tea.Cmd for symmetry with the other class
// steps).
func (m *model) classReport() tea.Cmd {
	if m.cls == nil || m.cls.follow == nil {
		return nil
	}
	c := m.cls
	// On the update loop, not in a tea.Cmd: reports must reach the follower in order, and
	// they never block (they only note the progress for the connection's writer).
	if ex := m.assignedProgress(); ex != c.reportedEx {
		c.reportedEx = ex
		c.follow.ReportExercise(ex)
	}
	p := m.classPlace()
	done, _ := m.exView().Done()
	if p == c.reported && done == c.done {
		return nil
	}
	c.reported, c.done = p, done
	c.follow.Report(p, done)
	return nil
}

// assignedProgress is the student's state on the assigned exercise, zero when none is
// assigned or the exercises are not loaded yet.
func (m *model) assignedProgress() ClassExercise {
	id := m.cls.fs.Assigned
	e, ok := m.exView().Find(id)
	if id == "" || !ok {
		return ClassExercise{}
	}
	ex := ClassExercise{ID: id, Hints: len(e.Hints)}
	switch {
	case e.State == ExerciseDone:
		ex.State = ClassExDone
	case e.State == ExerciseLocked:
		ex.State = ClassExLocked
	case len(e.Hints) > 0 || e.LastTry != "" || m.cls.opened[id]:
		ex.State = ClassExTrying
	default:
		ex.State = ClassExOpen
	}
	return ex
}

// classSeen is called after a key and when the exercises change: on a student's screen the
// exercise selected in the exercises view counts as opened, and the student's state is
// reported when it changed.
func (m *model) classSeen() {
	if m.cls == nil || m.cls.follow == nil {
		return
	}
	if m.at == viewExercises {
		if e, ok := m.exView().Selected(); ok {
			m.cls.opened[e.ID] = true
		}
	}
	m.classReport()
}

// openExercise opens the exercises view on exercise id.
func (m *model) openExercise(id string) tea.Cmd {
	m.at = viewExercises
	m.syncCurrent()
	m.exView().Select(id)
	m.classSeen()
	return nil
}

// exerciseTitle is an exercise's title in the learner's language, else its ID.
func (m *model) exerciseTitle(id string) string {
	if e, ok := m.exView().Find(id); ok && e.Title != "" {
		return e.Title
	}
	return id
}

// followStep runs the student's server forward to the instructor's place when the student
// follows and the instructor is further on: to the instructor's checkpoint, to the end once the
// instructor's server serves, then along the track to the instructor's step. A student
// reviewing an earlier step goes on reviewing: only the live stop moves (in the track, a
// student who went back to an earlier step on their own is not moved).
func (m *model) followStep() tea.Cmd {
	c := m.cls
	if c == nil || c.follow == nil || !c.fsLoaded {
		return nil
	}
	st := c.fs
	if !st.Following || st.Instructor.IsZero() || st.Fatal != "" {
		return nil
	}
	live := m.live()
	if m.running || m.failed != nil || live == nil {
		return nil
	}
	if m.served {
		return m.followTrack(st.Instructor.Step)
	}
	var t engine.Target
	switch {
	case st.Instructor.Served:
		t = engine.ToEnd()
		m.target = m.tr.ClassTargetServing
	default:
		to := checkpointIndex(st.Instructor.Checkpoint)
		if to < 0 || to <= checkpointIndex(live.Checkpoint.ID()) {
			return nil // never back
		}
		t = engine.ToCheckpoint(st.Instructor.Checkpoint)
		m.target = fmt.Sprintf(m.tr.ClassTargetInstructor, st.Instructor.Checkpoint)
	}
	m.running = true
	if m.review < 0 {
		m.state.SetFrozen(true)
	}
	eng := m.eng
	return func() tea.Msg { return continuedMsg{err: eng.Continue(t)} }
}

// followTrack shows the instructor's track step on a served student's screen when it is
// further on than the step shown and than any following took the student to, unless the
// student is reviewing (a startup step, or an earlier track step they went back to).
func (m *model) followTrack(step string) tea.Cmd {
	c := m.cls
	i := m.trackIndex(step)
	if i < 0 || m.review >= 0 || i <= c.trackFollowed || i <= m.trackAt || (m.inTrack() && m.trackAt < c.trackFollowed) {
		return nil
	}
	c.trackFollowed = i
	return m.openTrack(i)
}

// trackIndex is a track step's position in the track, -1 for an unknown ID.
func (m *model) trackIndex(id string) int {
	if id == "" {
		return -1
	}
	for i, s := range m.track {
		if s.ID == id {
			return i
		}
	}
	return -1
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

// placeText is a place as the class lines and the board show it: the track step, "serving",
// or the checkpoint; "—" for none.
func placeText(tr *i18n.Strings, p ClassPlace) string {
	switch {
	case p.Step != "":
		return "▸ " + p.Step
	case p.Served:
		return tr.ClassAtServing
	case p.Checkpoint != "":
		return p.Checkpoint
	}
	return "—"
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
	case key.Matches(msg, k.ClassAssigned) && c.fs.Assigned != "":
		return m.openExercise(c.fs.Assigned), true
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
	case st.Ended:
		state = tr.ClassEnded
	case !st.Connected && st.Problem != "":
		state = fmt.Sprintf(tr.ClassReconnecting, st.Problem)
	case !st.Connected:
		state = tr.ClassConnecting
	case st.Following:
		state = fmt.Sprintf(tr.ClassFollowing, placeText(tr, st.Instructor))
	default:
		state = fmt.Sprintf(tr.ClassFreePace, placeText(tr, st.Instructor))
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
	out := []string{fit(line, m.w), fit(msg, m.w)}
	if st.Assigned != "" {
		out = append(out, fit(m.assignedLine(), m.w))
	}
	return out
}

// assignedLine is the student's line about the assigned exercise: its title, the student's
// state on it, and the key that opens it.
func (m *model) assignedLine() string {
	tr := m.tr
	id := m.cls.fs.Assigned
	line := m.st.Status.Paused.Render(tr.ClassAssigned) + " " + m.exerciseTitle(id)
	if ex := m.assignedProgress(); ex.ID != "" {
		line += " · " + exerciseStateText(tr, ex)
	}
	return line + m.st.Status.Note.Render(" · "+tr.ClassAssignedKey)
}

// exerciseStateText says how a student stands on an exercise, in words and a symbol.
func exerciseStateText(tr *i18n.Strings, ex ClassExercise) string {
	var s string
	switch ex.State {
	case ClassExDone:
		s = tr.ClassExDone
	case ClassExTrying:
		s = tr.ClassExTrying
	case ClassExOpen:
		s = tr.ClassExOpen
	case ClassExLocked:
		s = tr.ClassExLocked
	default:
		return "—"
	}
	if ex.Hints > 0 {
		s += fmt.Sprintf(tr.ClassExHints, ex.Hints)
	}
	return s
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
