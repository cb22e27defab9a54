package walk

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/inspect"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// treeRow is one visible row of the state pane.
type treeRow struct {
	depth      int
	key        string
	label      string
	value      string
	typ        string
	expandable bool
	expanded   bool
	mark       byte // '+' added since the previous stop, '~' changed, 0 neither
	note       bool // an explanatory row, not a node
}

// State shows the state tree of a stop, or in raw mode its live objects by reflection.
type State struct {
	frame

	raw       bool
	stop      *engine.Stop
	phase     server.Phase
	reviewing bool
	frozen    bool // the server is running: live objects must not be read

	prevVals map[string]string // key → value in the previous stop's tree
	marked   map[string]bool   // keys of added/changed nodes and their ancestors

	open     map[string]bool // tree: user's expand/collapse choices by key
	rawOpen  map[string]bool // raw: expanded keys
	whole    map[string]bool // tree: rows shown whole (wrapped) rather than cut at the edge
	rawWhole map[string]bool // raw: the same
	rawRoots map[int][]*inspect.Node

	// probe: a track step is shown, and the tree its live probe read (not a stop's).
	probe probeView

	rows   []treeRow
	cursor int
	offset int
}

// probeView is what the state pane shows for a step of the after-serve track.
type probeView struct {
	on      bool   // a track step is shown
	id      string // its probe, "" when it reads nothing live
	res     Probe
	running bool
	wired   bool // probes can run at all
}

func NewState(c common.Common) *State {
	return &State{
		frame: newFrame(c), open: map[string]bool{}, rawOpen: map[string]bool{},
		whole: map[string]bool{}, rawWhole: map[string]bool{}, rawRoots: map[int][]*inspect.Node{},
	}
}

func (p *State) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.resize(w, h)
		p.keepCursorVisible()
		p.Invalidate()
	}
}

// SetProbe shows (on) the result of a track step's live probe id instead of a stop: the tree
// of its last run, marked where it differs from the run before; running says a run is under
// way, wired that probes can run at all. With on false it changes nothing but leaving the
// probe (SetStop shows a stop again).
func (p *State) SetProbe(id string, res Probe, running, wired bool) {
	same := p.probe.on && p.probe.id == id
	p.probe = probeView{on: true, id: id, res: res, running: running, wired: wired}
	p.stop = nil
	p.phase = server.Phase(id) // the probe's node opens like the current phase's
	p.prevVals, p.marked = nil, map[string]bool{}
	if res.Prev != nil && res.Tree != nil {
		p.prevVals = map[string]string{}
		walkTree(res.Prev, func(key string, n *server.Node, _ int) { p.prevVals[key] = n.Value })
		walkTree(res.Tree, func(key string, n *server.Node, _ int) {
			if old, ok := p.prevVals[key]; !ok || old != n.Value {
				for k := key; k != ""; k = parentKey(k) {
					p.marked[k] = true
				}
			}
		})
	}
	if !same {
		p.cursor, p.offset = 0, 0
	}
	p.rebuild()
	if !same || !running {
		p.toFirstChange()
	}
}

// SetStop shows a stop; prev (or nil) is the stop before it, for change marks.
func (p *State) SetStop(stop, prev *engine.Stop, reviewing bool) {
	p.probe = probeView{}
	p.stop, p.reviewing = stop, reviewing
	p.phase = stop.Checkpoint.Phase
	p.prevVals, p.marked = nil, map[string]bool{}
	if prev != nil && prev.State != nil {
		p.prevVals = map[string]string{}
		walkTree(prev.State, func(key string, n *server.Node, _ int) { p.prevVals[key] = n.Value })
		walkTree(stop.State, func(key string, n *server.Node, _ int) {
			if old, ok := p.prevVals[key]; !ok || old != n.Value {
				for k := key; k != ""; k = parentKey(k) {
					p.marked[k] = true
				}
			}
		})
	}
	p.rebuild()
	p.toFirstChange()
}

// toFirstChange puts the cursor on the first added or changed row and scrolls it near the top,
// so what the step built is in view.
func (p *State) toFirstChange() {
	for i, r := range p.rows {
		if r.mark != 0 {
			p.cursor = i
			p.offset = max(i-min(2, p.visible()/4), 0) // a little context above
			p.keepCursorVisible()
			p.Invalidate()
			return
		}
	}
}

