// Package etcd is the :etcd view, the etcd explorer: the keys the server stores under
// /registry as a tree by resource › namespace › name (the tree pane), and the selected key's
// metadata and value decoded with the server's own codecs (the value pane). Keys are listed a
// page at a time as the cursor nears the end, and a watch from the first page's revision marks
// what changes while the view is open (+ new, ~ changed) and decodes the shown key again.
//
// It implements view.View (runtime/tui/view) and draws with runtime/tui/common. Other views
// open a key here with OpenKeyMsg (the Requests view's S on a storage stage).
package etcd

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

const (
	// Prefix is where the server keeps its objects: the explorer lists and watches under it.
	Prefix = "/registry/"
	// PageSize is how many keys one read lists.
	PageSize = 500
	// wideWidth is the width from which the panes sit side by side, the root's rule for every
	// layout (runtime/tui's wideWidth; the view's width is the window's).
	wideWidth = 120
	// maxBurst is how many changes of the watch one message carries at most.
	maxBurst = 1000
)

// OpenKeyMsg shows the etcd view with Key selected, its value decoded; an empty Key shows the
// view as it was left (:etcd). The first open lists the keys and starts the watch. The root
// switches to the view when it sees this message and hands it to the view; another view
// returns it from a tea.Cmd. A key not listed yet gets the cursor once a page brings it.
type OpenKeyMsg struct{ Key string }

// The view's own messages, from its commands.
type (
	// pageMsg is one page of the listing.
	pageMsg struct {
		after string // the continue key the page was asked with
		page  Page
		err   error
	}
	// valueMsg is a decoded key.
	valueMsg struct {
		key string
		val Value
		err error
	}
	// watchMsg carries a started watch.
	watchMsg struct{ ch <-chan Change }
	// changesMsg is what the watch reported since the last one; closed when it ended.
	changesMsg struct {
		changes []Change
		closed  bool
	}
)

// rect is a pane's place in the view, relative to its top-left corner.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// laidOut is what the panes were last sized for.
type laidOut struct {
	w, h  int
	zoom  bool
	focus int // the zoomed pane; -1 unzoomed
}

// Model is the etcd view.
type Model struct {
	c   common.Common
	b   Browser // nil: the explorer is not wired into this run
	ctx context.Context
	km  keyMap

	tree      common.Frame
	valuePane *common.TextPane
	focus     int  // 0 the tree, 1 the value
	wide      bool // the panes side by side
	laid      laidOut
	// treeAt and valueAt are where the panes were last drawn (a zoomed view draws one), for
	// the mouse.
	treeAt, valueAt rect

	started  bool
	loading  bool
	cont     string // the next page's continue key; "" once everything is listed
	err      string
	notReady bool // the last listing failed because the server has no etcd yet
	rev      int64
	listRev  int64   // the first page's revision: the watch starts after it
	keys     []entry // in key order
	open     map[string]bool
	changed  map[string]byte // '+' new, '~' changed since listed

	rows   []row
	cursor int
	offset int

	sel      string
	want     string // a key to put the cursor on once a page lists it (OpenKeyMsg)
	val      *Value
	valErr   string
	deleted  bool
	watching bool          // the watch was asked for (the title says live)
	armed    bool          // the watch's waiter runs
	blocked  view.Waiter   // the watch's waiter is blocked on its channel
	watchCh  <-chan Change // the running watch
}

var (
	_ view.View   = (*Model)(nil)
	_ view.Zoomer = (*Model)(nil)
)

// New makes the view over b (nil: the view says the explorer is not wired). Its commands run
// until ctx ends (the root cancels it at shutdown).
func New(c common.Common, b Browser, ctx context.Context) *Model {
	v := &Model{c: c, b: b, ctx: ctx, km: newKeyMap(c), tree: common.NewFrame(c.Styles),
		valuePane: common.NewTextPane(c.Styles, c.Tr.PaneValue), laid: laidOut{focus: -2},
		open: map[string]bool{}, changed: map[string]byte{}}
	v.relayoutValue()
	return v
}

// Init starts nothing: the keys are listed when the view is first opened.
func (v *Model) Init() tea.Cmd { return nil }

