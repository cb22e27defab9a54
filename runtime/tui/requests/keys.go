package requests

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// KeyMap is the Requests view's own keys, with help in the learner's language. The keys are
// the root KeyMap's (runtime/tui.NewKeyMap) for the same actions, which its ? overlay lists;
// the scroll keys come from common.Common.
type KeyMap struct {
	FocusNext, FocusPrev key.Binding // tab, shift+tab: the next or previous pane
	Filter               key.Binding // /: filter the list
	Loopback             key.Binding // L: show or hide the loopback requests and kubewalk's own
	StageSource          key.Binding // s (or enter on the lane): the stage's code
	StageEtcd            key.Binding // S: the etcd key a storage stage wrote or read
	Upstream, Wrap       key.Binding // u, w in the source pane
	HeldStep             key.Binding // space/n: step a held request to its next breakpoint
	HeldRun              key.Binding // E: let it run to the end
	HeldAbort            key.Binding // x: fail it where it is held

	// What the help bar says besides (their keys are listed in its text).
	Select, Lane, Stage        key.Binding
	StepHeld, RunToEnd, FailIt key.Binding
	FilterApply, FilterCancel  key.Binding
}

// NewKeyMap returns the view's keys with help in tr's language.
func NewKeyMap(tr *i18n.Strings) KeyMap {
	b := func(keys []string, help, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		FocusNext:   b([]string{"tab"}, "tab", tr.KeyFocusNext),
		FocusPrev:   b([]string{"shift+tab"}, "shift+tab", tr.KeyFocusPrev),
		Filter:      b([]string{"/"}, "/", tr.KeyFilter),
		Loopback:    b([]string{"L"}, "L", tr.KeyLoopback),
		StageSource: b([]string{"s"}, "s", tr.KeyStageSource),
		StageEtcd:   b([]string{"S"}, "S", tr.KeyStageEtcd),
		Upstream:    b([]string{"u"}, "u", tr.KeyUpstream),
		Wrap:        b([]string{"w"}, "w", tr.KeyWrap),
		HeldStep:    b([]string{" ", "n"}, "space/n", tr.KeyHeldStep),
		HeldRun:     b([]string{"E"}, "E", tr.KeyHeldRun),
		HeldAbort:   b([]string{"x"}, "x", tr.KeyHeldAbort),

		Select:       b([]string{"up", "down"}, "↑/↓", tr.BarSelect),
		Lane:         b([]string{"enter"}, "enter", tr.BarLane),
		Stage:        b([]string{"left", "right", "h", "l"}, "←/→", tr.BarStage),
		StepHeld:     b([]string{" ", "n"}, "space/n", tr.BarStepHeld),
		RunToEnd:     b([]string{"E"}, "E", tr.BarRunToEnd),
		FailIt:       b([]string{"x"}, "x", tr.BarFailIt),
		FilterApply:  b([]string{"enter"}, "enter", tr.BarFilter),
		FilterCancel: b([]string{"esc"}, "esc", tr.BarCancel),
	}
}