// changes counts the added or changed rows in view.
func (p *State) changes() int {
	n := 0
	for _, r := range p.rows {
		if r.mark != 0 {
			n++
		}
	}
	return n
}

// JumpChange moves the cursor to the next (d=1) or previous (d=-1) added or changed row,
// wrapping around; it reports false when there is none.
func (p *State) JumpChange(d int) bool {
	n := len(p.rows)
	for k := 1; k <= n; k++ {
		i := ((p.cursor+d*k)%n + n) % n
		if p.rows[i].mark != 0 {
			p.cursor = i
			p.keepCursorVisible()
			p.Invalidate()
			return true
		}
	}
	return false
}

// SetFrozen stops (or allows) reading live objects while the server runs.
func (p *State) SetFrozen(f bool) {
	if p.frozen != f {
		p.frozen = f
		if p.raw {
			p.rebuild()
		}
	}
}

// ToggleRaw switches between the state tree and the live objects.
func (p *State) ToggleRaw() {
	p.raw = !p.raw
	p.cursor, p.offset = 0, 0
	p.rebuild()
}

// walkTree visits the children of root (root itself is not shown) depth first with their keys.
func walkTree(root *server.Node, fn func(key string, n *server.Node, depth int)) {
	var walk func(n *server.Node, parent string, depth int)
	walk = func(n *server.Node, parent string, depth int) {
		seen := map[string]int{}
		for _, c := range n.Children {
			k := childKey(parent, c.Label, seen)
			fn(k, c, depth)
			walk(c, k, depth+1)
		}
	}
	if root != nil {
		walk(root, "", 0)
	}
}

// childKey is a node's key: its parent's key and its label (numbered if a sibling has the same
// label). Keys stay the same from one stop's tree to the next, so expansion survives steps.
func childKey(parent, label string, seen map[string]int) string {
	n := seen[label]
	seen[label] = n + 1
	if n > 0 {
		label += "#" + strconv.Itoa(n)
	}
	return parent + "\x1f" + label
}

func parentKey(k string) string {
	i := strings.LastIndex(k, "\x1f")
	if i <= 0 {
		return ""
	}
	return k[:i]
}

// expanded decides whether a tree node is open: the user's choice, else open when it is the
// current phase or inside it, or holds a change since the previous stop.
func (p *State) expanded(key string, inPhase bool) bool {
	if v, ok := p.open[key]; ok {
		return v
	}
	return inPhase || p.marked[key]
}

// rebuild recomputes the visible rows, keeping the cursor on the same node when it can.
func (p *State) rebuild() {
	p.Invalidate()
	curKey := ""
	if p.cursor >= 0 && p.cursor < len(p.rows) {
		curKey = p.rows[p.cursor].key
	}
	p.rows = p.rows[:0]
	switch {
	case p.probe.on:
		p.probeRows()
	case p.stop == nil:
		p.rows = append(p.rows, treeRow{label: p.tr.StartingServer, note: true})
	case p.raw:
		p.rawRows()
	default:
		p.treeRows()
	}
	p.cursor = min(p.cursor, len(p.rows)-1)
	for i, r := range p.rows {
		if r.key != "" && r.key == curKey {
			p.cursor = i
			break
		}
	}
	p.cursor = max(p.cursor, 0)
	p.keepCursorVisible()
}

// probeRows lists a track step's probe tree, or says why there is none.
func (p *State) probeRows() {
	pr := p.probe
	switch {
	case !pr.wired:
		p.rows = append(p.rows, treeRow{label: p.tr.StateProbeNotWired, note: true})
	case pr.id == "":
		p.rows = append(p.rows, treeRow{label: p.tr.StateProbeNone, note: true})
	case pr.res.Err != nil && !pr.running:
		p.rows = append(p.rows, treeRow{label: fmt.Sprintf(p.tr.StateProbeError, pr.id, pr.res.Err), note: true})
	case pr.res.Tree == nil:
		p.rows = append(p.rows, treeRow{label: fmt.Sprintf(p.tr.StateProbeRunning, pr.id), note: true})
	default:
		p.walkNodes(pr.res.Tree)
	}
}

func (p *State) treeRows() {
	if p.stop.State == nil || len(p.stop.State.Children) == 0 {
		p.rows = append(p.rows, treeRow{label: p.tr.StateNothing, note: true})
		return
	}
	p.walkNodes(p.stop.State)
}

