// Package class is the follow-along class (issue 10) on the screen, and its board.
//
// On the instructor's screen (Options.Host) the join line stays in a line of its own under the
// header, the instructor's place is published — every live pause, the serving server, then
// every step of the after-serve track shown — :board (the root's view, this package's Model)
// shows the class and :assign ID assigns an exercise to it. On a student's screen
// (Options.Follow) a class line says whether the student follows, whether the connection is
// up (or the class has ended), and the instructor's latest message; a third line shows the
// assigned exercise (A opens it). While the student follows, their own server runs forward to
// the instructor's checkpoint (never back), on to serving when the instructor's serves, and
// then their screen goes along the track with the instructor (never back: a step the student
// went back to on their own stays on screen). D detaches and re-syncs, ! raises and lowers the
// stuck flag.
//
// The root asks the class through Model's methods (the lines under the header, the class
// keys, the : commands); the class asks the walkthrough around it through Tour, which the
// root implements, and the exercises view through Exercises.
package class

import (
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
	"github.com/kubewalk/kubewalk/server"
)

// Tour is the walkthrough around the class, as the class follows and reports it; the root
// implements it. Its methods are called on the update loop.
type Tour interface {
	// Where is the walkthrough's state now.
	Where() Where
	// TrackIndex is a track step's position in the after-serve track, -1 for an unknown ID.
	TrackIndex(step string) int
	// OpenTrack shows track step i.
	OpenTrack(i int) tea.Cmd
	// RunTo runs the student's server on to t (what says where, for the status line); a step
	// the student reviews stays on screen while the live stop moves.
	RunTo(t engine.Target, what string) tea.Cmd
	// OpenExercise shows the exercises view on exercise id.
	OpenExercise(id string) tea.Cmd
	// Note sets the status line's note at once.
	Note(s string)
	// Relayout lays the screen out again: a class line under the header came or went.
	Relayout()
}

// Where is the walkthrough's state as the class reads it.
type Where struct {
	// Place is where this screen is in the course: the live stop while the startup runs
	// (zero before the first), then the serving server and the track step on screen.
	Place Place
	// Live is the live stop's checkpoint ID, "" before the first stop.
	Live string
	// Running is set while the server runs to a target; Failed once its startup failed.
	Running, Failed bool
	// Reviewing is set while the learner looks at an earlier startup step.
	Reviewing bool
	// TrackAt is the track step on screen, -1 outside the track.
	TrackAt int
}

// Exercises is what the class reads of the exercises view (*exercises.Model).
type Exercises interface {
	Find(id string) (exercises.Exercise, bool)
	Done() (done, all int)
	Loaded() bool
	All() []exercises.Exercise
}

// Keys are the class's bindings, from the learner's key map.
type Keys struct {
	// Follow (D) detaches and re-syncs, Stuck (!) raises and lowers the flag, Assigned (A)
	// opens the assigned exercise: a student's screen. Board (B) is the instructor's: the root
	// switches views on it.
	Follow, Stuck, Assigned, Board key.Binding
}

// Options wire a class into the screen. Without Host and Follow the Model is inert: no lines
// under the header, no keys, and the board says it is for the instructor.
type Options struct {
	Host   Host
	Follow Follower
	Keys   Keys
	Tour   Tour
	// Exercises is the exercises view, for the assigned exercise's title and state.
	Exercises Exercises
	// Done returns a channel closed when the run ends; read when the waiters start (Init), so
	// the root may set it after New.
	Done func() <-chan struct{}
	// Stop is closed when the root shuts the views' background work down.
	Stop <-chan struct{}
}

// Model is the screen's side of a class: the board view (a view.View) and the class lines,
// keys and commands the root asks for.
type Model struct {
	c    common.Common
	opts Options
	host Host
	// follow is nil on an instructor's screen and without a class.
	follow Follower

	board       Board
	boardLoaded bool
	boardTop    int // the board's first row on screen
	boardH      int // the height the board was last drawn at (page keys)

	fs       FollowState
	fsLoaded bool
	// fsNext is the channel the state waiter waits on: closed, the next state is on its way.
	fsNext <-chan struct{}
	// reported is what was last reported (place and exercises done, the assigned exercise's
	// state); published the last place published.
	reported   Place
	done       int
	reportedEx Exercise
	published  Place
	// trackFollowed is the furthest track step following has taken the student to (-1:
	// none): a student on an earlier step went back on their own and is left there.
	trackFollowed int
	// opened records the exercises the student has had on screen (the assigned one is then
	// "trying"); seenAssign is the assignment the student has been told about.
	opened     map[string]bool
	seenAssign int
}

