package etcd

import (
	"context"
	"fmt"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// The frame these draw is the view's body on a 200×60 screen: the header's three lines and
// the status line are the root's.
const benchW, benchH = 200, 56

// listedView is the view with n keys listed page by page, every namespace of the resource
// open (all keys are rows), drawn once.
func listedView(b *testing.B, n int) *Model {
	b.Helper()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("/registry/configmaps/ns-%02d/cm-%05d", i%20, i)
	}
	e := newFake(keys...)
	v := New(newCommon(i18n.English), e, context.Background())
	v.View(benchW, benchH)
	v.loading = true
	after := ""
	for {
		msg := v.list(after)().(pageMsg)
		v.Update(msg) // its commands (decode, watch) are not run
		if msg.page.Continue == "" {
			break
		}
		after = msg.page.Continue
		v.loading = true
	}
	if len(v.keys) != n {
		b.Fatalf("%d keys listed, want %d", len(v.keys), n)
	}
	v.open["r\x00configmaps"] = true
	for i := range 20 {
		v.open[fmt.Sprintf("n\x00configmaps\x00ns-%02d", i)] = true
	}
	v.rebuild()
	v.View(benchW, benchH)
	return v
}

// BenchmarkEtcdKey10k is a key press in the tree with 10,000 keys listed and every row open,
// and the frame after it.
func BenchmarkEtcdKey10k(b *testing.B) {
	v := listedView(b, 10000)
	down, up := keyMsg("down"), keyMsg("up")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		k := down
		if i%200 >= 100 {
			k = up
		}
		v.Update(k)
		_ = v.View(benchW, benchH)
	}
}

// BenchmarkEtcdPage10k is a page of 500 keys arriving when 9,500 are listed (the tree is
// rebuilt), and the frame after it.
func BenchmarkEtcdPage10k(b *testing.B) {
	v := listedView(b, 9500)
	var page Page
	for i := range PageSize {
		page.Keys = append(page.Keys, Key{Key: fmt.Sprintf("/registry/configmaps/zz/cm-%05d", i), ModRevision: 1, Version: 1, Size: 100})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		v.keys = v.keys[:9500]
		v.cont = "x"
		b.StartTimer()
		v.Update(pageMsg{after: "x", page: page})
		_ = v.View(benchW, benchH)
	}
}

// BenchmarkEtcdWatchBurst is 100 changes from the watch applied to 10,000 keys, and the frame.
func BenchmarkEtcdWatchBurst(b *testing.B) {
	v := listedView(b, 10000)
	var cs []Change
	for i := range 100 {
		cs = append(cs, Change{Key: Key{Key: fmt.Sprintf("/registry/configmaps/ns-%02d/cm-%05d", i%20, i*97), ModRevision: int64(20000 + i), Version: 2, Size: 130}})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		v.Update(changesMsg{changes: cs})
		_ = v.View(benchW, benchH)
	}
}
