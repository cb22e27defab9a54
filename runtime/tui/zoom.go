package tui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
)

// This file holds the zoom (z): the focused pane takes the whole body, and z again puts the
// layout back. The lesson pane is 52 columns at 120×40 and a third of the screen at 80×24;
// zoomed, a lesson, a long command or a lane reads at the window's width. Focus moves (tab,
// a click, a held request bringing the Requests view up) take the zoom to the pane that gets
// the focus; every view with more than one pane zooms.

// zoomBinding is z in the key bar: "zoom", or "unzoom" while zoomed.
func (m *model) zoomBinding() key.Binding {
	if m.zoom {
		return key.NewBinding(key.WithKeys("z"), key.WithHelp("z", m.tr.BarUnzoom))
	}
	return key.NewBinding(key.WithKeys("z"), key.WithHelp("z", m.tr.BarZoom))
}

// zoomTarget names what the zoom shows now: the view and its focused pane.
func (m *model) zoomTarget() string {
	switch m.at {
	case viewTour:
		if m.side {
			return fmt.Sprintf("tour/side/%d", m.sideFocus)
		}
		return fmt.Sprintf("tour/%d", m.focus)
	}
	return fmt.Sprintf("view/%d", m.at)
}

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

// zoomTour sizes the focused pane of the walkthrough to the whole body (resize calls it after
// sizing the panes as the layout places them).
func (m *model) zoomTour() {
	b := m.lay.body
	switch {
	case m.side && m.sideFocus == 1:
		m.kubeSrc.SetSize(b.w, b.h)
	case m.side:
		m.source.SetSize(b.w, b.h)
	case m.focus == paneSource:
		m.source.SetSize(b.w, b.h)
	case m.focus == paneState:
		m.state.SetSize(b.w, b.h)
	case m.focus == paneLesson:
		m.lesson.SetSize(b.w, b.h)
	case m.focus == paneServed:
		m.kubect.SetSize(b.w, b.h)
	}
}

// zoomedTourBody is the walkthrough's body while zoomed: the focused pane alone.
func (m *model) zoomedTourBody() []string {
	switch {
	case m.side && m.sideFocus == 1:
		return m.kubeSrc.View()
	case m.side:
		return m.source.View()
	case m.focus == paneState:
		return m.state.View()
	case m.focus == paneLesson:
		return m.lesson.View()
	case m.focus == paneServed:
		return m.kubect.View()
	}
	return m.source.View()
}
