package exercises

import (
	"fmt"
	"sort"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// wideWidth is where the view puts the list and the detail side by side (the root's layout
// switches at the same width, and the view is as wide as the window).
const wideWidth = 120

// rect is a place in the view, relative to its top-left corner.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// rects places the list and the detail in a view w×h: side by side when wide, else the list
// over the detail; zoomed, the focused one takes the whole view (the other keeps its place,
// unseen).
func (v *Model) rects(w, h int, zoom bool) (list, detail rect) {
	if w >= wideWidth {
		exW := w * 45 / 100
		list, detail = rect{0, 0, exW, h}, rect{exW, 0, w - exW, h}
	} else {
		exH := h * 40 / 100
		list, detail = rect{0, 0, w, exH}, rect{0, exH, w, h - exH}
	}
	if zoom {
		if v.focus == 1 {
			detail = rect{0, 0, w, h}
		} else {
			list = rect{0, 0, w, h}
		}
	}
	return list, detail
}

// View renders the view at w×h: the list and the detail.
func (v *Model) View(w, h int) []string {
	v.layout(w, h, false)
	if v.wide {
		return common.JoinColumns(v.listView(), v.detail.View())
	}
	return append(append([]string{}, v.listView()...), v.detail.View()...)
}

// ZoomView renders the focused pane alone at w×h (the root's z; view.Zoomer).
func (v *Model) ZoomView(w, h int) []string {
	v.layout(w, h, true)
	if v.focus == 1 {
		return v.detail.View()
	}
	return v.listView()
}

// layout places the panes for w×h, zoomed or not, and keeps where they are for the mouse.
func (v *Model) layout(w, h int, zoom bool) {
	v.listAt, v.detailAt = v.rects(w, h, zoom)
	v.setSize(w >= wideWidth, v.listAt, v.detailAt)
}

// setSize places the list and the detail (laying the detail out again when it changed).
func (v *Model) setSize(wide bool, list, detail rect) {
	lw, lh := v.list.Size()
	dw, dh := v.detail.Size()
	if wide == v.wide && lw == list.w && lh == list.h && dw == detail.w && dh == detail.h {
		return
	}
	v.list.SetSize(list.w, list.h)
	v.wide = wide
	v.detail.SetSize(detail.w, detail.h)
	v.keepVisible()
	v.relayoutDetail()
}

// setFocus focuses the list (0) or the detail (1).
func (v *Model) setFocus(f int) {
	v.focus = f
	v.list.SetFocused(f == 0)
	v.detail.SetFocused(f == 1)
}

// take takes a snapshot and returns the exercises that ticked since the last one (not those
// an answer typed here is deciding: the detail shows those). It ignores a snapshot older than
// the one shown.
func (v *Model) take(msg loadedMsg) (ticked []Exercise) {
	if msg.seq <= v.seq {
		return nil
	}
	v.seq = msg.seq
	if v.loaded {
		was := map[string]State{}
		for _, e := range v.all {
			was[e.ID] = e.State
		}
		for _, e := range msg.list {
			if s, ok := was[e.ID]; ok && s != Done && e.State == Done && !v.pending[e.ID] {
				ticked = append(ticked, e)
			}
		}
	}
	v.loaded = true
	v.all = msg.list
	v.rebuild()
	return ticked
}

// replace replaces one exercise with what the backend returned for it.
func (v *Model) replace(e Exercise) {
	for i := range v.all {
		if v.all[i].ID == e.ID {
			v.all[i] = e
		}
	}
	v.list.Invalidate()
	v.relayoutDetail()
}

// SetCurrent says where the walkthrough is: lesson is the lesson ID of the step on screen
// ("" when unknown), phase its phase. The list puts that lesson first and, when it changed,
// selects its first exercise.
func (v *Model) SetCurrent(lesson, phase string) {
	if v.curLesson == lesson && v.curPhase == phase {
		return
	}
	v.curLesson, v.curPhase = lesson, phase
	v.sel = "" // the walkthrough moved on: select its lesson's first exercise
	v.rebuild()
}

// rebuild orders the rows: the current lesson's exercises first (by lesson ID, else, when
// no exercise names that lesson, by phase), then the other lessons in the order List gave.
func (v *Model) rebuild() {
	rank := func(e Exercise) int {
		switch {
		case v.curLesson != "" && e.Lesson == v.curLesson:
			return 0
		case v.curPhase != "" && e.Phase == v.curPhase:
			return 1
		}
		return 2
	}
	best := 2
	for _, e := range v.all {
		best = min(best, rank(e))
	}
	idx := make([]int, len(v.all))
	for i := range idx {
		idx[i] = i
	}
	// Lessons keep the order of their first exercise; the current one goes first.
	first := map[string]int{}
	for i, e := range v.all {
		if _, ok := first[e.Lesson]; !ok {
			first[e.Lesson] = i
		}
	}
	cur := func(e Exercise) bool { return best < 2 && rank(e) == best }
	sort.SliceStable(idx, func(a, b int) bool {
		ea, eb := v.all[idx[a]], v.all[idx[b]]
		if ca, cb := cur(ea), cur(eb); ca != cb {
			return ca
		}
		return first[ea.Lesson] < first[eb.Lesson]
	})
	v.rows = v.rows[:0]
	lesson := "\x00"
	for _, i := range idx {
		e := v.all[i]
		if e.Lesson != lesson {
			lesson = e.Lesson
			title := e.LessonTitle
			if title == "" {
				title = e.Lesson
			}
			v.rows = append(v.rows, row{heading: title, current: cur(e)})
		}
		v.rows = append(v.rows, row{ex: i})
	}
	// Keep the selection on the same exercise; else the first one.
	v.cursor = -1
	for i, r := range v.rows {
		if r.heading == "" && v.all[r.ex].ID == v.sel {
			v.cursor = i
		}
	}
	if v.cursor < 0 {
		v.sel = ""
		for i, r := range v.rows {
			if r.heading == "" {
				v.cursor, v.sel = i, v.all[r.ex].ID
				break
			}
		}
	}
	v.keepVisible()
	v.list.Invalidate()
	v.relayoutDetail()
}

// Selected is the selected exercise.
func (v *Model) Selected() (Exercise, bool) {
	if v.cursor < 0 || v.cursor >= len(v.rows) || v.rows[v.cursor].heading != "" {
		return Exercise{}, false
	}
	return v.all[v.rows[v.cursor].ex], true
}

// Move moves the selection by n exercises (headings are skipped).
func (v *Model) Move(n int) {
	var exRows []int
	at := 0
	for i, r := range v.rows {
		if r.heading == "" {
			if i == v.cursor {
				at = len(exRows)
			}
			exRows = append(exRows, i)
		}
	}
	if len(exRows) == 0 {
		return
	}
	at = max(min(at+n, len(exRows)-1), 0)
	v.cursor = exRows[at]
	v.sel = v.all[v.rows[v.cursor].ex].ID
	v.keepVisible()
	v.list.Invalidate()
	v.relayoutDetail()
}

func (v *Model) visible() int {
	_, h := v.list.Size()
	return max(h-2, 1)
}

// keepVisible scrolls the list so that the cursor shows, with its heading when it fits. Before
// the view is first drawn its size is unknown: the list stays at the top, and the first View
// scrolls it.
func (v *Model) keepVisible() {
	if _, h := v.list.Size(); h == 0 {
		return
	}
	vis := v.visible()
	top := v.cursor
	if top > 0 && v.rows[top-1].heading != "" {
		top--
	}
	if top < v.offset {
		v.offset = max(top, 0)
	}
	if v.cursor >= v.offset+vis {
		v.offset = v.cursor - vis + 1
	}
	v.offset = max(min(v.offset, len(v.rows)-vis), 0)
}

// listView renders the list pane.
func (v *Model) listView() []string {
	detail := ""
	if v.loaded && len(v.all) > 0 {
		d, n := v.Done()
		detail = fmt.Sprintf(v.c.Tr.ViewExercisesDone, d, n)
	}
	return v.list.Render(v.c.Tr.PaneExercises, detail, "", v.listBody)
}

// marker is an exercise's state as one cell: it carries the state without colour.
func marker(s State) string {
	switch s {
	case Done:
		return "✓"
	case Open:
		return "○"
	case NeedsServe:
		return "⏸"
	}
	return "·"
}

func (v *Model) listBody() []string {
	lw, _ := v.list.Size()
	w := lw - 2
	st, tr := v.c.Styles, v.c.Tr
	switch {
	case v.x == nil:
		return common.WrapLines(st.List.Dim.Render(tr.ExNotWired), w)
	case !v.loaded:
		return []string{st.List.Dim.Render(tr.ExLoading)}
	case len(v.all) == 0:
		return []string{st.List.Dim.Render(tr.ExNone)}
	}
	var out []string
	end := min(v.offset+v.visible(), len(v.rows))
	for i := v.offset; i < end; i++ {
		r := v.rows[i]
		if r.heading != "" {
			h := r.heading
			if r.current {
				h = fmt.Sprintf(tr.ExCurrentLesson, h)
			}
			out = append(out, " "+st.List.Group.Render(common.Fit(h, w-1)))
			continue
		}
		e := v.all[r.ex]
		mark := " "
		if i == v.cursor {
			mark = "›"
		}
		right := ""
		switch e.State {
		case Locked:
			right = fmt.Sprintf(tr.ExRowLocked, e.Phase)
		case NeedsServe:
			right = tr.ExRowNeedsServe
		}
		if len(e.Hints) > 0 {
			if right != "" {
				right += " · "
			}
			right += fmt.Sprintf(tr.ExRowHints, len(e.Hints), e.HintLevels)
		}
		left := mark + " " + marker(e.State) + " " + e.Title
		style := st.List.Dim
		switch e.State {
		case Done:
			style = st.Lane.OK
		case Open:
			style = st.Lane.Text
		}
		var line string
		if rw := ansi.StringWidth(right); right != "" && w-rw-2 >= 12 {
			line = style.Render(common.Fit(left, w-rw-2)) + "  " + st.List.Dim.Render(right)
		} else {
			line = style.Render(common.Fit(left, w))
		}
		if i == v.cursor {
			line = st.List.Cursor.Render(common.Fit(ansi.Strip(line), w))
		}
		out = append(out, line)
	}
	return out
}
