package tour

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// Pane names a pane of the walkthrough.
type Pane int

// The walkthrough's panes.
const (
	PaneSource Pane = iota
	PaneState
	PaneLesson
	PaneServed
)

// name is the pane's name in the title and the tab bar.
func (p Pane) name(tr *i18n.Strings) string {
	return [...]string{tr.PaneSource, tr.PaneState, tr.PaneLesson, tr.PaneKubectl}[p]
}

// rect is a place in the body.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// layout places the panes in the body (w×h, its top left corner at 0,0).
//
// At least WideWidth columns: the source on the left (55%), the state over the lesson on the
// right (the lesson place is shared with the kubectl panel after serve). Narrower: the source,
// and below it one shared place for the state, the lesson and the kubectl panel, switched by
// focus (tab).
type layout struct {
	w, h   int
	wide   bool
	source rect
	upper  rect // wide only: the state
	shared rect // the tabbed place
}

func computeLayout(w, h int) layout {
	l := layout{w: w, h: h, wide: w >= WideWidth}
	if l.wide {
		srcW := w * 55 / 100
		rightW := w - srcW
		upperH := h * 45 / 100
		l.source = rect{0, 0, srcW, h}
		l.upper = rect{srcW, 0, rightW, upperH}
		l.shared = rect{srcW, upperH, rightW, h - upperH}
	} else {
		srcH := h / 2
		l.source = rect{0, 0, w, srcH}
		l.shared = rect{0, srcH, w, h - srcH}
	}
	return l
}

// paneAt finds the pane at a cell of the body.
func (t *Model) paneAt(x, y int) (Pane, bool) {
	l := t.lay
	switch {
	case l.source.contains(x, y):
		return PaneSource, true
	case l.wide && l.upper.contains(x, y):
		return PaneState, true
	case l.shared.contains(x, y):
		return t.tab, true
	}
	return 0, false
}

// Layout lays the panes out for a body of w×h (the root calls it at each resize, and when a
// class line under the header comes or goes); zoomed, ZoomView sizes the focused pane again.
func (t *Model) Layout(w, h int) {
	t.lay = computeLayout(w, h)
	t.zoomedFor = ""
	t.side.SetSize(w, h)
	if !t.side.Open() {
		t.source.SetSize(t.lay.source.w, t.lay.source.h)
	}
	if t.lay.wide {
		t.state.SetSize(t.lay.upper.w, t.lay.upper.h)
	} else {
		t.state.SetSize(t.lay.shared.w, t.lay.shared.h)
	}
	t.lesson.SetSize(t.lay.shared.w, t.lay.shared.h)
	t.kubect.SetSize(t.lay.shared.w, t.lay.shared.h)
	t.tab = t.visibleTab()
	t.applyFocus()
}

// visibleTab keeps the shared place on a pane that lives there in this layout.
func (t *Model) visibleTab() Pane {
	if t.shared(t.focus) {
		return t.focus
	}
	if t.tab == PaneState && t.lay.wide {
		return PaneLesson
	}
	return t.tab
}

// View draws the panes as the layout places them: exactly h lines of w cells.
func (t *Model) View(w, h int) []string {
	if w != t.lay.w || h != t.lay.h || t.zoomedFor != "" {
		t.Layout(w, h)
	}
	if t.side.Open() {
		return t.side.View()
	}
	var shared []string
	switch t.tab {
	case PaneState:
		shared = t.state.View()
	case PaneServed:
		shared = t.kubect.View()
	default:
		shared = t.lesson.View()
	}
	if t.lay.wide {
		right := append(append([]string{}, t.state.View()...), shared...)
		return common.JoinColumns(t.source.View(), right)
	}
	return append(append([]string{}, t.source.View()...), shared...)
}

// ZoomView draws the focused pane alone over the whole body (the root's z). The lesson pane is
// 52 columns at 120×40 and a third of the screen at 80×24; zoomed, a lesson or a long command
// reads at the window's width.
func (t *Model) ZoomView(w, h int) []string {
	if on := fmt.Sprintf("%d/%d/%d/%d/%v", w, h, t.focus, t.side.Focus(), t.side.Open()); on != t.zoomedFor {
		t.Layout(w, h) // the panes as the layout places them, then the focused one over all
		t.zoomSize(w, h)
		t.zoomedFor = on
	}
	switch {
	case t.side.Open():
		return t.side.ZoomView()
	case t.focus == PaneState:
		return t.state.View()
	case t.focus == PaneLesson:
		return t.lesson.View()
	case t.focus == PaneServed:
		return t.kubect.View()
	}
	return t.source.View()
}

