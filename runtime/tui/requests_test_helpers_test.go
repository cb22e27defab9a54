package tui

import (
	"context"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// setRequests wires a trace store after the model was made (the benchmarks fill one first):
// the Requests view is made again over it.
func (m *model) setRequests(r Requests, srv ServerInfo, content Content) {
	k := m.keys
	c := common.Common{Styles: m.st, Tr: m.tr, Scroll: common.ScrollKeys{
		Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Top: k.Top, Bottom: k.Bottom}}
	m.views[viewRequests] = newRequests(m, c, context.Background(), srv, content, Options{Requests: r})
}
