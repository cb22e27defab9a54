package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
)

// fullRing is a store holding 1,000 traces of every kind (the ring's default bound), a tenth
// of them loopback.
func fullRing() *fakeStore {
	s := newFakeStore(1000)
	makers := []func(string, int) tracing.Trace{okGet, okCreate, forbidden, invalid, unauthorized, refusedByAdmission, okGet, okCreate, okGet, loopbackList}
	for i := range 1200 {
		s.add(makers[i%len(makers)](fmt.Sprintf("req-%04d", i), i))
	}
	return s
}

// requestsModel is a served model showing the Requests view on a full ring, at w×h.
func requestsModel(b *testing.B, w, h int) (Model, *fakeStore) {
	b.Helper()
	eng := newBenchEngine()
	m := newBenchModel(eng, w, h)
	m = step(m, tour.EventMsg{Ev: eng.pause(0)})
	m.m.tour.SetPolling() // no /readyz polling: its timer would run forever in step
	m = step(m, tour.EventMsg{Ev: engine.Event{Served: true}})
	store := fullRing()
	m.m.setRequests(store, fakeServer{}, fakeContent{})
	m.m.at = viewRequests
	m = step(m, requests.ReloadMsg{})
	m = step(m, keyMsg("tab")) // the lane, with the selected request's picture
	if n := len(m.m.rqv().Shown()); n < 800 {
		b.Fatalf("%d traces shown", n)
	}
	if err := frameFits(m.View(), w, h); err != "" {
		b.Fatal(err)
	}
	return m, store
}

// BenchmarkRequestsView200x60 is a frame of the Requests view with 1,000 traces when nothing
// changed (bubbletea renders after every message).
func BenchmarkRequestsView200x60(b *testing.B) {
	m, _ := requestsModel(b, 200, 60)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = m.View()
	}
}

// BenchmarkRequestsViewRedraw200x60 is the same frame with every pane of the view drawn
// again (the list, the lane, the details), as after a change.
func BenchmarkRequestsViewRedraw200x60(b *testing.B) {
	m, _ := requestsModel(b, 200, 60)
	rq := m.m.rqv()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rq.Invalidate()
		_ = m.View()
	}
}

// BenchmarkRequestsKey is a key press in the list (the selection moves, its lane is drawn)
// and the frame after it, with the ring full.
func BenchmarkRequestsKey(b *testing.B) {
	m, _ := requestsModel(b, 200, 60)
	m = step(m, keyMsg("shift+tab"))
	down, up := keyMsg("down"), keyMsg("up")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%100 >= 50 {
			k = up
		}
		next, _ := m.Update(k)
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkRequestsRefresh is a store snapshot of the full ring arriving (what the update loop
// does with it) and the frame after it; reading the store happens in a tea.Cmd and is
// measured by BenchmarkRequestsLoad.
func BenchmarkRequestsRefresh(b *testing.B) {
	m, _ := requestsModel(b, 200, 60)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		msg := m.m.rqv().Load()()
		b.StartTimer()
		next, _ := m.Update(msg)
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkRequestsLoad is one read of the full ring (List, sort, Dropped) in a tea.Cmd, off
// the update loop.
func BenchmarkRequestsLoad(b *testing.B) {
	m, _ := requestsModel(b, 200, 60)
	load := m.m.rqv().Load()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = load()
	}
}

var _ tea.Model = Model{}
