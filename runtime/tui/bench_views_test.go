package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tracing"
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
	m = step(m, eventMsg{ev: eng.pause(0)})
	m.m.polling = true // no /readyz polling: its timer would run forever in step
	m = step(m, eventMsg{ev: engine.Event{Served: true}})
	store := fullRing()
	m.m.reqs = store
	m.m.at = viewRequests
	m = step(m, load(store, nil, m.m.query))
	m = step(m, keyMsg("tab")) // the lane, with the selected request's picture
	if n := len(m.m.rq.shown); n < 800 {
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
	rq := m.m.rq
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rq.list.dirty, rq.source.dirty = true, true
		rq.lane.Invalidate()
		rq.details.Invalidate()
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
	m, store := requestsModel(b, 200, 60)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		msg := load(store, nil, m.m.query)
		b.StartTimer()
		next, _ := m.Update(msg)
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkRequestsLoad is one read of the full ring (List, sort, Dropped) in a tea.Cmd, off
// the update loop.
func BenchmarkRequestsLoad(b *testing.B) {
	store := fullRing()
	q := &reqQuery{filter: tracing.Filter{}}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_ = load(store, nil, q)
	}
}

// etcdModel is a served model showing the etcd view with n keys listed page by page.
func etcdModel(b *testing.B, n int) Model {
	b.Helper()
	eng := newBenchEngine()
	m := newBenchModel(eng, 200, 60)
	m = step(m, eventMsg{ev: eng.pause(0)})
	m.m.polling = true // no /readyz polling: its timer would run forever in step
	m = step(m, eventMsg{ev: engine.Event{Served: true}})
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("/registry/configmaps/ns-%02d/cm-%05d", i%20, i)
	}
	e := newFakeEtcd(keys...)
	m.m.etcd = e
	m.m.at = viewEtcd
	m.m.ev.loading = true
	after := ""
	for {
		msg := listEtcd(m.m.ctx, e, after)().(etcdPageMsg)
		next, _ := m.Update(msg)
		m = next.(Model)
		if msg.page.Continue == "" {
			break
		}
		after = msg.page.Continue
		m.m.ev.loading = true
	}
	if len(m.m.ev.keys) != n {
		b.Fatalf("%d keys listed, want %d", len(m.m.ev.keys), n)
	}
	// Open every namespace of the resource: all keys are rows.
	m.m.ev.open["r\x00configmaps"] = true
	for i := range 20 {
		m.m.ev.open[fmt.Sprintf("n\x00configmaps\x00ns-%02d", i)] = true
	}
	m.m.ev.rebuild()
	return m
}

// BenchmarkEtcdKey10k is a key press in the etcd tree with 10,000 keys listed and every row
// open, and the frame after it.
func BenchmarkEtcdKey10k(b *testing.B) {
	m := etcdModel(b, 10000)
	down, up := keyMsg("down"), keyMsg("up")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%200 >= 100 {
			k = up
		}
		next, _ := m.Update(k)
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkEtcdPage10k is a page of 500 keys arriving when 9,500 are listed (the tree is
// rebuilt), and the frame after it.
func BenchmarkEtcdPage10k(b *testing.B) {
	m := etcdModel(b, 9500)
	var page EtcdPage
	for i := range etcdPage {
		page.Keys = append(page.Keys, EtcdKey{Key: fmt.Sprintf("/registry/configmaps/zz/cm-%05d", i), ModRevision: 1, Version: 1, Size: 100})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		m.m.ev.keys = m.m.ev.keys[:9500]
		m.m.ev.cont = "x"
		b.StartTimer()
		next, _ := m.Update(etcdPageMsg{after: "x", page: page})
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkEtcdWatchBurst is 100 changes from the watch applied to 10,000 keys, and the frame.
func BenchmarkEtcdWatchBurst(b *testing.B) {
	m := etcdModel(b, 10000)
	var cs []EtcdChange
	for i := range 100 {
		cs = append(cs, EtcdChange{Key: EtcdKey{Key: fmt.Sprintf("/registry/configmaps/ns-%02d/cm-%05d", i%20, i*97), ModRevision: int64(20000 + i), Version: 2, Size: 130}})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		next, _ := m.Update(etcdChangesMsg{changes: cs})
		m = next.(Model)
		_ = m.View()
	}
}

var _ tea.Model = Model{}

// BenchmarkKubectlOutput is one more line of output arriving from a command that has printed
// 5,000 (a long get -w), and the frame after it.
func BenchmarkKubectlOutput(b *testing.B) {
	eng := newBenchEngine()
	m := newBenchModel(eng, 200, 60)
	m = step(m, eventMsg{ev: eng.pause(0)})
	m.m.polling = true
	m = step(m, eventMsg{ev: engine.Event{Served: true}})
	run := newKcRun("get cm -w", []string{"get", "cm", "-w"}, func() {})
	m.m.at = viewKubectl
	m.m.kc.Start(run)
	for i := range 5000 {
		fmt.Fprintf(run, "configmap-%05d   1      %ds\n", i, i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		fmt.Fprintf(run, "configmap-new-%05d   1      0s\n", i)
		next, _ := m.Update(kcOutputMsg{run: run})
		m = next.(Model)
		_ = m.View()
	}
}