// Update handles the keys and mouse the root routes here, OpenKeyMsg, view.ServerMsg and the
// view's own messages.
func (v *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return v.key(msg)
	case tea.MouseMsg:
		return v.mouse(msg)
	case OpenKeyMsg:
		return v.openKey(msg.Key)
	case view.ServerMsg:
		if v.b != nil && v.notReady && !v.loading && !v.started {
			// The listing found the server without etcd yet: ask again at each stop.
			v.loading = true
			v.tree.Invalidate()
			return v.list("")
		}
	case pageMsg:
		if msg.after != v.cont && v.started {
			return nil // a page read twice
		}
		v.page(msg)
		var next tea.Cmd
		if v.want != "" {
			next = v.nextPage(true) // the key asked for is further on
		}
		return tea.Batch(v.selectCursor(), v.watch(), next)
	case valueMsg:
		v.value(msg)
	case watchMsg:
		v.watchCh, v.armed = msg.ch, true
		return wait(msg.ch, v.ctx.Done(), &v.blocked)
	case changesMsg:
		var cmds []tea.Cmd
		if msg.closed {
			v.armed, v.watching = false, false
		} else {
			cmds = append(cmds, wait(v.watchCh, v.ctx.Done(), &v.blocked))
		}
		if v.changes(msg.changes) && v.sel != "" && !v.deleted {
			cmds = append(cmds, v.decode(v.sel))
		}
		return tea.Batch(cmds...)
	}
	return nil
}

// View renders the tree and the value pane, side by side from wideWidth, else stacked.
func (v *Model) View(w, h int) []string {
	v.layout(w, h, false)
	tree := v.treeView(v.focus == 0)
	v.valuePane.SetFocused(v.focus == 1)
	if v.wide {
		return common.JoinColumns(tree, v.valuePane.View())
	}
	return append(append([]string{}, tree...), v.valuePane.View()...)
}

// ZoomView renders the focused pane alone at w×h.
func (v *Model) ZoomView(w, h int) []string {
	v.layout(w, h, true)
	if v.focus == 1 {
		v.valuePane.SetFocused(true)
		return v.valuePane.View()
	}
	return v.treeView(true)
}

// layout sizes the panes for w×h (zoomed or not), when that changed since the last frame.
func (v *Model) layout(w, h int, zoom bool) {
	at := laidOut{w: w, h: h, zoom: zoom, focus: -1}
	if zoom {
		at.focus = v.focus
	}
	if at == v.laid {
		return
	}
	v.laid = at
	v.wide = w >= wideWidth
	var tree, val rect
	if v.wide {
		treeW := w * 45 / 100
		tree, val = rect{0, 0, treeW, h}, rect{treeW, 0, w - treeW, h}
	} else {
		treeH := h * 45 / 100
		tree, val = rect{0, 0, w, treeH}, rect{0, treeH, w, h - treeH}
	}
	if zoom {
		// The focused pane takes the body; the other keeps its size, and is not drawn.
		if v.focus == 1 {
			val = rect{0, 0, w, h}
		} else {
			tree = rect{0, 0, w, h}
		}
	}
	v.tree.SetSize(tree.w, tree.h)
	v.valuePane.SetSize(val.w, val.h)
	v.keepVisible()
	v.relayoutValue()
	v.treeAt, v.valueAt = tree, val
	if zoom && v.focus == 1 {
		v.treeAt = rect{}
	} else if zoom {
		v.valueAt = rect{}
	}
}

// Title is the header's name and hint: live while the watch runs.
func (v *Model) Title() (string, string) {
	hint := ""
	if v.watching {
		hint = v.c.Tr.ViewEtcdLive
	}
	return fmt.Sprintf(v.c.Tr.ViewEtcdTitle, Prefix), hint
}

// Keys are the help bar's bindings.
func (v *Model) Keys() []key.Binding {
	return []key.Binding{v.km.Move, v.km.Toggle, v.km.Focus}
}

// key handles a key: tab switches panes; in the value pane the scroll keys scroll; in the
// tree they move the cursor, and enter/space, →/l, ←/h open and close.
func (v *Model) key(msg tea.KeyMsg) tea.Cmd {
	k, s := v.km, v.c.Scroll
	if key.Matches(msg, k.Focus) {
		v.focus = 1 - v.focus
		return nil
	}
	if v.focus == 1 {
		v.valuePane.ScrollKey(msg, s)
		return nil
	}
	switch {
	case key.Matches(msg, s.Up):
		v.move(-1)
	case key.Matches(msg, s.Down):
		v.move(1)
	case key.Matches(msg, s.PageUp):
		v.move(-v.visible())
	case key.Matches(msg, s.PageDown):
		v.move(v.visible())
	case key.Matches(msg, s.Top):
		v.move(-1 << 30)
	case key.Matches(msg, s.Bottom):
		v.move(1 << 30)
	case key.Matches(msg, k.Toggle):
		if r, ok := v.current(); ok && r.kind == rowMore && v.err != "" {
			v.err = ""
			return v.nextPage(true)
		}
		v.toggle(0)
	case key.Matches(msg, k.Open):
		v.toggle(1)
	case key.Matches(msg, k.Close):
		v.toggle(-1)
	default:
		return nil
	}
	return tea.Batch(v.selectCursor(), v.nextPage(false))
}