// walkNodes lists the rows of a tree (its root not shown), opened as expanded decides.
func (p *State) walkNodes(root *server.Node) {
	var walk func(n *server.Node, parent string, depth int, inPhase bool)
	walk = func(n *server.Node, parent string, depth int, inPhase bool) {
		seen := map[string]int{}
		for _, c := range n.Children {
			k := childKey(parent, c.Label, seen)
			in := inPhase || (depth == 0 && c.Label == string(p.phase))
			open := len(c.Children) > 0 && p.expanded(k, in)
			r := treeRow{depth: depth, key: k, label: c.Label, value: c.Value,
				expandable: len(c.Children) > 0, expanded: open}
			if p.prevVals != nil {
				if old, ok := p.prevVals[k]; !ok {
					r.mark = '+'
				} else if old != c.Value {
					r.mark = '~'
				}
			}
			p.rows = append(p.rows, r)
			if open {
				walk(c, k, depth+1, in)
			}
		}
	}
	walk(root, "", 0, false)
}

func (p *State) rawRows() {
	if p.frozen {
		p.rows = append(p.rows, treeRow{label: p.tr.StateFrozen, note: true})
		return
	}
	if len(p.stop.Live) == 0 {
		p.rows = append(p.rows, treeRow{label: p.tr.StateNoLive, note: true})
		return
	}
	if p.reviewing {
		p.rows = append(p.rows, treeRow{label: p.tr.StateLiveNow, note: true})
	}
	roots, ok := p.rawRoots[p.stop.Index]
	if !ok {
		for _, lo := range p.stop.Live {
			roots = append(roots, inspect.Root(lo.Name, lo.Value, p.stop.InspectOptions()))
		}
		p.rawRoots = map[int][]*inspect.Node{p.stop.Index: roots}
	}
	var walk func(ns []*inspect.Node, parent string)
	walk = func(ns []*inspect.Node, parent string) {
		for i, n := range ns {
			k := parent + "\x1f" + strconv.Itoa(i) + ":" + n.Name
			open := n.Expandable() && p.rawOpen[k]
			p.rows = append(p.rows, treeRow{depth: n.Depth(), key: k, label: n.Name, value: n.Value,
				typ: n.Type, expandable: n.Expandable(), expanded: open})
			if open {
				walk(n.Children(), k)
			}
		}
	}
	walk(roots, "")
}

// rawNode finds the inspect node of a raw row key.
func (p *State) rawNode(key string) *inspect.Node {
	if p.stop == nil {
		return nil
	}
	ns := p.rawRoots[p.stop.Index]
	var n *inspect.Node
	for _, part := range strings.Split(key, "\x1f")[1:] {
		i, err := strconv.Atoi(part[:strings.Index(part, ":")])
		if err != nil || i >= len(ns) {
			return nil
		}
		n = ns[i]
		ns = n.Children()
	}
	return n
}

// Toggle opens or closes the row under the cursor: a node shows or hides its children, and an
// open row is shown whole, wrapped over as many lines as it needs, instead of cut at the edge.
// It reports false when there was nothing to do (a leaf that fits).
func (p *State) Toggle() bool {
	if p.cursor >= len(p.rows) {
		return false
	}
	r := p.rows[p.cursor]
	open, whole := p.open, p.whole
	if p.isRaw() {
		open, whole = p.rawOpen, p.rawWhole
	}
	switch {
	case r.expandable:
		open[r.key] = !r.expanded
		whole[r.key] = !r.expanded
	case p.isWhole(p.cursor) || p.cut(p.cursor):
		whole[r.key] = !p.isWhole(p.cursor)
	default:
		return false
	}
	p.rebuild()
	return true
}

// isWhole reports whether row i is shown whole.
func (p *State) isWhole(i int) bool {
	r := p.rows[i]
	if p.isRaw() {
		return p.rawWhole[r.key]
	}
	if v, ok := p.whole[r.key]; ok || !p.probe.on {
		return v
	}
	return true // a probe's rows are read whole by default: they say what to create
}

// cut reports whether row i, on one line, is wider than the pane.
func (p *State) cut(i int) bool {
	prefix, text := p.rowParts(i, false)
	return ansi.StringWidth(prefix)+ansi.StringWidth(text) > p.w-2
}

