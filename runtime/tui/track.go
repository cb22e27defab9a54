package tui

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

// The after-serve track: lessons that read the running server. Once the server serves, n on
// the live stop opens the track's first step (or the one last shown), n and ← move through it,
// and ← on its first step (or esc) returns to the serve stop. Each step shows its anchored code
// and lesson like a startup step; the state pane shows the tree its live probe reads, run in a
// tea.Cmd whenever the step is shown and again on r.

// Probe runs a live probe (runtime/live) against the serving server and returns its tree. It
// is called from tea.Cmds, possibly concurrently, and must return when ctx ends.
type Probe func(ctx context.Context, id string) (*server.Node, error)

// probeTimeout bounds one probe run (a server that stops answering).
const probeTimeout = 30 * time.Second

// trackPhase is the phase name the track's synthetic checkpoints carry (it names no server
// phase; the lesson pane keys its cache by it).
const trackPhase server.Phase = "after-serve"

// liveProbeMsg delivers a probe run's result.
type liveProbeMsg struct {
	id   string
	tree *server.Node
	err  error
}

// probeResult is the last result of a probe, with the one before it (for change marks).
type probeResult struct {
	tree, prev *server.Node
	err        error
}

// inTrack reports whether a track step is on screen.
func (m *model) inTrack() bool { return m.trackAt >= 0 && m.trackAt < len(m.track) }

// trackStep is the track step on screen.
func (m *model) trackStep() Step { return m.track[m.trackAt] }

// openTrack shows track step i (clamped), once the server serves.
func (m *model) openTrack(i int) tea.Cmd {
	switch {
	case len(m.track) == 0:
		m.note = m.tr.NoteTrackNone
		return nil
	case !m.served:
		// Said in a box: the status line is cut at the window's width.
		m.info = &infoBox{title: m.tr.HelpTrack, lines: []string{m.tr.NoteTrackBefore}}
		return nil
	}
	i = max(min(i, len(m.track)-1), 0)
	if m.review >= 0 {
		m.review = -1
		m.reviewPanes()
	}
	if m.trackAt < 0 && m.tab == paneServed {
		// The lesson is the point of a track step: bring it where the kubectl panel was.
		m.tab = paneLesson
		if m.focus == paneServed {
			m.focus = paneLesson
		}
		m.applyFocus()
	}
	m.trackAt, m.trackLast = i, i
	step := m.track[i]
	cp := server.Checkpoint{Phase: trackPhase, Name: step.ID, Title: step.Title}
	m.lesson.SetStep(step, true, cp)
	m.showProbe()
	if m.progress != nil {
		m.progress(step.LessonID, step.StepID)
	}
	return tea.Batch(m.source.SetStep(step.Code(), true, cp), m.sideStep(step, true, cp), m.runProbe(step.Live), m.classMoved())
}

// leaveTrack goes back from the track to the serve stop.
func (m *model) leaveTrack() tea.Cmd {
	if !m.inTrack() {
		return nil
	}
	m.trackAt = -1
	return tea.Batch(m.show(len(m.history)-1), m.classMoved())
}

// trackKey handles the stepping keys while a track step is shown; it reports false for keys
// it leaves to the walkthrough.
func (m *model) trackKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	switch {
	case m.source.Searching() && (msgIs(msg, k.MatchNext) || msgIs(msg, k.MatchPrev)):
		return nil, false
	case msgIs(msg, k.Next), msgIs(msg, k.Forward):
		if m.trackAt == len(m.track)-1 {
			m.note = m.tr.NoteTrackEnd
			return nil, true
		}
		return m.openTrack(m.trackAt + 1), true
	case msgIs(msg, k.Back):
		if m.trackAt == 0 {
			return m.leaveTrack(), true
		}
		return m.openTrack(m.trackAt - 1), true
	case msgIs(msg, k.Live) && !m.source.Searching() && !m.source.Browsing():
		return m.leaveTrack(), true
	case msgIs(msg, k.Rerun):
		id := m.trackStep().Live
		switch {
		case id == "":
			m.note = m.tr.NoteTrackNoProbe
		case m.probing[id]:
			m.note = fmt.Sprintf(m.tr.NoteProbeRunning, id)
		}
		cmd := m.runProbe(id)
		m.showProbe()
		return cmd, true
	}
	return nil, false
}

// runProbe runs probe id off the update loop, unless it is running already.
func (m *model) runProbe(id string) tea.Cmd {
	if id == "" || m.probe == nil || m.probing[id] {
		return nil
	}
	m.probing[id] = true
	ctx, probe := m.ctx, m.probe
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		n, err := probe(c, id)
		return liveProbeMsg{id: id, tree: n, err: err}
	}
}

// probed stores a probe's result and shows it if its step is on screen.
func (m *model) probed(msg liveProbeMsg) {
	delete(m.probing, msg.id)
	r := m.probes[msg.id]
	if msg.err == nil {
		r.prev, r.tree = r.tree, msg.tree
	}
	r.err = msg.err
	m.probes[msg.id] = r
	if m.inTrack() && m.trackStep().Live == msg.id {
		m.showProbe()
	}
}

// showProbe puts the probe of the track step on screen into the state pane.
func (m *model) showProbe() {
	id := m.trackStep().Live
	r := m.probes[id]
	m.state.SetProbe(id, walk.Probe{Tree: r.tree, Prev: r.prev, Err: r.err}, m.probing[id], m.probe != nil)
}

// trackLine is the checkpoint line of a track step: the track, the lesson, the step and its
// place in the track.
func (m *model) trackLine() string {
	step := m.trackStep()
	right := "  " + fmt.Sprintf(m.tr.TrackStepOf, m.trackAt+1, len(m.track))
	left := m.st.Chain.Checkpoint.Render(fmt.Sprintf(m.tr.TrackLine, step.Lesson)) + "  " + m.st.Chain.Title.Render(step.Title)
	return fitRight(left, right, m.w, m.st.Status.Note.Render)
}

// trackCommand runs :track [N]: the track from its Nth lesson (1-based), else where the
// learner left it.
func (m *model) trackCommand(args []string) (tea.Cmd, string) {
	if len(args) == 0 {
		return m.openTrack(m.trackLast), ""
	}
	lessons := m.trackLessons()
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > len(lessons) || len(args) > 1 {
		return nil, fmt.Sprintf(m.tr.ErrTrackArg, len(lessons))
	}
	return m.openTrack(lessons[n-1]), ""
}

// trackLessons returns the index of each track lesson's first step.
func (m *model) trackLessons() []int {
	var out []int
	for i, s := range m.track {
		if i == 0 || s.LessonID != m.track[i-1].LessonID {
			out = append(out, i)
		}
	}
	return out
}

// serveStop reports whether the live serve stop is on screen (n there opens the track).
func (m *model) serveStop() bool {
	return m.served && m.review < 0 && !m.inTrack() && m.failed == nil
}

// msgIs reports whether a key press matches a binding.
func msgIs(msg tea.KeyMsg, b key.Binding) bool { return key.Matches(msg, b) }

// fitRight fits left into the width w with right (styled by note) at its end, dropping right
// when there is too little room.
func fitRight(left, right string, w int, note func(...string) string) string {
	room := w - ansi.StringWidth(right)
	if room < 20 {
		return left
	}
	return fit(left, room) + note(right)
}
