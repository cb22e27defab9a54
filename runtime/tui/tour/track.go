package tour

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tui/class"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
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

// InTrack reports whether a track step is on screen.
func (t *Model) InTrack() bool { return t.trackAt >= 0 && t.trackAt < len(t.track) }

// trackStep is the track step on screen.
func (t *Model) trackStep() walk.Step { return t.track[t.trackAt] }

// OpenTrack shows track step i (clamped), once the server serves.
func (t *Model) OpenTrack(i int) tea.Cmd {
	switch {
	case len(t.track) == 0:
		t.note(t.tr.NoteTrackNone)
		return nil
	case !t.served:
		// Said in a box: the status line is cut at the window's width.
		t.env.Info(t.tr.HelpTrack, []string{t.tr.NoteTrackBefore})
		return nil
	}
	i = max(min(i, len(t.track)-1), 0)
	if t.review >= 0 {
		t.review = -1
		t.reviewPanes()
	}
	if t.trackAt < 0 && t.tab == PaneServed {
		// The lesson is the point of a track step: bring it where the kubectl panel was.
		t.tab = PaneLesson
		if t.focus == PaneServed {
			t.focus = PaneLesson
		}
		t.applyFocus()
	}
	t.trackAt, t.trackLast = i, i
	step := t.track[i]
	cp := server.Checkpoint{Phase: trackPhase, Name: step.ID, Title: step.Title}
	t.lesson.SetStep(step, true, cp)
	t.showProbe()
	if t.progress != nil {
		t.progress(step.LessonID, step.StepID)
	}
	return tea.Batch(t.source.SetStep(step.Code(), true, cp), t.side.SetStep(step.Code(), true, cp), t.runProbe(step.Live), t.moved())
}

// moved tells the root the screen went to another track step.
func (t *Model) moved() tea.Cmd {
	if t.env.Moved == nil {
		return nil
	}
	return t.env.Moved()
}

// leaveTrack goes back from the track to the serve stop.
func (t *Model) leaveTrack() tea.Cmd {
	if !t.InTrack() {
		return nil
	}
	t.trackAt = -1
	return tea.Batch(t.show(len(t.history)-1), t.moved())
}

// trackKey handles the stepping keys while a track step is shown; it reports false for keys
// it leaves to the walkthrough.
func (t *Model) trackKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := t.keys
	switch {
	case t.source.Searching() && (key.Matches(msg, k.MatchNext) || key.Matches(msg, k.MatchPrev)):
		return nil, false
	case key.Matches(msg, k.Next), key.Matches(msg, k.Forward):
		if t.trackAt == len(t.track)-1 {
			t.note(t.tr.NoteTrackEnd)
			return nil, true
		}
		return t.OpenTrack(t.trackAt + 1), true
	case key.Matches(msg, k.Back):
		if t.trackAt == 0 {
			return t.leaveTrack(), true
		}
		return t.OpenTrack(t.trackAt - 1), true
	case key.Matches(msg, k.Live) && !t.source.Searching() && !t.source.Browsing():
		return t.leaveTrack(), true
	case key.Matches(msg, k.Rerun):
		id := t.trackStep().Live
		switch {
		case id == "":
			t.note(t.tr.NoteTrackNoProbe)
		case t.probing[id]:
			t.note(fmt.Sprintf(t.tr.NoteProbeRunning, id))
		}
		cmd := t.runProbe(id)
		t.showProbe()
		return cmd, true
	}
	return nil, false
}

// runProbe runs probe id off the update loop, unless it is running already.
func (t *Model) runProbe(id string) tea.Cmd {
	if id == "" || t.probe == nil || t.probing[id] {
		return nil
	}
	t.probing[id] = true
	ctx, probe := t.ctx, t.probe
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		n, err := probe(c, id)
		return liveProbeMsg{id: id, tree: n, err: err}
	}
}

// probed stores a probe's result and shows it if its step is on screen.
func (t *Model) probed(msg liveProbeMsg) {
	delete(t.probing, msg.id)
	r := t.probes[msg.id]
	if msg.err == nil {
		r.prev, r.tree = r.tree, msg.tree
	}
	r.err = msg.err
	t.probes[msg.id] = r
	if t.InTrack() && t.trackStep().Live == msg.id {
		t.showProbe()
	}
}

// showProbe puts the probe of the track step on screen into the state pane.
func (t *Model) showProbe() {
	id := t.trackStep().Live
	r := t.probes[id]
	t.state.SetProbe(id, walk.Probe{Tree: r.tree, Prev: r.prev, Err: r.err}, t.probing[id], t.probe != nil)
}

// trackLine is the checkpoint line of a track step: the track, the lesson, the step and its
// place in the track.
func (t *Model) trackLine(w int) string {
	step := t.trackStep()
	right := "  " + fmt.Sprintf(t.tr.TrackStepOf, t.trackAt+1, len(t.track))
	left := t.st.Chain.Checkpoint.Render(fmt.Sprintf(t.tr.TrackLine, step.Lesson)) + "  " + t.st.Chain.Title.Render(step.Title)
	return fitRight(left, right, w, t.st.Status.Note.Render)
}

// TrackCommand runs :track [N]: the track from its Nth lesson (1-based), else where the
// learner left it. problem is why it could not run ("" when it ran).
func (t *Model) TrackCommand(args []string) (cmd tea.Cmd, problem string) {
	if len(args) == 0 {
		return t.OpenTrack(t.trackLast), ""
	}
	lessons := t.trackLessons()
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > len(lessons) || len(args) > 1 {
		return nil, fmt.Sprintf(t.tr.ErrTrackArg, len(lessons))
	}
	return t.OpenTrack(lessons[n-1]), ""
}

// trackLessons returns the index of each track lesson's first step.
func (t *Model) trackLessons() []int {
	var out []int
	for i, s := range t.track {
		if i == 0 || s.LessonID != t.track[i-1].LessonID {
			out = append(out, i)
		}
	}
	return out
}

// TrackIndex is a track step's position in the track, -1 for an unknown ID.
func (t *Model) TrackIndex(id string) int {
	for i, s := range t.track {
		if s.ID == id {
			return i
		}
	}
	return -1
}

// serveStop reports whether the live serve stop is on screen (n there opens the track).
func (t *Model) serveStop() bool {
	return t.served && t.review < 0 && !t.InTrack() && t.failed == nil
}

// Where is the walkthrough's state as the class reads it: the place this screen is at (the
// live stop while the startup runs, then the serving server and the track step on screen),
// the live checkpoint, and whether the server can move.
func (t *Model) Where() class.Where {
	w := class.Where{Running: t.running, Failed: t.failed != nil, Reviewing: t.review >= 0, TrackAt: -1}
	if t.InTrack() {
		w.TrackAt = t.trackAt
	}
	live := t.Live()
	if live != nil {
		w.Live = live.Checkpoint.ID()
	}
	switch {
	case t.served:
		all := server.Checkpoints()
		w.Place = class.Place{Checkpoint: all[len(all)-1].ID(), Served: true}
		if t.InTrack() {
			w.Place.Step = t.trackStep().ID
		}
	case live != nil:
		w.Place = class.Place{Checkpoint: w.Live}
	}
	return w
}

// fitRight fits left into the width w with right (styled by note) at its end, dropping right
// when there is too little room.
func fitRight(left, right string, w int, note func(...string) string) string {
	room := w - ansi.StringWidth(right)
	if room < 20 {
		return left
	}
	return common.Fit(left, room) + note(right)
}
