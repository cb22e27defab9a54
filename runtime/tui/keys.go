package tui

import "github.com/charmbracelet/bubbles/key"

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
// ":" opens the command line in every view. The after-serve views it opens have keys of their
// own, which act only there: in the Requests view / filters, L shows the server's loopback
// requests, ←/→ select a stage of the lane, s opens the stage's code, S a storage stage's etcd
// key, and space/n, E and x step, let go and fail a request a breakpoint holds.
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
	MatchNext   key.Binding
	MatchPrev   key.Binding
	OpenMatch   key.Binding

	// The : command line and the after-serve views (Requests, kubectl, etcd).
	Command     key.Binding
	Filter      key.Binding
	Loopback    key.Binding
	StageSource key.Binding
	StageEtcd   key.Binding
	HeldStep    key.Binding
	HeldRun     key.Binding
	HeldAbort   key.Binding

	Help key.Binding
	Quit key.Binding
}

// DefaultKeyMap returns kubewalk's key bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Next:      key.NewBinding(key.WithKeys(" ", "n", "right"), key.WithHelp("space/n/→", "next checkpoint")),
		NextPhase: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "next phase")),
		ToEnd:     key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "run to the end")),
		Phase:     key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7"), key.WithHelp("1-7", "first step of a phase")),
		Back:      key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "review earlier step")),
		Forward:   key.NewBinding(key.WithKeys("l"), key.WithHelp("→/l", "review later step")),
		Live:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to live")),

		FocusNext: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		FocusPrev: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Served:    key.NewBinding(key.WithKeys("K"), key.WithHelp("K", "kubectl panel")),
		Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:    key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown:  key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "f"), key.WithHelp("pgdn/f", "page down")),
		Top:       key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "top")),
		Bottom:    key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "bottom")),

		Toggle:      key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open / show whole")),
		NextChange:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]/[", "next/prev change")),
		PrevChange:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous change in state")),
		ExpandAll:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "expand all")),
		CollapseAll: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "collapse all")),
		Raw:         key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "raw objects")),
		Upstream:    key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "upstream source")),
		Wrap:        key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wrap source")),
		Search:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search server/ source")),
		MatchNext:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n/N", "next/prev match")),
		MatchPrev:   key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		OpenMatch:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open the match's file")),

		Command:     key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command line")),
		Filter:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter requests")),
		Loopback:    key.NewBinding(key.WithKeys("L"), key.WithHelp("L", "loopback requests")),
		StageSource: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "the stage's source")),
		StageEtcd:   key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "storage stage's etcd key")),
		HeldStep:    key.NewBinding(key.WithKeys(" ", "n"), key.WithHelp("space/n", "held: next stage")),
		HeldRun:     key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "held: run to the end")),
		HeldAbort:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "held: fail it here")),

		Help: key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit: key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}
