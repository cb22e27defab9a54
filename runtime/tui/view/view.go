// Package view is the contract between the TUI's root model (runtime/tui) and each screen the
// : command line opens: one package per view under runtime/tui, each owning its state, its
// messages and its key map, as soft-serve's pages and k9s's views do.
//
// The root only routes: it keeps the window size, the global keys (:, ?, q, tab, the view
// switch) and the command line, and hands the active view everything else. It never reads a
// view's fields; what it needs to know it asks through this interface.
package view

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/cmdline"
)

// View is one screen of the TUI.
//
// The choices, and why:
//   - Update mutates the view in place and returns only a command (not a new model as
//     tea.Model does): the root holds each view behind a pointer for the whole run, views cache
//     their rendered panes, and a value copy per message would copy those caches for nothing.
//   - View gets the size it is drawn at on every call, so a view never holds a size the root
//     forgot to tell it; a view that lays out expensively (wrapping) caches by size.
//   - View returns lines, not one string: the root assembles the screen line by line (header,
//     body, overlays, zoom, the class lines), and a cached pane hands its lines back without a
//     join and a split on every frame (the frame budget is 2 ms at 200×60).
//   - Title returns the header's two parts, the view's name on the left and a hint on the
//     right, because every view's header line has both.
type View interface {
	// Init returns the command that starts the view's background work (a first load, a
	// watch), or nil. The root calls it once, when the view is created.
	Init() tea.Cmd
	// Update handles a message: the keys and mouse events the root routes to the active view
	// (mouse coordinates relative to the view's top-left corner), and the view's own messages,
	// whose types are defined in the view's package.
	Update(msg tea.Msg) tea.Cmd
	// View renders the view: exactly h lines of exactly w cells.
	View(w, h int) []string
	// Keys are the view's own bindings for the help bar, most useful first; the root adds the
	// global ones (:, ?, q) around them.
	Keys() []key.Binding
	// Title is the header line's two parts: the view's name and a hint.
	Title() (name, hint string)
}

// Capturer is a view that can hold a text box (a prompt, a search field) which must see every
// key before the root's global ones: while Capturing reports true the root hands the view all
// keys except ctrl+c, so typing ":" or "q" into the box types them.
type Capturer interface {
	Capturing() bool
}

// ServerMsg tells every view that the walkthrough's server moved: it paused at a checkpoint,
// it serves, or its start-up failed. The root broadcasts it after each engine event; a view that
// found the server not ready (no etcd yet, nothing served yet) asks again here.
type ServerMsg struct {
	Paused bool // it stopped at a checkpoint
	Served bool // it serves (the walkthrough's end)
	Failed bool // start-up failed
}

// NoteMsg is a line for the root's status note, from a view's command: the root shows it
// under the body until the next key, as it shows its own notes. It comes back whenever the
// command ends: bubbletea runs the commands of separate updates on separate goroutines, so two
// NoteMsgs, or a NoteMsg and a later key's clear, arrive in any order. For a note said while a
// message is handled (a key stops a command: "stopping…", then its end clears it), use Noter.
type NoteMsg string

// Noter is a view whose notes keep their order: after every message the root handles (a key,
// a mouse event, a view's own message, a broadcast), it asks each Noter for the note said
// meanwhile, and one said replaces the root's at once, on the update loop, before the next
// message — as the root's own notes do. A key clears the note before the view sees the key,
// so a note said on that key shows.
type Noter interface {
	// Note returns the note said since the last call ("" clears the root's) and whether one
	// was said, and forgets it.
	Note() (string, bool)
}

// Notes is what a Noter embeds: Say keeps the latest note, Note hands it over once.
type Notes struct {
	note  string
	noted bool
}

// Say keeps s as the note for the root to take after this message ("" clears the root's).
func (n *Notes) Say(s string) { n.note, n.noted = s, true }

// Note returns the note said since the last call and whether one was; it forgets it.
func (n *Notes) Note() (string, bool) {
	s, ok := n.note, n.noted
	n.note, n.noted = "", false
	return s, ok
}

// Zoomer is a view of more than one pane that zooms (the root's z): while the zoom is on the
// root draws ZoomView instead of View, and adds z to the help bar after the view's Keys. A
// view of one pane (the glossary) does not implement it: zoomed, it is drawn as always.
type Zoomer interface {
	// ZoomView renders the view's focused pane alone: exactly h lines of exactly w cells.
	ZoomView(w, h int) []string
}

// Commander is a view that offers : commands (the etcd view's :etcd KEY, the kubectl view's
// :kubectl ARGS): the root puts them in its one table (cmdline.Registry), where its help lists
// them, so the suggestions, :help and the running of a line read them as the root's own. A
// command whose Action has Show set brings this view on screen. The root asks once, when it
// builds the table; the commands' Complete and Run read the view as it is when they are called.
type Commander interface {
	Commands() []cmdline.Command
}
