package etcd

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// This file holds the tree: the keys listed so far, in key order, grouped by resource ›
// namespace › name, flattened into the rows on screen, and the cursor among them.

// SplitKey splits a key under /registry/ into the resource (with its group when the key has
// one, e.g. apiregistration.k8s.io/apiservices), the namespace ("" for cluster-scoped
// objects) and the name.
func SplitKey(key string) (res, ns, name string) {
	rest := strings.TrimPrefix(key, Prefix)
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

// entry is a listed key with its place in the tree, split once.
type entry struct {
	Key
	res, ns, name string
}

func newEntry(k Key) entry {
	res, ns, name := SplitKey(k.Key)
	return entry{Key: k, res: res, ns: ns, name: name}
}

// rowKind says what a tree row is.
type rowKind int

const (
	rowResource rowKind = iota
	rowNamespace
	rowKey
	rowMore
)

// row is one visible row of the tree.
type row struct {
	kind  rowKind
	node  string // the open-map key of a resource or namespace row
	label string
	count int
	key   int    // index into keys when the rows were built, for a key row
	name  string // the key itself, for a key row: indexes shift as keys come and go
	depth int
}

// more reports whether keys remain to be listed.
func (v *Model) more() bool { return !v.started || v.cont != "" }

// page takes a listed page.
func (v *Model) page(msg pageMsg) {
	v.loading = false
	v.notReady = errors.Is(msg.err, server.ErrEtcdNotReady)
	if msg.err != nil {
		v.err = msg.err.Error()
		v.tree.Invalidate()
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
	if v.want != "" && (v.selectKey(v.want) || v.cont == "") {
		v.want = ""
	}
}

// put inserts or updates a key in order; mark records it as new or changed.
func (v *Model) put(k Key, mark bool) {
	i := sort.Search(len(v.keys), func(i int) bool { return v.keys[i].Key.Key >= k.Key })
	if i < len(v.keys) && v.keys[i].Key.Key == k.Key {
		if k.ModRevision < v.keys[i].ModRevision {
			return // a watch event older than the page that listed the key
		}
		if k.Size < 0 {
			k.Size = v.keys[i].Size
		}
		v.keys[i].Key = k
		if mark {
			v.changed[k.Key] = '~'
		}
		return
	}
	// Past the last listed key while pages remain: the next page brings it.
	if i == len(v.keys) && v.cont != "" {
		return
	}
	v.keys = append(v.keys, entry{})
	copy(v.keys[i+1:], v.keys[i:])
	v.keys[i] = newEntry(k)
	if mark {
		v.changed[k.Key] = '+'
	}
}

// changes applies what the watch reported; it reports whether the selected key changed.
func (v *Model) changes(cs []Change) (selChanged bool) {
	for _, c := range cs {
		v.rev = max(v.rev, c.Key.ModRevision)
		if c.Key.Key == v.sel {
			selChanged = true
		}
		if c.Deleted {
			i := sort.Search(len(v.keys), func(i int) bool { return v.keys[i].Key.Key >= c.Key.Key })
			if i < len(v.keys) && v.keys[i].Key.Key == c.Key.Key {
				v.keys = append(v.keys[:i], v.keys[i+1:]...)
			}
			delete(v.changed, c.Key.Key)
			if c.Key.Key == v.sel && !v.deleted {
				v.deleted = true
				v.relayoutValue() // no decode follows: say it now
			}
			continue
		}
		if c.Key.Key == v.sel {
			v.deleted = false // the decode that follows shows it again
		}
		v.put(c.Key, true)
	}
	v.rebuild()
	return selChanged
}

// rebuild flattens the tree into rows, keeping the cursor on the same row when it can. The
// old rows may point into keys by an index that no longer holds their key (put and changes
// insert and delete before rebuild runs): the cursor's key is found by its name.
func (v *Model) rebuild() {
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
		v.rows = append(v.rows, row{kind: rowResource, node: rnode, label: res, count: j - i})
		if v.open[rnode] {
			for k := i; k < j; {
				ns := keys[k].ns
				if ns == "" {
					v.rows = append(v.rows, row{kind: rowKey, key: k, name: keys[k].Key.Key, depth: 1})
					k++
					continue
				}
				l := k
				for l < j && keys[l].ns == ns {
					l++
				}
				nnode := "n\x00" + res + "\x00" + ns
				v.rows = append(v.rows, row{kind: rowNamespace, node: nnode, label: ns, count: l - k, depth: 1})
				if v.open[nnode] {
					for x := k; x < l; x++ {
						v.rows = append(v.rows, row{kind: rowKey, key: x, name: keys[x].Key.Key, depth: 2})
					}
				}
				k = l
			}
		}
		i = j
	}
	if v.more() {
		v.rows = append(v.rows, row{kind: rowMore, node: "more"})
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
	v.tree.Invalidate()
}

// visible is the number of rows the tree pane shows.
func (v *Model) visible() int {
	_, h := v.tree.Size()
	return max(h-2, 1)
}

func (v *Model) keepVisible() {
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+v.visible() {
		v.offset = v.cursor - v.visible() + 1
	}
	v.offset = max(min(v.offset, len(v.rows)-v.visible()), 0)
}

// move moves the cursor by n rows.
func (v *Model) move(n int) {
	if len(v.rows) == 0 {
		return
	}
	v.cursor = max(min(v.cursor+n, len(v.rows)-1), 0)
	v.keepVisible()
	v.tree.Invalidate()
}

// current is the row under the cursor.
func (v *Model) current() (row, bool) {
	if v.cursor < 0 || v.cursor >= len(v.rows) {
		return row{}, false
	}
	return v.rows[v.cursor], true
}

// needPage reports whether the next page should be read now: pages remain, none is being
// read, and the cursor is within a screen of the end.
func (v *Model) needPage() bool {
	return v.started && v.cont != "" && !v.loading && v.err == "" && v.cursor >= len(v.rows)-1-v.visible()
}

// toggle opens or closes the node under the cursor; dir forces a direction (1 open, -1
// close, 0 toggle). On a key row, closing goes to its parent.
func (v *Model) toggle(dir int) {
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
		v.tree.Invalidate()
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

// selectKey puts the cursor on a key (opening its resource and namespace); it reports whether
// the key is among those listed.
func (v *Model) selectKey(key string) bool {
	res, ns, _ := SplitKey(key)
	v.open["r\x00"+res] = true
	if ns != "" {
		v.open["n\x00"+res+"\x00"+ns] = true
	}
	v.rebuild()
	for i, r := range v.rows {
		if r.kind == rowKey && r.name == key {
			v.cursor = i
			v.keepVisible()
			v.tree.Invalidate()
			return true
		}
	}
	return false
}

// CursorKey is the key under the cursor, "" on another row.
func (v *Model) CursorKey() string {
	r, ok := v.current()
	if !ok || r.kind != rowKey {
		return ""
	}
	return r.name
}

// treeView renders the tree pane.
func (v *Model) treeView(focused bool) []string {
	v.tree.SetFocused(focused)
	tr := v.c.Tr
	detail := fmt.Sprintf(tr.EtcdKeys, len(v.keys))
	if v.more() && v.started {
		detail += tr.EtcdSoFar
	}
	figure := ""
	if v.rev > 0 {
		figure = fmt.Sprintf(tr.EtcdRev, v.rev)
	}
	return v.tree.Render(fmt.Sprintf(tr.PaneEtcdTree, Prefix), detail, figure, v.treeBody)
}

func (v *Model) treeBody() []string {
	w, _ := v.tree.Size()
	w -= 2
	st, tr := v.c.Styles, v.c.Tr
	var out []string
	switch {
	case v.b == nil:
		return common.WrapLines(st.List.Dim.Render(tr.EtcdNotWired), w)
	case v.notReady && len(v.keys) == 0:
		return common.WrapLines(st.List.Dim.Render(tr.EtcdNotReady), w)
	case v.err != "" && len(v.keys) == 0:
		return common.WrapLines(st.Lane.Stopped.Render(fmt.Sprintf(tr.EtcdListError, Prefix, v.err)), w)
	case !v.started:
		return []string{st.List.Dim.Render(fmt.Sprintf(tr.EtcdListing, Prefix))}
	case len(v.keys) == 0 && !v.more():
		return []string{st.List.Dim.Render(fmt.Sprintf(tr.EtcdNoKey, Prefix))}
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
			if c, ok := v.changed[k.Key.Key]; ok {
				ch = string(c)
			}
			meta := fmt.Sprintf("rev %d · v%d", k.ModRevision, k.Version)
			if k.Size >= 0 {
				meta += fmt.Sprintf(" · %d B", k.Size)
			}
			room := w - len([]rune(meta)) - 2
			line = common.Fit(mark+ch+indent+name, max(room, 8)) + "  " + st.List.Dim.Render(meta)
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
			line = st.List.Cursor.Render(common.Fit(line, w))
		}
		out = append(out, line)
	}
	return out
}
