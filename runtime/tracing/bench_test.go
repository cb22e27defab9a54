package tracing_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// BenchmarkRecording compares a configmap GET and CREATE through client-go on two servers run
// side by side, one recording nothing and one recording into a Store (full lanes: the
// library's audit and spans, kubewalk's decorators, the Store), alternating which goes first;
// it reports each p50 and their ratio (on/off). A subscriber reads every lane as it changes,
// as the Requests view does.
func BenchmarkRecording(b *testing.B) {
	store := tracing.NewStore(0)
	off := startServer(b, nil, nil)
	on := startServer(b, store, tracing.NewBreakpoints(store))
	events, cancel := store.Subscribe()
	defer cancel()
	viewDone := make(chan struct{})
	stopView := make(chan struct{})
	go func() { // a view re-reading on each event
		defer close(viewDone)
		for {
			select {
			case ev := <-events:
				if ev.ID != "" {
					store.Get(ev.ID)
				}
			case <-stopView:
				return
			}
		}
	}()
	defer func() { close(stopView); <-viewDone }()

	ctx := context.Background()
	offc, _ := client(b, off, "admin")
	onc, _ := client(b, on, "admin")
	clients := []corev1client.ConfigMapInterface{offc.CoreV1().ConfigMaps("default"), onc.CoreV1().ConfigMaps("default")}
	for _, c := range clients {
		if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var seq atomic.Int64 // names the created configmaps, unique over -count repetitions
	ops := []struct {
		name string
		do   func(c corev1client.ConfigMapInterface, n, i int) error
	}{
		{"get", func(c corev1client.ConfigMapInterface, _, _ int) error {
			_, err := c.Get(ctx, "bench", metav1.GetOptions{})
			return err
		}},
		{"create", func(c corev1client.ConfigMapInterface, _, _ int) error {
			_, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", seq.Add(1))},
				Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
			return err
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			ds := [2][]time.Duration{make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for k := range 2 {
					which := (i + k) % 2
					began := time.Now()
					if err := op.do(clients[which], b.N, i); err != nil {
						b.Fatal(err)
					}
					ds[which] = append(ds[which], time.Since(began))
				}
			}
			b.StopTimer()
			reportRatio(b, ds[0], ds[1])
		})
	}
}

func reportRatio(b *testing.B, off, on []time.Duration) {
	p50 := func(ds []time.Duration) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[len(ds)/2]) / float64(time.Microsecond)
	}
	if len(off) == 0 || len(on) == 0 {
		return
	}
	a, c := p50(off), p50(on)
	b.ReportMetric(a, "p50-off-µs")
	b.ReportMetric(c, "p50-on-µs")
	b.ReportMetric(c/a, "ratio-p50")
}

// concurrentClients sends clients × perClient requests (GETs, and every tenth a CREATE) at a
// recording server whose ring holds capacity traces, and checks: no request failed, and each
// one the clients made is either traced (and finished) or was pushed out of the ring and
// counted as dropped.
func concurrentClients(t testing.TB, clients, perClient, capacity int) (took time.Duration, dropped uint64) {
	store := tracing.NewStore(capacity)
	s := startServer(t, store, nil)
	ctx := context.Background()
	admin, _ := client(t, s, "admin")
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "load"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	all := make([]*auditIDs, clients)
	before := store.Seen()
	began := time.Now()
	for c := range clients {
		cs, ids := client(t, s, "alice")
		all[c] = ids
		wg.Add(1)
		go func() {
			defer wg.Done()
			cms := cs.CoreV1().ConfigMaps("default")
			for i := range perClient {
				var err error
				if i%10 == 0 {
					_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("load-%d-%d", c, i)}}, metav1.CreateOptions{})
				} else {
					_, err = cms.Get(ctx, "load", metav1.GetOptions{})
				}
				if err != nil {
					errs <- fmt.Errorf("client %d request %d: %w", c, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	took = time.Since(began)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	total, traced := 0, 0
	for _, ids := range all {
		for _, id := range ids.all() {
			total++
			if tr, ok := store.Get(id); ok {
				traced++
				if !tr.Done {
					// Its last records may still be on their way: wait for them.
					waitDone(t, store, id)
				}
			}
		}
	}
	if total != clients*perClient {
		t.Fatalf("%d Audit-Ids for %d requests", total, clients*perClient)
	}
	missing := uint64(total - traced)
	if missing > store.Dropped() {
		t.Errorf("%d requests neither traced nor counted: %d missing, %d dropped", missing-store.Dropped(), missing, store.Dropped())
	}
	if got := store.Seen() - before; got < uint64(total) {
		t.Errorf("the store saw %d new requests, the clients made %d", got, total)
	}
	if store.Len() > capacity {
		t.Errorf("ring holds %d > %d", store.Len(), capacity)
	}
	return took, store.Dropped()
}

// TestConcurrentClients is the load check at test size: 8 clients × 100 requests into a ring
// of 100, so most are dropped and counted.
func TestConcurrentClients(t *testing.T) { concurrentClients(t, 8, 100, 100) }

// BenchmarkConcurrentClients is the load check: 8 clients × 1,000 requests with
// recording on and the default ring.
func BenchmarkConcurrentClients(b *testing.B) {
	for i := 0; i < b.N; i++ {
		took, dropped := concurrentClients(b, 8, 1000, tracing.DefaultCapacity)
		b.ReportMetric(8000/took.Seconds(), "requests/s")
		b.ReportMetric(float64(dropped), "dropped")
	}
}
