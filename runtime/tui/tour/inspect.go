package tour

import (
	"time"

	"github.com/kubewalk/kubewalk/runtime/tui/side"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
)

// This file is what the root's tests and its test harness read of the walkthrough: the panes
// and where the walkthrough is. The root itself asks only through the methods of the other
// files.

// Reviewing is the index of the earlier stop on screen, -1 when live.
func (t *Model) Reviewing() int { return t.review }

// History is every stop so far, oldest first.
func (t *Model) History() int { return len(t.history) }

// Running reports whether the server runs to a target (Continue was sent).
func (t *Model) Running() bool { return t.running }

// TrackAt is the track step on screen, -1 outside the track.
func (t *Model) TrackAt() int {
	if !t.InTrack() {
		return -1
	}
	return t.trackAt
}

// TrackStep is the track step on screen (call only InTrack).
func (t *Model) TrackStep() walk.Step { return t.trackStep() }

// Focus is the focused pane; Tab the one in the shared place.
func (t *Model) Focus() Pane { return t.focus }

// Tab is the pane in the shared (tabbed) place.
func (t *Model) Tab() Pane { return t.tab }

// FocusedSize is the focused pane's size.
func (t *Model) FocusedSize() (w, h int) { return t.frameOf(t.focus).Size() }

// Probing reports whether a probe runs.
func (t *Model) Probing() bool { return len(t.probing) > 0 }

// Loading reports whether a pane waits for its code (the source pane or the kube pane).
func (t *Model) Loading() bool { return t.source.Loading() || t.side.Kube().Loading() }

// Fetching reports whether a module download runs.
func (t *Model) Fetching() bool { return t.fetch.Running() }

// SetPolling marks the /readyz poll as started (a benchmark keeps it from ever running).
func (t *Model) SetPolling() { t.polling = true }

// Panes are the walkthrough's panes and the side-by-side view (for tests).
func (t *Model) Panes() (*source.Pane, *walk.State, *walk.Lesson, *walk.Served, *side.Model) {
	return t.source, t.state, t.lesson, t.kubect, t.side
}

// SetClock sets the clock of the /readyz poll's time (a test's fixed one).
func (t *Model) SetClock(now func() time.Time) { t.env.Now = now }

// SetFocus focuses pane p, as tab or a click does.
func (t *Model) SetFocus(p Pane) { t.setFocus(p) }
