package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestKubectlZoom: the root's z zooms the kubectl view through view.Zoomer: the focused pane
// alone takes the body (the output, then after tab the requests), the help bar names z unzoom
// right after the view's keys, the wheel scrolls the zoomed pane without taking the focus to
// the hidden one, and z again puts both panes back.
func TestKubectlZoom(t *testing.T) {
	for _, sz := range viewSizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			f := newFixture(t, sz.w, sz.h)
			f.store.add(okGet("g-1", 30))
			hs := f.hs
			tr := hs.model.m.tr
			hs.typeLine("k get cm")
			hs.until("the lane", func() bool { return strings.Contains(hs.view(), "✓authz") })
			hs.must("kube-root-ca.crt", tr.PaneRequestsMade)
			bar := func() string { return strings.Split(hs.view(), "\n")[sz.h-1] }
			if b := bar(); !strings.Contains(b, "↑/↓ "+tr.BarScroll+" • z "+tr.BarZoom) {
				t.Errorf("unzoomed bar %q: z is not right after the view's keys", b)
			}

			steps := []struct {
				keys       []string
				show, hide string
				z          string
			}{
				{[]string{"z"}, "kube-root-ca.crt", tr.PaneRequestsMade, tr.BarUnzoom},
				{[]string{"tab"}, tr.PaneRequestsMade, "kube-root-ca.crt", tr.BarUnzoom},
			}
			for i, st := range steps {
				hs.keys(st.keys...)
				if !hs.model.m.zoom {
					t.Fatalf("%d: not zoomed", i)
				}
				v := hs.view()
				if !strings.Contains(v, st.show) || strings.Contains(v, st.hide) {
					t.Errorf("%d: zoomed body shows %q alone? view:\n%s", i, st.show, v)
				}
				if b := bar(); !strings.Contains(b, "z "+st.z) {
					t.Errorf("%d: bar %q has no z %s", i, b, st.z)
				}
			}
			// The wheel at the top of the body, where the output pane is drawn unzoomed.
			hs.send(tea.MouseMsg{X: 2, Y: hs.model.m.lay.body.y + 1, Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
			hs.settle()
			hs.must(tr.PaneRequestsMade)
			hs.mustNot("kube-root-ca.crt")

			hs.keys("z")
			if hs.model.m.zoom {
				t.Fatal("z again did not unzoom")
			}
			hs.must("kube-root-ca.crt", tr.PaneRequestsMade, "z "+tr.BarZoom)
		})
	}
}