// zoomSize sizes the focused pane to the whole body.
func (t *Model) zoomSize(w, h int) {
	switch {
	case t.side.Open():
		t.side.ZoomSize(w, h)
	case t.focus == PaneSource:
		t.source.SetSize(w, h)
	case t.focus == PaneState:
		t.state.SetSize(w, h)
	case t.focus == PaneLesson:
		t.lesson.SetSize(w, h)
	case t.focus == PaneServed:
		t.kubect.SetSize(w, h)
	}
}

// panes lists the panes focus cycles through.
func (t *Model) panes() []Pane {
	ps := []Pane{PaneSource, PaneState, PaneLesson}
	if t.served {
		ps = append(ps, PaneServed)
	}
	return ps
}

func (t *Model) cycleFocus(d int) {
	ps := t.panes()
	i := 0
	for j, p := range ps {
		if p == t.focus {
			i = j
		}
	}
	t.setFocus(ps[(i+d+len(ps))%len(ps)])
}

// setFocus focuses a pane and brings it into the shared place if it lives there.
func (t *Model) setFocus(p Pane) {
	t.focus = p
	if t.shared(p) {
		t.tab = p
	}
	t.applyFocus()
}

// shared reports whether p is shown in the tabbed place (rather than a place of its own).
func (t *Model) shared(p Pane) bool {
	switch p {
	case PaneSource:
		return false
	case PaneState:
		return !t.lay.wide
	}
	return true
}

// paneFrame is what the walkthrough asks of a pane's frame: its tab bar and its size.
type paneFrame interface {
	SetTabs(string)
	Size() (w, h int)
}

// applyFocus tells the panes who is focused and what the tab bar says.
func (t *Model) applyFocus() {
	if t.tab == PaneState && t.lay.wide {
		t.tab = PaneLesson
	}
	t.source.SetFocused(t.focus == PaneSource && !t.side.Open())
	t.side.ApplyFocus()
	t.state.SetFocused(t.focus == PaneState)
	t.lesson.SetFocused(t.focus == PaneLesson)
	t.kubect.SetFocused(t.focus == PaneServed)

	var tabs []Pane
	for _, p := range t.panes() {
		if t.shared(p) {
			tabs = append(tabs, p)
		}
	}
	bar := ""
	if len(tabs) > 1 {
		var parts []string
		for _, p := range tabs {
			if p == t.tab {
				parts = append(parts, "["+p.name(t.tr)+"]")
			} else {
				parts = append(parts, p.name(t.tr))
			}
		}
		bar = strings.Join(parts, " ")
	}
	t.state.SetTabs("")
	for _, p := range tabs {
		t.frameOf(p).SetTabs(bar)
	}
}

func (t *Model) frameOf(p Pane) paneFrame {
	switch p {
	case PaneSource:
		return t.source
	case PaneState:
		return t.state
	case PaneLesson:
		return t.lesson
	}
	return t.kubect
}

// page is the page size of the focused pane.
func (t *Model) page() int {
	switch t.focus {
	case PaneSource:
		return t.source.Page()
	case PaneState:
		return t.state.Page()
	case PaneLesson:
		return t.lesson.Page()
	}
	return t.kubect.Page()
}

// scrollFocused scrolls (or, in the state tree, moves the cursor in) the focused pane.
func (t *Model) scrollFocused(n int) {
	switch t.focus {
	case PaneSource:
		t.source.Scroll(n)
	case PaneState:
		t.state.Move(n)
	case PaneLesson:
		t.lesson.Scroll(n)
	case PaneServed:
		t.kubect.Scroll(n)
	}
}

// mouse scrolls the focused pane with the wheel and focuses a pane on click; the root has
// made the position relative to the body.
func (t *Model) mouse(msg tea.MouseMsg) {
	if t.side.Open() {
		t.side.Mouse(msg)
		return
	}
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		t.wheel(-3)
	case tea.MouseButtonWheelDown:
		t.wheel(3)
	case tea.MouseButtonLeft:
		if p, ok := t.paneAt(msg.X, msg.Y); ok {
			t.setFocus(p)
		}
	}
}

func (t *Model) wheel(n int) {
	if t.focus == PaneState {
		t.state.Scroll(n)
		return
	}
	t.scrollFocused(n)
}