// ExpandAll opens every node of the tree; in raw mode it opens the node under the cursor and
// its children (raw trees are too big to open whole).
func (p *State) ExpandAll() {
	if p.probe.on {
		walkTree(p.probe.res.Tree, func(key string, n *server.Node, _ int) {
			if len(n.Children) > 0 {
				p.open[key] = true
			}
		})
		p.rebuild()
		return
	}
	if p.stop == nil {
		return
	}
	if p.raw {
		if p.cursor < len(p.rows) && p.rows[p.cursor].expandable {
			k := p.rows[p.cursor].key
			p.rawOpen[k] = true
			if n := p.rawNode(k); n != nil {
				for i, c := range n.Children() {
					if c.Expandable() {
						p.rawOpen[k+"\x1f"+strconv.Itoa(i)+":"+c.Name] = true
					}
				}
			}
		}
	} else {
		walkTree(p.stop.State, func(key string, n *server.Node, _ int) {
			if len(n.Children) > 0 {
				p.open[key] = true
			}
		})
	}
	p.rebuild()
}

// CollapseAll closes every node.
func (p *State) CollapseAll() {
	if p.probe.on {
		walkTree(p.probe.res.Tree, func(key string, n *server.Node, _ int) {
			if len(n.Children) > 0 {
				p.open[key] = false
			}
		})
		p.cursor = 0
		p.rebuild()
		return
	}
	if p.stop == nil {
		return
	}
	if p.raw {
		p.rawOpen = map[string]bool{}
	} else {
		walkTree(p.stop.State, func(key string, n *server.Node, _ int) {
			if len(n.Children) > 0 {
				p.open[key] = false
			}
		})
	}
	p.cursor = 0
	p.rebuild()
}

// Move moves the cursor by n rows.
func (p *State) Move(n int) {
	p.cursor = max(min(p.cursor+n, len(p.rows)-1), 0)
	p.keepCursorVisible()
	p.Invalidate()
}

// Scroll moves the view by n rows (the mouse wheel), dragging the cursor along.
func (p *State) Scroll(n int) {
	p.offset = max(min(p.offset+n, p.maxOffset()), 0)
	p.cursor = max(min(p.cursor, p.lastInView()), p.offset)
	p.cursor = max(min(p.cursor, len(p.rows)-1), 0)
	p.Invalidate()
}

func (p *State) Page() int { return max(p.visible()-1, 1) }

// visible is how many lines the pane shows; a row shown whole may take several.
func (p *State) visible() int { return max(p.h-2, 1) }

// height is how many lines row i takes.
func (p *State) height(i int) int {
	if !p.rows[i].note && !p.isWhole(i) {
		return 1
	}
	return len(p.rowLines(i))
}

// lastInView is the last row that starts in view.
func (p *State) lastInView() int {
	used := 0
	for i := p.offset; i < len(p.rows); i++ {
		used += p.height(i)
		if used >= p.visible() {
			return i
		}
	}
	return len(p.rows) - 1
}

// maxOffset is the first row of the last screenful, so that no space is left at the bottom.
func (p *State) maxOffset() int {
	used := 0
	for i := len(p.rows) - 1; i >= 0; i-- {
		used += p.height(i)
		if used > p.visible() {
			return i + 1
		}
	}
	return 0
}

// inView reports whether row i is wholly in view.
func (p *State) inView(i int) bool {
	if i < p.offset {
		return false
	}
	used := 0
	for j := p.offset; j <= i; j++ {
		used += p.height(j)
	}
	return used <= p.visible()
}

func (p *State) keepCursorVisible() {
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	for p.offset < p.cursor && !p.inView(p.cursor) {
		p.offset++
	}
	p.offset = max(min(p.offset, p.maxOffset()), 0)
}

// detail names the mode.
func (p *State) detail() string {
	if p.probe.on {
		if p.probe.id == "" {
			return ""
		}
		return fmt.Sprintf(p.tr.StateProbeDetail, p.probe.id)
	}
	if p.raw {
		return p.tr.StateRawDetail
	}
	return p.tr.StateTreeDetail
}

// figure counts what the step added or changed.
func (p *State) figure() string {
	if p.probe.on && p.probe.running && p.probe.res.Tree != nil {
		return p.tr.StateProbeReading
	}
	switch n := p.changes(); {
	case p.isRaw() || n == 0:
	case n == 1:
		return p.tr.StateOneChange
	default:
		return fmt.Sprintf(p.tr.StateChanges, n)
	}
	return ""
}

