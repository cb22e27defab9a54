package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
)

// This file holds the zoom (z): the focused pane takes the whole body, and z again puts the
// layout back. The lesson pane is 52 columns at 120×40 and a third of the screen at 80×24;
// zoomed, a lesson, a long command or a lane reads at the window's width. Focus moves (tab,
// a click, a held request bringing the Requests view up) take the zoom to the pane that gets
// the focus; every view with more than one pane zooms (view.Zoomer; the walkthrough's is
// runtime/tui/tour's ZoomView).

// zoomBinding is z in the key bar: "zoom", or "unzoom" while zoomed.
func (m *model) zoomBinding() key.Binding {
	if m.zoom {
		return key.NewBinding(key.WithKeys("z"), key.WithHelp("z", m.tr.BarUnzoom))
	}
	return key.NewBinding(key.WithKeys("z"), key.WithHelp("z", m.tr.BarZoom))
}

// zoomTarget names what the zoom shows now: the view (a view zooms its own focused pane,
// view.Zoomer, and follows its focus itself).
func (m *model) zoomTarget() string { return fmt.Sprintf("view/%d", m.at) }

// toggleZoom zooms the focused pane to the whole body, or puts the layout back.
func (m *model) toggleZoom() {
	m.zoom = !m.zoom
	m.zoomedOn = ""
	m.syncZoom()
	if !m.zoom {
		m.resize(m.w, m.h)
	}
}

// syncZoom lays the panes out again when the zoom is on and the focused pane (or the view)
// has changed since it was laid out. Update calls it after every message.
func (m *model) syncZoom() {
	if !m.zoom || m.w <= 0 || m.lay.small {
		return
	}
	if t := m.zoomTarget(); t != m.zoomedOn {
		m.zoomedOn = t
		m.resize(m.w, m.h)
	}
}
