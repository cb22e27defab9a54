package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/view"
)

// TestExercisesZoomGolden pins what the root does around the exercises view (ANSI stripped):
// z zooms its focused pane and follows the focus, the mouse focuses and scrolls its panes, and
// a toast is drawn over another view. The files were written before the view moved into its
// own package and must not change.
func TestExercisesZoomGolden(t *testing.T) {
	press := func(b tea.MouseButton, x, y int) tea.MouseMsg {
		return tea.MouseMsg{X: x, Y: y, Button: b, Action: tea.MouseActionPress}
	}
	tests := []struct {
		name string
		run  func(hs *harness, x *fakeExercises)
	}{
		{"zoomdetail", func(hs *harness, x *fakeExercises) {
			hs.keys("K", "3")
			hs.typeLine("ex")
			hs.keys("tab", "h", "h", "z")
		}},
		{"zoomlist", func(hs *harness, x *fakeExercises) {
			hs.typeLine("ex")
			hs.keys("z", "down", "down", "down")
		}},
		{"zoomfollows", func(hs *harness, x *fakeExercises) {
			hs.typeLine("ex")
			hs.keys("tab", "z", "tab", "down")
		}},
		{"unzoom", func(hs *harness, x *fakeExercises) {
			hs.typeLine("ex")
			hs.keys("tab", "z", "z")
		}},
		{"mouse", func(hs *harness, x *fakeExercises) {
			hs.typeLine("ex")
			hs.send(press(tea.MouseButtonWheelDown, 5, 6))
			hs.send(press(tea.MouseButtonLeft, hs.w-5, hs.h-4))
			hs.keys("h", "h", "h")
			hs.send(press(tea.MouseButtonWheelDown, hs.w-5, hs.h-4))
			hs.settle()
		}},
		{"toastover", func(hs *harness, x *fakeExercises) {
			hs.keys("E")
			hs.typeLine("glossary")
			x.pass("authz-bob-cm")
			hs.until("the toast", func() bool { return len(hs.model.m.toasts) == 1 })
			hs.settle()
		}},
	}
	for _, lang := range i18n.Languages() {
		for _, tt := range tests {
			for _, sz := range viewSizes {
				t.Run(fmt.Sprintf("%s_%s_%dx%d", lang, tt.name, sz.w, sz.h), func(t *testing.T) {
					hs, x := newExFixture(t, lang, sz.w, sz.h)
					tt.run(hs, x)
					golden.RequireEqual(t, []byte(hs.view()))
				})
			}
		}
	}
}

// TestRootZoomMsg: z tells every view the zoom's state (view.ZoomMsg), on and off.
func TestRootZoomMsg(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	active, other := &recView{}, &recView{}
	hs.model.m.views[viewGlossary] = active
	hs.model.m.views[viewBoard] = other
	hs.model.m.at = viewGlossary
	for _, want := range []bool{true, false} {
		before := len(other.got)
		hs.keys("z")
		for name, v := range map[string]*recView{"active": active, "other": other} {
			if z, ok := v.got[len(v.got)-1].(view.ZoomMsg); !ok || z.On != want {
				t.Errorf("%s view: last message %#v after z, want view.ZoomMsg{On: %v}", name, v.got[len(v.got)-1], want)
			}
		}
		if len(other.got) != before+1 {
			t.Errorf("the other view got %d messages for one z", len(other.got)-before)
		}
	}
}