// View renders the pane: exactly h lines of exactly w cells.
func (p *State) View() []string {
	return p.Render(p.tr.PaneState, p.detail(), p.figure(), p.body)
}

func (p *State) body() []string {
	var out []string
	for i := p.offset; i < len(p.rows) && len(out) < p.visible(); i++ {
		out = append(out, p.rowLines(i)...)
	}
	if len(out) > p.visible() {
		out = out[:p.visible()]
	}
	return out
}

// rowLines renders row i: one line (cut at the edge by box) or, shown whole, wrapped under its
// label.
func (p *State) rowLines(i int) []string {
	w := p.w - 2
	if w <= 0 {
		return []string{""}
	}
	r := p.rows[i]
	if r.note {
		var out []string
		for _, l := range common.WrapLines(r.label, w) {
			out = append(out, p.st.State.Note.Render(l))
		}
		return out
	}
	prefix, text := p.rowParts(i, true)
	pw := ansi.StringWidth(prefix)
	if !p.isWhole(i) || pw+ansi.StringWidth(text) <= w || w-pw < 10 {
		return []string{prefix + text}
	}
	lines := common.WrapLines(text, w-pw)
	pad := strings.Repeat(" ", pw)
	for j := range lines {
		if j == 0 {
			lines[j] = prefix + lines[j]
		} else {
			lines[j] = pad + lines[j]
		}
	}
	return lines
}

// rowParts renders row i as its prefix (cursor, change mark, indentation, toggle) and its text
// (label and value), styled or not.
func (p *State) rowParts(i int, styled bool) (prefix, text string) {
	st := p.st.State
	if !styled {
		st = (&common.Styles{}).State
	}
	r := p.rows[i]
	cursor := " "
	if i == p.cursor {
		cursor = "›"
	}
	mark := " "
	switch r.mark {
	case '+':
		mark = st.Added.Render("+")
	case '~':
		mark = st.Changed.Render("~")
	}
	toggle := "  "
	if r.expandable {
		toggle = "▸ "
		if r.expanded {
			toggle = "▾ "
		}
	}
	prefix = cursor + mark + strings.Repeat("  ", r.depth) + st.Toggle.Render(toggle)
	if i == p.cursor && p.focused {
		text = st.Cursor.Render(r.label)
	} else {
		text = st.Label.Render(r.label)
	}
	switch {
	case r.typ != "":
		// Raw: name type = value, like a debugger's variables view.
		text += " " + st.Type.Render(r.typ)
		if r.value != "" && r.value != r.typ {
			text += st.Value.Render(" = " + r.value)
		}
	case r.value != "":
		text += st.Value.Render(": " + r.value)
	}
	return prefix, text
}

// isRaw reports whether the rows are live objects (raw mode, and no track step shown).
func (p *State) isRaw() bool { return p.raw && !p.probe.on }

// Raw reports whether the pane shows live objects (r) rather than the state tree.
func (p *State) Raw() bool { return p.raw }

// Repoint follows the engine's swap of the live objects (once the server serves, the stops'
// live values are replaced by a safe set): a pane showing a stop shows stop (the fresh copy
// of the same stop) from now on, and raw nodes built from the old objects are dropped.
func (p *State) Repoint(stop *engine.Stop) {
	if p.stop != nil && stop != nil {
		p.stop = stop
	}
	p.rawRoots = nil
}

// Changes counts the rows marked added or changed.
func (p *State) Changes() int { return p.changes() }

// Row is row i's label and its change mark ('+' added, '~' changed, 0 neither); ok is false
// past the last row.
func (p *State) Row(i int) (label string, mark byte, ok bool) {
	if i < 0 || i >= len(p.rows) {
		return "", 0, false
	}
	return p.rows[i].label, p.rows[i].mark, true
}

// Cursor is the row the cursor is on.
func (p *State) Cursor() int { return p.cursor }

// CursorInView reports whether the cursor's row is on screen; CursorCut whether it is cut at
// the pane's edge (enter shows it whole).
func (p *State) CursorInView() bool { return p.inView(p.cursor) }

// CursorCut reports whether the cursor's row is cut at the pane's edge.
func (p *State) CursorCut() bool { return p.cut(p.cursor) }
