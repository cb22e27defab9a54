package etcd

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// This file holds the value pane: the selected key's metadata and its value decoded.

// decoding shows that key is being decoded.
func (v *Model) decoding(key string) {
	if v.sel != key {
		v.sel, v.val, v.valErr, v.deleted = key, nil, "", false
	}
	v.relayoutValue()
}

// value takes a decoded value (ignored when another key was selected since, or when it is
// older than the one shown: decodes run concurrently and may answer out of order).
func (v *Model) value(msg valueMsg) {
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

func (v *Model) relayoutValue() {
	w := v.valuePane.Inner()
	st, tr := v.c.Styles, v.c.Tr
	var lines []string
	labelW := 9
	for _, l := range []string{tr.EtcdKey, tr.EtcdRevision, tr.EtcdStored} {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	row := func(label, value string) {
		label = i18n.PadRight(label, labelW) + " "
		for i, l := range common.WrapLines(value, max(w-labelW-1, 10)) {
			if i == 0 {
				lines = append(lines, st.Lane.Dim.Render(label)+l)
			} else {
				lines = append(lines, strings.Repeat(" ", labelW+1)+l)
			}
		}
	}
	switch {
	case v.sel == "":
		lines = common.WrapLines(st.Lane.Dim.Render(tr.EtcdSelect), w)
	default:
		row(tr.EtcdKey, v.sel)
		switch {
		case v.deleted:
			lines = append(lines, "")
			lines = append(lines, common.WrapLines(st.Lane.Stopped.Render(tr.EtcdDeleted), w)...)
		case v.valErr != "":
			lines = append(lines, "")
			lines = append(lines, common.WrapLines(st.Lane.Stopped.Render("✗ "+v.valErr), w)...)
		case v.val == nil:
			lines = append(lines, st.Lane.Dim.Render(tr.EtcdDecoding))
		default:
			k := v.val.EtcdKey
			row(tr.EtcdRevision, fmt.Sprintf(tr.EtcdRevisionValue, k.ModRevision, k.CreateRevision, k.Version))
			row(tr.EtcdStored, fmt.Sprintf(tr.EtcdStoredValue, k.Size, v.val.Encoding))
			lines = append(lines, st.Lane.Heading.Render(tr.EtcdDecoded))
			for _, l := range strings.Split(strings.TrimRight(v.val.YAML, "\n"), "\n") {
				lines = append(lines, common.WrapLines(expandTabs(l), w)...)
			}
		}
	}
	title := ""
	if v.sel != "" {
		_, _, name := SplitKey(v.sel)
		title = name
	}
	v.valuePane.SetTitle(tr.PaneValue, title, "")
	v.valuePane.SetLines(lines)
}

// tabWidth is the tab stop a decoded value's tabs expand to (as the source pane's do).
const tabWidth = 4

// expandTabs replaces tabs by spaces up to the next tab stop.
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}
