package tui

import (
	"github.com/charmbracelet/bubbles/key"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
)

// KeyMap is every key binding of the walkthrough screen, with its help text.
//
// Stepping: space, n or → run the server to the next checkpoint (while reviewing they step
// forward through the recorded stops instead); p runs to the next phase, E to the end, 1–7 go
// to the first step of a phase (run to it when it is ahead, else review its first recorded
// stop). ← or h reviews
// earlier stops; esc returns to the live stop. / searches kubewalk's server/ source; after a
// search n and N move between matches, across files, until esc clears the search (space and →
// still step); enter keeps the match's file open, esc then goes back to the step's code.
//
// After serve, n on the live serve stop opens the after-serve track (also :track [N]); there n
// and ← move through its steps, ← on the first (or esc) returns to the serve stop, and r reads
// the server again (the live probe). s shows kube-apiserver's function beside ours on any step
// with a kube: location, tab switches side; F fetches the module source a pane lacks.
//
// ":" opens the command line in every view. The after-serve views it opens have keys of their
// own, which act only there: in the Requests view / filters, L shows the server's loopback
// requests, ←/→ select a stage of the lane, s opens the stage's code, S a storage stage's etcd
// key, and space/n, E and x step, let go and fail a request a breakpoint holds. In the
// exercises view h reveals the next hint, a opens the answer line and 1–9 choose an option.
type KeyMap struct {
	Next      key.Binding
	NextPhase key.Binding
	ToEnd     key.Binding
	Phase     key.Binding
	Back      key.Binding
	Forward   key.Binding
	Live      key.Binding

	FocusNext key.Binding
	FocusPrev key.Binding
	Zoom      key.Binding
	Served    key.Binding
	Up        key.Binding
	Down      key.Binding
	PageUp    key.Binding
	PageDown  key.Binding
	Top       key.Binding
	Bottom    key.Binding

	Toggle      key.Binding
	NextChange  key.Binding
	PrevChange  key.Binding
	ExpandAll   key.Binding
	CollapseAll key.Binding
	Raw         key.Binding
	Upstream    key.Binding
	Wrap        key.Binding
	Search      key.Binding
	// Rerun reads the server again on a step of the after-serve track (r, Raw's key, which has
	// nothing to show there); SideBySide shows kube-apiserver's function beside ours; Fetch
	// downloads the module whose source a pane lacks.
	Rerun      key.Binding
	SideBySide key.Binding
	Fetch      key.Binding
	MatchNext  key.Binding
	MatchPrev  key.Binding
	OpenMatch  key.Binding

	// The : command line and the after-serve views (Requests, kubectl, etcd).
	Command     key.Binding
	Filter      key.Binding
	Loopback    key.Binding
	StageSource key.Binding
	StageEtcd   key.Binding
	HeldStep    key.Binding
	HeldRun     key.Binding
	HeldAbort   key.Binding

	// The exercises view: the next hint, the answer line, an option of a multiple choice
	// (exercises.NewKeyMap's; the ? overlay lists them, the view has its own).
	Hint   key.Binding
	Answer key.Binding
	Choose key.Binding

	// A follow-along class: the board on the instructor's screen; following (detach and
	// re-sync) and the stuck flag on a student's.
	ClassBoard  key.Binding
	ClassFollow key.Binding
	ClassStuck  key.Binding
	// ClassAssigned opens the exercise the instructor assigned (a student's screen).
	ClassAssigned key.Binding

	Help key.Binding
	Quit key.Binding
}

// DefaultKeyMap returns kubewalk's key bindings, with English help.
func DefaultKeyMap() KeyMap { return NewKeyMap(i18n.For(i18n.English)) }