var _ view.View = (*Model)(nil)

// New returns the class of opts.
func New(c common.Common, opts Options) *Model {
	return &Model{c: c, opts: opts, host: opts.Host, follow: opts.Follow, done: -1, trackFollowed: -1, opened: map[string]bool{}}
}

// Messages of the class.
type (
	boardMsg  struct{ b Board }
	followMsg struct {
		st      FollowState
		changed <-chan struct{} // taken before st was read: closed at the next change
	}
)

// banner draws the join line and the class line: bold and in reverse video, so that it reads
// from the back of a room; the text carries the meaning without colour.
var banner = lipgloss.NewStyle().Bold(true).Reverse(true)

// IsHost reports whether this is the instructor's screen: :board, :msg and :assign are theirs.
func (m *Model) IsHost() bool { return m.host != nil }

// BoardLoaded reports whether the board has been read once.
func (m *Model) BoardLoaded() bool { return m.boardLoaded }

// Waiters is how many of the class's waiters run in the background (the board's, the
// student's state's), and whether a state is on its way to the update loop (read, or changed
// since): the tests' idleness.
func (m *Model) Waiters() (n int, delivering bool) {
	if m.host != nil {
		n++
	}
	if m.follow != nil {
		n++
		if !m.fsLoaded {
			return n, true
		}
		select {
		case <-m.fsNext:
			return n, true
		default:
		}
	}
	return n, false
}

// LineCount is how many lines the class takes under the header at width w: the join line on
// the instructor's screen; the state and the latest message on a student's, and the assigned
// exercise while there is one.
func (m *Model) LineCount(w int) int {
	switch {
	case m.follow != nil && m.fs.Assigned != "":
		return 3
	case m.follow != nil:
		return 2
	}
	return m.hostLineCount(w)
}

// Init starts reading the board or the student's state.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.waitBoard(true), m.waitFollow(nil))
}

// waitBoard reads the board at its next change, or after a second (idle times move on);
// first reads it at once.
func (m *Model) waitBoard(first bool) tea.Cmd {
	if m.host == nil {
		return nil
	}
	h, done, end := m.host, m.opts.Done(), m.opts.Stop
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
func (m *Model) waitFollow(changed <-chan struct{}) tea.Cmd {
	if m.follow == nil {
		return nil
	}
	f, done, end := m.follow, m.opts.Done(), m.opts.Stop
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

// Update handles the class's messages, the server's moves (view.ServerMsg: the instructor's
// screen publishes its place; a student's runs on to the instructor's if it is further on, and
// reports where it is) and, on the board, its keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case boardMsg:
		m.board, m.boardLoaded = msg.b, true
		return m.waitBoard(false)
	case followMsg:
		lines := m.LineCount(0)
		m.fs, m.fsLoaded, m.fsNext = msg.st, true, msg.changed
		if msg.st.Assigned != "" && msg.st.AssignedSeq != m.seenAssign {
			m.seenAssign = msg.st.AssignedSeq
			m.opts.Tour.Note(fmt.Sprintf(m.c.Tr.ClassNoteAssigned, m.exerciseTitle(msg.st.Assigned)))
		}
		if m.LineCount(0) != lines {
			m.opts.Tour.Relayout() // the assignment's line comes or goes
		}
		return tea.Batch(m.waitFollow(msg.changed), m.followStep(), m.report())
	case view.ServerMsg:
		switch {
		case m.host != nil:
			return m.publish()
		case m.follow != nil:
			return tea.Batch(m.followStep(), m.report())
		}
	case tea.KeyMsg:
		return m.boardKey(msg)
	}
	return nil
}

// Moved is called when the screen went to another track step: the instructor's screen
// publishes it, a student's reports it.
func (m *Model) Moved() tea.Cmd {
	if m.host != nil {
		return m.publish()
	}
	return m.report()
}

