package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// etcdPrefix is where the server keeps its objects; etcdPage how many keys one read lists.
const (
	etcdPrefix = "/registry/"
	etcdPage   = 500
)

// Messages of the etcd explorer.
type (
	etcdPageMsg struct {
		after string // the continue key the page was asked with
		page  EtcdPage
		err   error
	}
	etcdValueMsg struct {
		key string
		val EtcdValue
		err error
	}
	etcdChangesMsg struct {
		changes []EtcdChange
		closed  bool
	}
)

// listEtcd reads one page in a tea.Cmd.
func listEtcd(ctx context.Context, b EtcdBrowser, after string) tea.Cmd {
	return func() tea.Msg {
		page, err := b.List(ctx, etcdPrefix, etcdPage, after)
		return etcdPageMsg{after: after, page: page, err: err}
	}
}

// decodeEtcd decodes one key in a tea.Cmd.
func decodeEtcd(ctx context.Context, b EtcdBrowser, key string) tea.Cmd {
	return func() tea.Msg {
		v, err := b.Decode(ctx, key)
		return etcdValueMsg{key: key, val: v, err: err}
	}
}

// waitEtcd waits for the next changes of a watch (and takes whatever else is queued).
func waitEtcd(ch <-chan EtcdChange, done, stop <-chan struct{}) tea.Cmd {
	return func() tea.Msg {
		var msg etcdChangesMsg
		select {
		case c, ok := <-ch:
			if !ok {
				return etcdChangesMsg{closed: true}
			}
			msg.changes = append(msg.changes, c)
		case <-done:
			return nil
		case <-stop:
			return nil
		}
		for len(msg.changes) < 1000 {
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

// splitKey splits a key under /registry/ into the resource (with its group when the key has
// one, e.g. apiregistration.k8s.io/apiservices), the namespace ("" for cluster-scoped
// objects) and the name.
func splitKey(key string) (res, ns, name string) {
	rest := strings.TrimPrefix(key, etcdPrefix)
	segs := strings.Split(rest, "/")
	if len(segs) >= 3 && strings.Contains(segs[0], ".") {
		segs = append([]string{segs[0] + "/" + segs[1]}, segs[2:]...)
	}
	switch len(segs) {
	case 0:
		return "", "", ""
	case 1:
		return segs[0], "", ""
	case 2:
		return segs[0], "", segs[1]
	}
	return segs[0], segs[1], strings.Join(segs[2:], "/")
}

// etcdEntry is a listed key with its place in the tree, split once.
type etcdEntry struct {
	EtcdKey
	res, ns, name string
}

func newEntry(k EtcdKey) etcdEntry {
	res, ns, name := splitKey(k.Key)
	return etcdEntry{EtcdKey: k, res: res, ns: ns, name: name}
}

// etcdRowKind says what a tree row is.
type etcdRowKind int

const (
	rowResource etcdRowKind = iota
	rowNamespace
	rowKey
	rowMore
)

// etcdRow is one visible row of the tree.
type etcdRow struct {
	kind  etcdRowKind
	node  string // the open-map key of a resource or namespace row
	label string
	count int
	key   int    // index into keys when the rows were built, for a key row
	name  string // the key itself, for a key row: indexes shift as keys come and go
	depth int
}

// etcdView is the etcd explorer: the keys under /registry as a tree by resource › namespace
// › name, and the selected key's value decoded.
type etcdView struct {
	st    *Styles
	tr    *i18n.Strings
	tree  frame
	value *textPane
	focus int // 0 the tree, 1 the value

	started  bool
	loading  bool
	cont     string // the next page's continue key; "" once everything is listed
	err      string
	notReady bool // the last listing failed because the server has no etcd yet
	rev      int64
	listRev  int64       // the first page's revision: the watch starts after it
	keys     []etcdEntry // in key order
	open     map[string]bool
	changed  map[string]byte // '+' new, '~' changed since listed

	rows   []etcdRow
	cursor int
	offset int

	sel      string
	want     string // a key to put the cursor on once a page lists it (S from a lane)
	val      *EtcdValue
	valErr   string
	deleted  bool
	watching bool
}

func newEtcdView(st *Styles, tr *i18n.Strings) *etcdView {
	v := &etcdView{st: st, tr: tr, tree: frame{st: st, tr: tr, dirty: true}, value: newTextPane(st, tr, tr.PaneValue),
		open: map[string]bool{}, changed: map[string]byte{}}
	v.relayoutValue()
	return v
}

// SetSize lays out the panes.
func (v *etcdView) SetSize(tree, value rect) {
	if v.tree.w != tree.w || v.tree.h != tree.h {
		v.tree.w, v.tree.h = tree.w, tree.h
		v.tree.dirty = true
	}
	v.value.SetSize(value.w, value.h)
	v.keepVisible()
	v.relayoutValue()
}

// more reports whether keys remain to be listed.
func (v *etcdView) more() bool { return !v.started || v.cont != "" }

// Page takes a listed page.
func (v *etcdView) Page(msg etcdPageMsg) {
	v.loading = false
	v.notReady = errors.Is(msg.err, server.ErrEtcdNotReady)
	if msg.err != nil {
		v.err = msg.err.Error()
		v.tree.dirty = true
		return
	}
	v.err = ""
	if !v.started {
		v.listRev = msg.page.Revision
	}
	v.started = true
	v.rev = max(v.rev, msg.page.Revision)
	v.cont = "" // the page's keys follow the last one listed: put must take them
	for _, k := range msg.page.Keys {
		v.put(k, false)
	}
	v.cont = msg.page.Continue
	v.rebuild()
	if v.want != "" && (v.SelectKey(v.want) || v.cont == "") {
		v.want = ""
	}
}

// put inserts or updates a key in order; mark records it as new or changed.
func (v *etcdView) put(k EtcdKey, mark bool) {
	i := sort.Search(len(v.keys), func(i int) bool { return v.keys[i].Key >= k.Key })
	if i < len(v.keys) && v.keys[i].Key == k.Key {
		if k.ModRevision < v.keys[i].ModRevision {
			return // a watch event older than the page that listed the key
		}
		if k.Size < 0 {
			k.Size = v.keys[i].Size
		}
		v.keys[i].EtcdKey = k
		if mark {
			v.changed[k.Key] = '~'
		}
		return
	}
	// Past the last listed key while pages remain: the next page brings it.
	if i == len(v.keys) && v.cont != "" {
		return
	}
	v.keys = append(v.keys, etcdEntry{})
	copy(v.keys[i+1:], v.keys[i:])
	v.keys[i] = newEntry(k)
	if mark {
		v.changed[k.Key] = '+'
	}
}

// Changes applies what the watch reported; it reports whether the selected key changed.
func (v *etcdView) Changes(cs []EtcdChange) (selChanged bool) {
	for _, c := range cs {
		v.rev = max(v.rev, c.Key.ModRevision)
		if c.Key.Key == v.sel {
			selChanged = true
		}
		if c.Deleted {
			i := sort.Search(len(v.keys), func(i int) bool { return v.keys[i].Key >= c.Key.Key })
			if i < len(v.keys) && v.keys[i].Key == c.Key.Key {
				v.keys = append(v.keys[:i], v.keys[i+1:]...)
			}
			delete(v.changed, c.Key.Key)
			if c.Key.Key == v.sel {
				v.deleted = true
			}
			continue
		}
		if c.Key.Key == v.sel {
			v.deleted = false
		}
		v.put(c.Key, true)
	}
	v.rebuild()
	return selChanged
}

// rebuild flattens the tree into rows, keeping the cursor on the same row when it can. The
// old rows may point into keys by an index that no longer holds their key (put and Changes
// insert and delete before rebuild runs): the cursor's key is found by its name.
func (v *etcdView) rebuild() {
	var curNode, curName string
	if v.cursor >= 0 && v.cursor < len(v.rows) {
		r := v.rows[v.cursor]
		curNode = r.node
		if r.kind == rowKey {
			curName = r.name
		}
	}
	// The keys are in order, so each resource's keys, and each namespace's within it, are
	// one run: counting a run is finding its end.
	v.rows = v.rows[:0]
	keys := v.keys
	for i := 0; i < len(keys); {
		res := keys[i].res
		j := i
		for j < len(keys) && keys[j].res == res {
			j++
		}
		rnode := "r\x00" + res
		v.rows = append(v.rows, etcdRow{kind: rowResource, node: rnode, label: res, count: j - i})
		if v.open[rnode] {
			for k := i; k < j; {
				ns := keys[k].ns
				if ns == "" {
					v.rows = append(v.rows, etcdRow{kind: rowKey, key: k, name: keys[k].Key, depth: 1})
					k++
					continue
				}
				l := k
				for l < j && keys[l].ns == ns {
					l++
				}
				nnode := "n\x00" + res + "\x00" + ns
				v.rows = append(v.rows, etcdRow{kind: rowNamespace, node: nnode, label: ns, count: l - k, depth: 1})
				if v.open[nnode] {
					for x := k; x < l; x++ {
						v.rows = append(v.rows, etcdRow{kind: rowKey, key: x, name: keys[x].Key, depth: 2})
					}
				}
				k = l
			}
		}
		i = j
	}
	if v.more() {
		v.rows = append(v.rows, etcdRow{kind: rowMore, node: "more"})
	}
	// Back to the same row.
	found := false
	for i, r := range v.rows {
		if (curName != "" && r.kind == rowKey && r.name == curName) || (curName == "" && curNode != "" && r.node == curNode) {
			v.cursor, found = i, true
			break
		}
	}
	if !found {
		v.cursor = max(min(v.cursor, len(v.rows)-1), 0)
	}
	v.keepVisible()
	v.tree.dirty = true
}

func (v *etcdView) visible() int { return max(v.tree.h-2, 1) }

func (v *etcdView) keepVisible() {
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+v.visible() {
		v.offset = v.cursor - v.visible() + 1
	}
	v.offset = max(min(v.offset, len(v.rows)-v.visible()), 0)
}

// Move moves the cursor by n rows.
func (v *etcdView) Move(n int) {
	if len(v.rows) == 0 {
		return
	}
	v.cursor = max(min(v.cursor+n, len(v.rows)-1), 0)
	v.keepVisible()
	v.tree.dirty = true
}

// current is the row under the cursor.
func (v *etcdView) current() (etcdRow, bool) {
	if v.cursor < 0 || v.cursor >= len(v.rows) {
		return etcdRow{}, false
	}
	return v.rows[v.cursor], true
}

// NeedPage reports whether the next page should be read now: pages remain, none is being
// read, and the cursor is within a screen of the end.
func (v *etcdView) NeedPage() bool {
	return v.started && v.cont != "" && !v.loading && v.err == "" && v.cursor >= len(v.rows)-1-v.visible()
}

// Toggle opens or closes the node under the cursor; open forces a direction (1 open, -1
// close, 0 toggle). On a key row, closing goes to its parent.
func (v *etcdView) Toggle(dir int) {
	r, ok := v.current()
	if !ok {
		return
	}
	if r.kind == rowKey && dir < 0 {
		for i := v.cursor - 1; i >= 0; i-- {
			if v.rows[i].depth < r.depth {
				v.cursor = i
				break
			}
		}
		v.keepVisible()
		v.tree.dirty = true
		return
	}
	if r.kind != rowResource && r.kind != rowNamespace {
		return
	}
	want := !v.open[r.node]
	if dir != 0 {
		want = dir > 0
	}
	v.open[r.node] = want
	v.rebuild()
}

// SelectKey selects a key (opening its resource and namespace); it reports whether the key is
// among those listed.
func (v *etcdView) SelectKey(key string) bool {
	res, ns, _ := splitKey(key)
	v.open["r\x00"+res] = true
	if ns != "" {
		v.open["n\x00"+res+"\x00"+ns] = true
	}
	v.rebuild()
	for i, r := range v.rows {
		if r.kind == rowKey && r.name == key {
			v.cursor = i
			v.keepVisible()
			v.tree.dirty = true
			return true
		}
	}
	return false
}

// CursorKey is the key under the cursor, "" on another row.
func (v *etcdView) CursorKey() string {
	r, ok := v.current()
	if !ok || r.kind != rowKey {
		return ""
	}
	return r.name
}

// Decoding shows that key is being decoded.
func (v *etcdView) Decoding(key string) {
	if v.sel != key {
		v.sel, v.val, v.valErr, v.deleted = key, nil, "", false
	}
	v.relayoutValue()
}

// Value takes a decoded value (ignored when another key was selected since, or when it is
// older than the one shown: decodes run concurrently and may answer out of order).
func (v *etcdView) Value(msg etcdValueMsg) {
	if msg.key != v.sel {
		return
	}
	if msg.err == nil && v.val != nil && v.val.Key == msg.key && msg.val.ModRevision < v.val.ModRevision {
		return
	}
	if msg.err != nil {
		v.val, v.valErr = nil, msg.err.Error()
	} else {
		val := msg.val
		v.val, v.valErr = &val, ""
	}
	v.relayoutValue()
}

func (v *etcdView) relayoutValue() {
	w := v.value.Inner()
	st, tr := v.st, v.tr
	var lines []string
	labelW := 9
	for _, l := range []string{tr.EtcdKey, tr.EtcdRevision, tr.EtcdStored} {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	row := func(label, value string) {
		label = i18n.PadRight(label, labelW) + " "
		for i, l := range wrapLines(value, max(w-labelW-1, 10)) {
			if i == 0 {
				lines = append(lines, st.Lane.Dim.Render(label)+l)
			} else {
				lines = append(lines, strings.Repeat(" ", labelW+1)+l)
			}
		}
	}
	switch {
	case v.sel == "":
		lines = wrapLines(st.Lane.Dim.Render(tr.EtcdSelect), w)
	default:
		row(tr.EtcdKey, v.sel)
		switch {
		case v.deleted:
			lines = append(lines, "")
			lines = append(lines, wrapLines(st.Lane.Stopped.Render(tr.EtcdDeleted), w)...)
		case v.valErr != "":
			lines = append(lines, "")
			lines = append(lines, wrapLines(st.Lane.Stopped.Render("✗ "+v.valErr), w)...)
		case v.val == nil:
			lines = append(lines, st.Lane.Dim.Render(tr.EtcdDecoding))
		default:
			k := v.val.EtcdKey
			row(tr.EtcdRevision, fmt.Sprintf(tr.EtcdRevisionValue, k.ModRevision, k.CreateRevision, k.Version))
			row(tr.EtcdStored, fmt.Sprintf(tr.EtcdStoredValue, k.Size, v.val.Encoding))
			lines = append(lines, st.Lane.Heading.Render(tr.EtcdDecoded))
			for _, l := range strings.Split(strings.TrimRight(v.val.YAML, "\n"), "\n") {
				lines = append(lines, wrapLines(expandTabs(l), w)...)
			}
		}
	}
	title := ""
	if v.sel != "" {
		_, _, name := splitKey(v.sel)
		title = name
	}
	v.value.SetTitle(tr.PaneValue, title, "")
	v.value.SetLines(lines)
}

// treeView renders the tree pane.
func (v *etcdView) treeView(focused bool, wired bool) []string {
	v.tree.SetFocused(focused)
	tr := v.tr
	detail := fmt.Sprintf(tr.EtcdKeys, len(v.keys))
	if v.more() && v.started {
		detail += tr.EtcdSoFar
	}
	figure := ""
	if v.rev > 0 {
		figure = fmt.Sprintf(tr.EtcdRev, v.rev)
	}
	return v.tree.render(fmt.Sprintf(tr.PaneEtcdTree, etcdPrefix), detail, figure, func() []string { return v.treeBody(wired) })
}

func (v *etcdView) treeBody(wired bool) []string {
	w := v.tree.w - 2
	st, tr := v.st, v.tr
	var out []string
	switch {
	case !wired:
		return wrapLines(st.List.Dim.Render(tr.EtcdNotWired), w)
	case v.notReady && len(v.keys) == 0:
		return wrapLines(st.List.Dim.Render(tr.EtcdNotReady), w)
	case v.err != "" && len(v.keys) == 0:
		return wrapLines(st.Lane.Stopped.Render(fmt.Sprintf(tr.EtcdListError, etcdPrefix, v.err)), w)
	case !v.started:
		return []string{st.List.Dim.Render(fmt.Sprintf(tr.EtcdListing, etcdPrefix))}
	case len(v.keys) == 0 && !v.more():
		return []string{st.List.Dim.Render(fmt.Sprintf(tr.EtcdNoKey, etcdPrefix))}
	}
	end := min(v.offset+v.visible(), len(v.rows))
	for i := v.offset; i < end; i++ {
		r := v.rows[i]
		mark := " "
		if i == v.cursor {
			mark = "›"
		}
		indent := strings.Repeat("  ", r.depth)
		var line string
		switch r.kind {
		case rowResource, rowNamespace:
			arrow := "▸"
			if v.open[r.node] {
				arrow = "▾"
			}
			line = mark + indent + arrow + " " + st.List.Group.Render(r.label) + st.List.Dim.Render(fmt.Sprintf(" (%d)", r.count))
		case rowKey:
			k := v.keys[r.key]
			name := k.name
			ch := " "
			if c, ok := v.changed[k.Key]; ok {
				ch = string(c)
			}
			meta := fmt.Sprintf("rev %d · v%d", k.ModRevision, k.Version)
			if k.Size >= 0 {
				meta += fmt.Sprintf(" · %d B", k.Size)
			}
			room := w - len([]rune(meta)) - 2
			line = fit(mark+ch+indent+name, max(room, 8)) + "  " + st.List.Dim.Render(meta)
		case rowMore:
			text := tr.EtcdMore
			switch {
			case v.loading:
				text = tr.EtcdListingNext
			case v.err != "":
				text = fmt.Sprintf(tr.EtcdRetry, v.err)
			}
			line = mark + st.List.Dim.Render(text)
		}
		if i == v.cursor {
			line = st.List.Cursor.Render(fit(line, w))
		}
		out = append(out, line)
	}
	return out
}