// NewKeyMap returns kubewalk's key bindings with help in tr's language; the keys are the same
// in every language.
func NewKeyMap(tr *i18n.Strings) KeyMap {
	sk := common.NewScrollKeys(tr)
	ek := exercises.NewKeyMap(tr)
	return KeyMap{
		Next:      key.NewBinding(key.WithKeys(" ", "n", "right"), key.WithHelp("space/n/→", tr.KeyNext)),
		NextPhase: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", tr.KeyNextPhase)),
		ToEnd:     key.NewBinding(key.WithKeys("E"), key.WithHelp("E", tr.KeyToEnd)),
		Phase:     key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7"), key.WithHelp("1-7", tr.KeyPhase)),
		Back:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", tr.KeyBack)),
		Forward:   key.NewBinding(key.WithKeys("l"), key.WithHelp("→/l", tr.KeyForward)),
		Live:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.KeyLive)),

		FocusNext: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", tr.KeyFocusNext)),
		FocusPrev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", tr.KeyFocusPrev)),
		Zoom:      key.NewBinding(key.WithKeys("z"), key.WithHelp("z", tr.KeyZoom)),
		Served:    key.NewBinding(key.WithKeys("K"), key.WithHelp("K", tr.KeyServed)),
		Up:        sk.Up,
		Down:      sk.Down,
		PageUp:    sk.PageUp,
		PageDown:  sk.PageDown,
		Top:       sk.Top,
		Bottom:    sk.Bottom,

		Toggle:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.KeyToggle)),
		NextChange:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]/[", tr.KeyNextChange)),
		PrevChange:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", tr.KeyPrevChange)),
		ExpandAll:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", tr.KeyExpandAll)),
		CollapseAll: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", tr.KeyCollapseAll)),
		Raw:         key.NewBinding(key.WithKeys("r"), key.WithHelp("r", tr.KeyRaw)),
		Upstream:    key.NewBinding(key.WithKeys("u"), key.WithHelp("u", tr.KeyUpstream)),
		Wrap:        key.NewBinding(key.WithKeys("w"), key.WithHelp("w", tr.KeyWrap)),
		Search:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", tr.KeySearch)),
		Rerun:       key.NewBinding(key.WithKeys("r"), key.WithHelp("r", tr.KeyRerun)),
		SideBySide:  key.NewBinding(key.WithKeys("s"), key.WithHelp("s", tr.KeySideBySide)),
		Fetch:       key.NewBinding(key.WithKeys("F"), key.WithHelp("F", tr.KeyFetch)),
		MatchNext:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", tr.KeyMatchNext)),
		MatchPrev:   key.NewBinding(key.WithKeys("N"), key.WithHelp("N", tr.KeyMatchPrev)),
		OpenMatch:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.KeyOpenMatch)),

		Command:     key.NewBinding(key.WithKeys(":"), key.WithHelp(":", tr.KeyCommand)),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", tr.KeyFilter)),
		Loopback:    key.NewBinding(key.WithKeys("L"), key.WithHelp("L", tr.KeyLoopback)),
		StageSource: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", tr.KeyStageSource)),
		StageEtcd:   key.NewBinding(key.WithKeys("S"), key.WithHelp("S", tr.KeyStageEtcd)),
		HeldStep:    key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space/n", tr.KeyHeldStep)),
		HeldRun:     key.NewBinding(key.WithKeys("E"), key.WithHelp("E", tr.KeyHeldRun)),
		HeldAbort:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", tr.KeyHeldAbort)),

		Hint:   ek.Hint,
		Answer: ek.Answer,
		Choose: ek.Choose,

		ClassBoard:    key.NewBinding(key.WithKeys("B"), key.WithHelp("B", tr.KeyClassBoard)),
		ClassFollow:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", tr.KeyClassFollow)),
		ClassStuck:    key.NewBinding(key.WithKeys("!"), key.WithHelp("!", tr.KeyClassStuck)),
		ClassAssigned: key.NewBinding(key.WithKeys("A"), key.WithHelp("A", tr.KeyClassAssigned)),

		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", tr.KeyHelp)),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", tr.KeyQuit)),
	}
}