// publish publishes the instructor's place when it changed: a live pause (not while the
// server runs to the next), the serving server (an instructor who ran to the end takes the
// class there), a track step. The host ignores a place that is not further on.
func (m *Model) publish() tea.Cmd {
	h := m.host
	w := m.opts.Tour.Where()
	p := w.Place
	if p.IsZero() || (w.Running && !p.Served) || p == m.published {
		return nil
	}
	m.published = p
	return func() tea.Msg { h.Reached(p); return nil }
}

// report tells the host where the student is and how they stand on the assigned exercise,
// when that changed. It returns nil (a tea.Cmd for symmetry with the other class steps).
func (m *Model) report() tea.Cmd {
	if m.follow == nil {
		return nil
	}
	// On the update loop, not in a tea.Cmd: reports must reach the follower in order, and
	// they never block (they only note the progress for the connection's writer).
	if ex := m.assignedProgress(); ex != m.reportedEx {
		m.reportedEx = ex
		m.follow.ReportExercise(ex)
	}
	p := m.opts.Tour.Where().Place
	done, _ := m.opts.Exercises.Done()
	if p == m.reported && done == m.done {
		return nil
	}
	m.reported, m.done = p, done
	m.follow.Report(p, done)
	return nil
}

// assignedProgress is the student's state on the assigned exercise, zero when none is
// assigned or the exercises are not loaded yet.
func (m *Model) assignedProgress() Exercise {
	id := m.fs.Assigned
	e, ok := m.opts.Exercises.Find(id)
	if id == "" || !ok {
		return Exercise{}
	}
	ex := Exercise{ID: id, Hints: len(e.Hints)}
	switch {
	case e.State == exercises.Done:
		ex.State = ExDone
	case e.State == exercises.Locked:
		ex.State = ExLocked
	case len(e.Hints) > 0 || e.LastTry != "" || m.opened[id]:
		ex.State = ExTrying
	default:
		ex.State = ExOpen
	}
	return ex
}

// Seen is called after a key and when the exercises change, with the exercise on screen
// ("" when the exercises view is not shown): on a student's screen it counts as opened, and
// the student's state is reported when it changed.
func (m *Model) Seen(shown string) {
	if m.follow == nil {
		return
	}
	if shown != "" {
		m.opened[shown] = true
	}
	m.report()
}

// exerciseTitle is an exercise's title in the learner's language, else its ID.
func (m *Model) exerciseTitle(id string) string {
	if e, ok := m.opts.Exercises.Find(id); ok && e.Title != "" {
		return e.Title
	}
	return id
}

// followStep runs the student's server forward to the instructor's place when the student
// follows and the instructor is further on: to the instructor's checkpoint, to the end once the
// instructor's server serves, then along the track to the instructor's step. A student
// reviewing an earlier step goes on reviewing: only the live stop moves (in the track, a
// student who went back to an earlier step on their own is not moved).
func (m *Model) followStep() tea.Cmd {
	if m.follow == nil || !m.fsLoaded {
		return nil
	}
	st := m.fs
	if !st.Following || st.Instructor.IsZero() || st.Fatal != "" {
		return nil
	}
	w := m.opts.Tour.Where()
	if w.Running || w.Failed || w.Live == "" {
		return nil
	}
	if w.Place.Served {
		return m.followTrack(st.Instructor.Step, w)
	}
	if st.Instructor.Served {
		return m.opts.Tour.RunTo(engine.ToEnd(), m.c.Tr.ClassTargetServing)
	}
	to := CheckpointIndex(st.Instructor.Checkpoint)
	if to < 0 || to <= CheckpointIndex(w.Live) {
		return nil // never back
	}
	return m.opts.Tour.RunTo(engine.ToCheckpoint(st.Instructor.Checkpoint), fmt.Sprintf(m.c.Tr.ClassTargetInstructor, st.Instructor.Checkpoint))
}

// followTrack shows the instructor's track step on a served student's screen when it is
// further on than the step shown and than any following took the student to, unless the
// student is reviewing (a startup step, or an earlier track step they went back to).
func (m *Model) followTrack(step string, w Where) tea.Cmd {
	i := -1
	if step != "" {
		i = m.opts.Tour.TrackIndex(step)
	}
	if i < 0 || w.Reviewing || i <= m.trackFollowed || i <= w.TrackAt || (w.TrackAt >= 0 && w.TrackAt < m.trackFollowed) {
		return nil
	}
	m.trackFollowed = i
	return m.opts.Tour.OpenTrack(i)
}