// mouse focuses the pane under a click or the wheel, and the wheel moves the tree's cursor or
// scrolls the value.
func (v *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	switch {
	case v.treeAt.contains(msg.X, msg.Y):
		v.focus = 0
	case v.valueAt.contains(msg.X, msg.Y):
		v.focus = 1
	}
	if v.focus == 1 {
		v.valuePane.ScrollMouse(msg)
		return nil
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		v.move(-common.WheelStep)
	case tea.MouseButtonWheelDown:
		v.move(common.WheelStep)
	}
	return tea.Batch(v.selectCursor(), v.nextPage(false))
}

// openKey shows the view (listing and watching on first use) and, for a key, selects it.
func (v *Model) openKey(k string) tea.Cmd {
	v.tree.Invalidate()
	if v.b == nil {
		if k != "" {
			return note(v.c.Tr.NoteEtcdNotWired)
		}
		return nil
	}
	var cmd tea.Cmd
	if !v.started && !v.loading {
		v.loading = true
		cmd = v.list("")
	} else {
		cmd = v.watch()
	}
	if k == "" {
		return cmd
	}
	v.want = ""
	var said tea.Cmd
	if !v.selectKey(k) {
		if v.started && !v.more() {
			said = note(v.c.Tr.NoteKeyNotListed)
		} else {
			v.want = k // the listing brings it: the cursor goes there then
		}
	}
	v.decoding(k)
	v.focus = 0
	return tea.Batch(cmd, said, v.decode(k))
}

// selectCursor decodes the key under the cursor when it is a new one.
func (v *Model) selectCursor() tea.Cmd {
	k := v.CursorKey()
	if k == "" || k == v.sel || v.b == nil {
		return nil
	}
	v.decoding(k)
	return v.decode(k)
}

// nextPage reads the next page when the cursor nears the end (or force says so).
func (v *Model) nextPage(force bool) tea.Cmd {
	if v.b == nil || v.loading || (!force && !v.needPage()) || (v.started && v.cont == "") {
		return nil
	}
	v.loading = true
	v.tree.Invalidate()
	return v.list(v.cont)
}

// watch starts the watch, once the first page is listed (from its revision), unless one runs.
func (v *Model) watch() tea.Cmd {
	if v.b == nil || v.watching || !v.started {
		return nil
	}
	v.watching = true
	b, ctx, rev := v.b, v.ctx, v.listRev
	return func() tea.Msg { return watchMsg{ch: b.Watch(ctx, rev)} }
}

// list reads one page in a tea.Cmd.
func (v *Model) list(after string) tea.Cmd {
	b, ctx := v.b, v.ctx
	return func() tea.Msg {
		page, err := b.List(ctx, Prefix, PageSize, after)
		return pageMsg{after: after, page: page, err: err}
	}
}

// decode decodes one key in a tea.Cmd.
func (v *Model) decode(k string) tea.Cmd {
	b, ctx := v.b, v.ctx
	return func() tea.Msg {
		val, err := b.Decode(ctx, k)
		return valueMsg{key: k, val: val, err: err}
	}
}

// wait waits for the next changes of a watch (and takes whatever else is queued, up to
// maxBurst), until stop.
func wait(ch <-chan Change, stop <-chan struct{}, w *view.Waiter) tea.Cmd {
	return func() tea.Msg {
		var msg changesMsg
		w.Enter()
		select {
		case c, ok := <-ch:
			w.Leave()
			if !ok {
				return changesMsg{closed: true}
			}
			msg.changes = append(msg.changes, c)
		case <-stop:
			w.Leave()
			return nil
		}
		for len(msg.changes) < maxBurst {
			select {
			case c, ok := <-ch:
				if !ok {
					msg.closed = true
					return msg
				}
				msg.changes = append(msg.changes, c)
				continue
			default:
			}
			break
		}
		return msg
	}
}

// note is a command that sets the root's status note.
func note(s string) tea.Cmd { return func() tea.Msg { return view.NoteMsg(s) } }

// Loading reports whether a page of the listing is being read.
func (v *Model) Loading() bool { return v.loading }

// WatchArmed reports whether the watch's waiter runs: a command that returns only with the
// next change (the root's test harness counts it as idle).
func (v *Model) WatchArmed() bool { return v.armed }

// WaiterBlocked reports whether the watch's waiter is blocked on its channel right now (the
// root's test harness counts only a blocked waiter as idle; see view.Waiter).
func (v *Model) WaiterBlocked() bool { return v.blocked.Blocked() }

// Selected is the key the value pane shows, "" before one is selected.
func (v *Model) Selected() string { return v.sel }

// Decoded is the selected key's value, once decoded.
func (v *Model) Decoded() (Value, bool) {
	if v.val == nil {
		return Value{}, false
	}
	return *v.val, true
}

// Listed is the number of keys listed so far.
func (v *Model) Listed() int { return len(v.keys) }

// Wanted is a key OpenKeyMsg asked for that no page has listed yet, "" when none.
func (v *Model) Wanted() string { return v.want }
