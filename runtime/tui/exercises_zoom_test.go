package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubewalk/kubewalk/runtime/i18n"
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

// zoomRec is a recView of two panes: a view.Zoomer.
type zoomRec struct{ recView }

func (v *zoomRec) View(w, h int) []string     { return fill("both", h) }
func (v *zoomRec) ZoomView(w, h int) []string { return fill("zoomed", h) }

func fill(s string, h int) []string {
	out := make([]string, h)
	for i := range out {
		out[i] = s
	}
	return out
}

// TestRootZoomer: while z is on the root draws a view.Zoomer's ZoomView instead of its View
// and names z after the view's keys ("zoom", then "unzoom"); a view that is no Zoomer is drawn
// by View either way and gets no z. The zoom's state lives in the root alone: z sends the views
// nothing.
func TestRootZoomer(t *testing.T) {
	hs := newHarness(t, 120, 40, fakeContent{}, fakeServer{})
	tr := hs.model.m.tr
	zv, plain := &zoomRec{}, &recView{}
	hs.model.m.views[viewGlossary] = zv
	hs.model.m.views[viewBoard] = plain
	zKey := func() string {
		// the view's keys (none here) come right after ":", then z
		ks := hs.model.m.viewHelp()
		return ks[1].Help().Key + " " + ks[1].Help().Desc
	}
	tests := []struct {
		at         viewID
		zoom       bool
		body, zKey string
	}{
		{viewGlossary, false, "both", "z " + tr.BarZoom},
		{viewGlossary, true, "zoomed", "z " + tr.BarUnzoom},
		{viewGlossary, false, "both", "z " + tr.BarZoom},
		{viewBoard, true, "", ""},
		{viewBoard, false, "", ""},
	}
	for i, tt := range tests {
		hs.model.m.at = tt.at
		before := len(zv.got) + len(plain.got)
		if hs.model.m.zoom != tt.zoom {
			hs.keys("z")
		}
		if n := len(zv.got) + len(plain.got) - before; n != 0 {
			t.Errorf("%d: z sent the views %d messages", i, n)
		}
		if got := hs.model.m.viewBody()[0]; got != tt.body {
			t.Errorf("%d: %v zoom=%v: body %q, want %q", i, tt.at, tt.zoom, got, tt.body)
		}
		if tt.zKey != "" {
			if got := zKey(); got != tt.zKey {
				t.Errorf("%d: the key after the view's %q, want %q", i, got, tt.zKey)
			}
		} else {
			for _, k := range hs.model.m.viewHelp() {
				if k.Help().Key == "z" {
					t.Errorf("%d: a view that is no Zoomer gets z in its help", i)
				}
			}
		}
	}
}