// CheckpointIndex is a checkpoint's position in server.Checkpoints(), -1 for an unknown ID.
func CheckpointIndex(id string) int {
	for i, c := range server.Checkpoints() {
		if c.ID() == id {
			return i
		}
	}
	return -1
}

// placeText is a place as the class lines and the board show it: the track step, "serving",
// or the checkpoint; "—" for none.
func placeText(tr *i18n.Strings, p Place) string {
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

// Key handles a student's class keys wherever the student is: D (detach, re-sync), A (open
// the assigned exercise) and ! (stuck). ok is false when the key is not one of them.
func (m *Model) Key(msg tea.KeyMsg) (tea.Cmd, bool) {
	f := m.follow
	if f == nil {
		return nil, false
	}
	k, tr, tour := m.opts.Keys, m.c.Tr, m.opts.Tour
	switch {
	case key.Matches(msg, k.Follow):
		if m.fs.Following {
			f.Detach()
			tour.Note(tr.ClassNoteDetached)
		} else {
			f.Resync()
			tour.Note(tr.ClassNoteResynced)
		}
		m.fs.Following = !m.fs.Following
		return m.followStep(), true
	case key.Matches(msg, k.Assigned) && m.fs.Assigned != "":
		return tour.OpenExercise(m.fs.Assigned), true
	case key.Matches(msg, k.Stuck):
		m.fs.Stuck = !m.fs.Stuck
		f.SetStuck(m.fs.Stuck)
		if m.fs.Stuck {
			tour.Note(tr.ClassNoteStuck)
		} else {
			tour.Note(tr.ClassNoteUnstuck)
		}
		return nil, true
	}
	return nil, false
}

// Lines are the lines under the header, w cells wide: the join line on the instructor's
// screen, the class state and the latest message on a student's; none without a class.
func (m *Model) Lines(w int) []string {
	tr, st := m.c.Tr, m.c.Styles
	if m.host != nil {
		var notes []string
		if m.boardLoaded {
			stuck := 0
			for _, s := range m.board.Students {
				if s.Stuck {
					stuck++
				}
			}
			notes = append(notes, fmt.Sprintf(tr.ClassBoardCount, len(m.board.Students), stuck))
		}
		if m.host.LoopbackOnly() {
			notes = append(notes, st.Status.Note.Render(fmt.Sprintf(tr.ClassLoopbackHint, JoinPort(m.host.JoinLine()))))
		}
		return hostLines(m.host.JoinLine(), notes, tr, w, m.hostLineCount(w))
	}
	if m.follow == nil {
		return nil
	}
	fs := m.fs
	var state string
	switch {
	case !m.fsLoaded:
		state = tr.ClassConnecting
	case fs.Fatal != "":
		state = fmt.Sprintf(tr.ClassLeft, fs.Fatal)
	case fs.Ended:
		state = tr.ClassEnded
	case !fs.Connected && fs.Problem != "":
		state = fmt.Sprintf(tr.ClassReconnecting, fs.Problem)
	case !fs.Connected:
		state = tr.ClassConnecting
	case fs.Following:
		state = fmt.Sprintf(tr.ClassFollowing, placeText(tr, fs.Instructor))
	default:
		state = fmt.Sprintf(tr.ClassFreePace, placeText(tr, fs.Instructor))
	}
	title := fs.Title
	if title == "" {
		title = tr.ClassDefaultTitle
	}
	line := banner.Render(" "+title+" ") + " " + state
	if fs.Stuck {
		line += " · " + st.Status.Paused.Render(tr.ClassStuckFlag)
	}
	msg := st.Status.Note.Render(tr.ClassNoMessage)
	if fs.Message != "" {
		msg = st.Status.Paused.Render(tr.ClassMessage) + " " + fs.Message
	}
	// The keys go where they fit whole: after the state, else after the message (80 columns,
	// no message yet), else after the state, cut.
	keys := st.Status.Note.Render(" · " + tr.ClassKeys)
	switch {
	case lipgloss.Width(line+keys) <= w:
		line += keys
	case lipgloss.Width(msg+keys) <= w:
		msg += keys
	default:
		line += keys
	}
	out := []string{common.Fit(line, w), common.Fit(msg, w)}
	if fs.Assigned != "" {
		out = append(out, common.Fit(m.assignedLine(), w))
	}
	return out
}

// assignedLine is the student's line about the assigned exercise: its title, the student's
// state on it, and the key that opens it.
func (m *Model) assignedLine() string {
	tr, st := m.c.Tr, m.c.Styles
	id := m.fs.Assigned
	line := st.Status.Paused.Render(tr.ClassAssigned) + " " + m.exerciseTitle(id)
	if ex := m.assignedProgress(); ex.ID != "" {
		line += " · " + exerciseStateText(tr, ex)
	}
	return line + st.Status.Note.Render(" · "+tr.ClassAssignedKey)
}

// exerciseStateText says how a student stands on an exercise, in words and a symbol.
func exerciseStateText(tr *i18n.Strings, ex Exercise) string {
	var s string
	switch ex.State {
	case ExDone:
		s = tr.ClassExDone
	case ExTrying:
		s = tr.ClassExTrying
	case ExOpen:
		s = tr.ClassExOpen
	case ExLocked:
		s = tr.ClassExLocked
	default:
		return "—"
	}
	if ex.Hints > 0 {
		s += fmt.Sprintf(tr.ClassExHints, ex.Hints)
	}
	return s
}

// hostLineCount is how many lines the instructor's join line and its notes take at width w,
// counted with the student count at its widest, so that the layout depends on the width alone
// and does not change as students come.
func (m *Model) hostLineCount(w int) int {
	if m.host == nil {
		return 0
	}
	tr := m.c.Tr
	notes := []string{fmt.Sprintf(tr.ClassBoardCount, 999, 999)}
	if m.host.LoopbackOnly() {
		notes = append(notes, fmt.Sprintf(tr.ClassLoopbackHint, JoinPort(m.host.JoinLine())))
	}
	return len(hostLines(m.host.JoinLine(), notes, tr, w, 0))
}

// hostBanner is the join line as the instructor's screen shows it.
func hostBanner(join string, tr *i18n.Strings) string {
	return " " + fmt.Sprintf(tr.ClassJoinBanner, join) + " "
}

// hostLines lays the instructor's join line and its notes out in lines of w cells: all on
// one line when they fit, else the join line first (with the notes that fit beside it) and
// the other notes flowing below. The join line is what students copy from the projector, so
// it is never cut: wider than the screen, it breaks before its --code, which starts the next
// line, unbroken. n > 0 pads or cuts the result to n lines (the layout's count).
func hostLines(join string, notes []string, tr *i18n.Strings, w, n int) []string {
	text := hostBanner(join, tr)
	var lines []string
	cur := banner.Render(text)
	if ansi.StringWidth(text) > w {
		first, second := text, ""
		if i := strings.Index(text, " --code "); i > 0 {
			first, second = text[:i]+" ", " "+strings.TrimSpace(text[i:])+" "
		}
		lines = append(lines, banner.Render(first))
		cur = banner.Render(strings.ReplaceAll(second, " ", string(common.GluedSpace)))
	}
	i, sep := 0, " " // the banner is set apart already: no dot after it
	for ; i < len(notes); i++ {
		if ansi.StringWidth(cur)+ansi.StringWidth(sep)+ansi.StringWidth(notes[i]) > w {
			break
		}
		cur += sep + notes[i]
		sep = " · "
	}
	if i < len(notes) {
		rest := strings.Join(notes[i:], " · ")
		if strings.Contains(cur, string(common.GluedSpace)) {
			rest = cur + sep + rest // the code part of a broken join line leads the flow
		} else {
			lines = append(lines, cur)
		}
		lines = append(lines, common.WrapLines(rest, w)...)
	} else {
		lines = append(lines, cur)
	}
	if n > 0 {
		for len(lines) < n {
			lines = append(lines, "")
		}
		lines = lines[:n]
	}
	for i := range lines {
		lines[i] = common.Fit(common.Unkeep.Replace(lines[i]), w)
	}
	return lines
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
