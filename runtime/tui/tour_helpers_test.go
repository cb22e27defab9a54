package tui

import (
	"github.com/kubewalk/kubewalk/runtime/tui/side"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

// The walkthrough's panes, for the tests that read them (runtime/tui/tour owns them).

func (m *model) srcPane() *source.Pane    { p, _, _, _, _ := m.tour.Panes(); return p }
func (m *model) statePane() *walk.State   { _, p, _, _, _ := m.tour.Panes(); return p }
func (m *model) lessonPane() *walk.Lesson { _, _, p, _, _ := m.tour.Panes(); return p }
func (m *model) servedPane() *walk.Served { _, _, _, p, _ := m.tour.Panes(); return p }
func (m *model) sidePane() *side.Model    { _, _, _, _, p := m.tour.Panes(); return p }

// healthAgent is the User-Agent of the after-serve panel's /readyz polls.
const healthAgent = server.SelfCheckAgent

// phaseIndex is p's place among the server's phases, -1 for none.
func phaseIndex(p server.Phase) int {
	for i, q := range server.Phases() {
		if q == p {
			return i
		}
	}
	return -1
}
