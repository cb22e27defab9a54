package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

// This file is the root's side of the walkthrough (runtime/tui/tour): making it, with the keys
// it answers and what it asks of the root (the done channel, the clock, the note, an info box,
// the class following a track step).

// newTour makes the walkthrough of eng for m.
func newTour(m *model, c common.Common, eng Engine, srv ServerInfo, content Content, opts Options, ctx context.Context) *tour.Model {
	var ts tour.ServerInfo
	if srv != nil {
		ts = srv
	}
	var track []Step
	if t, ok := content.(Track); ok {
		track = t.TrackSteps()
	}
	k := m.keys
	return tour.New(c, tour.Options{
		Engine: eng, Server: ts, Content: content,
		Keys: tour.Keys{
			Next: k.Next, NextPhase: k.NextPhase, ToEnd: k.ToEnd, Phase: k.Phase, Back: k.Back, Forward: k.Forward, Live: k.Live,
			FocusNext: k.FocusNext, FocusPrev: k.FocusPrev, Served: k.Served,
			Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom,
			Toggle: k.Toggle, NextChange: k.NextChange, PrevChange: k.PrevChange,
			ExpandAll: k.ExpandAll, CollapseAll: k.CollapseAll, Raw: k.Raw,
			Upstream: k.Upstream, Wrap: k.Wrap, Search: k.Search, Rerun: k.Rerun,
			SideBySide: k.SideBySide, Fetch: k.Fetch,
			MatchNext: k.MatchNext, MatchPrev: k.MatchPrev, OpenMatch: k.OpenMatch,
			Help: k.Help, Quit: k.Quit,
		},
		GlamourStyle: opts.GlamourStyle,
		Auto:         opts.Auto,
		Track:        track,
		Probe:        tour.Probe(opts.Probe),
		Progress:     opts.Progress,
		Fetch:        opts.Fetch,
		NoFetch:      opts.NoFetch,
		Ctx:          ctx,
		Env: tour.Env{
			Done:  func() <-chan struct{} { return m.done },
			Note:  func(s string) { m.note = s },
			Info:  func(title string, lines []string) { m.info = &infoBox{title: title, lines: lines} },
			Moved: func() tea.Cmd { return m.cls.Moved() },
		},
	})
}
