package tour

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// Typing reports whether keys go into the source pane's search line (the root hands the
// walkthrough every key then, before its own).
func (t *Model) Typing() bool { return t.source.Typing() }

// TakeOver hands a walkthrough that runs on its own (Options.Auto) back to the learner at a
// key or a click, and says so in the status line.
func (t *Model) TakeOver() {
	if t.auto > 0 {
		t.stopAuto()
	}
}

// key handles a key press while the walkthrough is on screen; the root has handled its global
// keys (:, ?, q, z and the class's) before.
func (t *Model) key(msg tea.KeyMsg) tea.Cmd {
	if t.source.Typing() {
		return t.source.SearchKey(msg)
	}
	k := t.keys
	if t.InTrack() {
		if cmd, ok := t.trackKey(msg); ok {
			return cmd
		}
	}
	if t.side.Open() {
		if cmd, ok := t.side.Key(msg); ok {
			return cmd
		}
	}
	searching := t.source.Searching()
	switch {
	case key.Matches(msg, k.Live):
		switch {
		case searching:
			return t.source.ClearSearch()
		case t.source.Browsing():
			return t.source.CloseFile()
		}
		return t.reviewTo(len(t.history) - 1)
	case searching && key.Matches(msg, k.MatchNext):
		return t.source.NextMatch(1)
	case searching && key.Matches(msg, k.MatchPrev):
		return t.source.NextMatch(-1)
	case searching && t.focus == PaneSource && key.Matches(msg, k.OpenMatch):
		t.source.OpenMatch()
	case key.Matches(msg, k.Next):
		if t.review >= 0 {
			return t.reviewTo(t.review + 1)
		}
		if t.serveStop() && len(t.track) > 0 {
			return t.OpenTrack(t.trackLast)
		}
		return t.resume(engine.NextCheckpoint(), t.tr.TargetNextCheckpoint)
	case key.Matches(msg, k.Forward):
		if t.review >= 0 {
			return t.reviewTo(t.review + 1)
		}
	case key.Matches(msg, k.Back):
		if t.review < 0 {
			return t.reviewTo(len(t.history) - 2)
		}
		return t.reviewTo(t.review - 1)
	case key.Matches(msg, k.NextPhase):
		return t.resume(engine.NextPhase(), t.tr.TargetNextPhase)
	case key.Matches(msg, k.ToEnd):
		return t.resume(engine.ToEnd(), t.tr.TargetEnd)
	case key.Matches(msg, k.Phase):
		return t.toPhase(int(msg.Runes[0] - '1'))
	case key.Matches(msg, k.Served):
		t.toggleServed()
	case key.Matches(msg, k.FocusNext):
		t.cycleFocus(1)
	case key.Matches(msg, k.FocusPrev):
		t.cycleFocus(-1)
	case key.Matches(msg, k.Upstream):
		return t.source.ToggleUpstream()
	case key.Matches(msg, k.SideBySide):
		cmd, note := t.side.Toggle()
		if note != "" {
			t.note(note)
			return nil
		}
		t.Layout(t.lay.w, t.lay.h)
		return cmd
	case key.Matches(msg, k.Fetch):
		cmd, note := t.side.StartFetch()
		if note != "" {
			t.note(note)
		}
		return cmd
	case key.Matches(msg, k.Wrap):
		t.source.ToggleWrap()
	case key.Matches(msg, k.Raw):
		t.state.ToggleRaw()
		if t.shared(PaneState) && t.tab != PaneState {
			t.setFocus(PaneState) // stacked layout: show what r switched
		}
	case key.Matches(msg, k.Search):
		t.setFocus(PaneSource)
		t.source.StartSearch()
	case key.Matches(msg, k.Toggle):
		if t.focus == PaneState && !t.state.Toggle() {
			t.note(t.tr.NoteRowWhole)
		}
	case key.Matches(msg, k.NextChange), key.Matches(msg, k.PrevChange):
		d := 1
		if key.Matches(msg, k.PrevChange) {
			d = -1
		}
		t.setFocus(PaneState)
		if t.state.Raw() || !t.state.JumpChange(d) {
			t.note(t.tr.NoteNoChange)
		}
	case key.Matches(msg, k.ExpandAll):
		if t.focus == PaneState {
			t.state.ExpandAll()
		}
	case key.Matches(msg, k.CollapseAll):
		if t.focus == PaneState {
			t.state.CollapseAll()
		}
	default:
		common.ScrollKeyOf(msg, common.ScrollKeys{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom},
			focusedPane{t})
	}
	return nil
}

// focusedPane scrolls the walkthrough's focused pane (in the state tree: moves its cursor).
type focusedPane struct{ t *Model }

func (f focusedPane) Scroll(n int) { f.t.scrollFocused(n) }
func (f focusedPane) Page() int    { return f.t.page() }
