package tour

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/engine"
)

// autoWait starts the auto pause at the checkpoint just reached, when the walkthrough runs on
// its own.
func (t *Model) autoWait() tea.Cmd {
	if t.auto <= 0 {
		return nil
	}
	t.disarmAuto()
	t.autoGen++
	t.autoArmed = true
	gen, d, cancel, done := t.autoGen, t.auto, make(chan struct{}), t.done()
	t.autoCancel = cancel
	return func() tea.Msg {
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-tm.C:
			return AutoMsg{Gen: gen}
		case <-cancel:
		case <-done:
		}
		return nil
	}
}

// disarmAuto ends the auto pause's timer, if one runs; a message it already sent is stale.
func (t *Model) disarmAuto() {
	if t.autoCancel != nil {
		close(t.autoCancel)
		t.autoCancel = nil
	}
	t.autoArmed = false
	t.autoGen++
}

// autoNext continues to the next checkpoint when the auto pause at the current one is over,
// unless a key took over meanwhile (or the server cannot move: it serves or failed).
func (t *Model) autoNext(msg AutoMsg) tea.Cmd {
	if msg.Gen != t.autoGen {
		return nil
	}
	t.disarmAuto()
	if t.auto <= 0 || t.running || t.served || t.failed != nil {
		return nil
	}
	return t.resume(engine.NextCheckpoint(), t.tr.TargetNextCheckpoint)
}

// stopAuto hands the walkthrough back to the learner and says so in the status line.
func (t *Model) stopAuto() {
	t.auto = 0
	t.disarmAuto()
	t.note(t.tr.NoteAutoOff)
}

// Auto is the pause at each checkpoint while the walkthrough runs on its own, 0 once the
// learner took over; AutoGen is the current pause's generation and AutoArmed whether its timer
// runs (the test harness counts it as idle).
func (t *Model) Auto() time.Duration { return t.auto }

// AutoGen is the generation of the current auto pause (an AutoMsg of another is stale).
func (t *Model) AutoGen() int { return t.autoGen }

// AutoArmed reports whether the auto pause's timer runs.
func (t *Model) AutoArmed() bool { return t.autoArmed }
