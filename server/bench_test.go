package server_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/kubewalk/kubewalk/server"
	"github.com/kubewalk/kubewalk/server/observe"
)

// BenchmarkStartToReady measures New + all seven phases until /readyz answers ok (embedded
// etcd in a fresh temp dir); Close is outside the timer.
func BenchmarkStartToReady(b *testing.B) {
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		s := newServer(b)
		began := time.Now()
		if err := s.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(began))
		b.StopTimer()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	reportPercentiles(b, ds, "ms", time.Millisecond)
}

// BenchmarkGet measures a configmap GET through client-go (watch cache on).
func BenchmarkGet(b *testing.B) {
	s := startServer(b)
	c := clientFor(b, s, "admin").CoreV1().ConfigMaps("default")
	ctx := context.Background()
	if _, err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bench"}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		began := time.Now()
		if _, err := c.Get(ctx, "bench", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(began))
	}
	reportPercentiles(b, ds, "µs", time.Microsecond)
}

// BenchmarkCreate measures a configmap CREATE through client-go: authn, authz, admission,
// validation and an etcd write.
func BenchmarkCreate(b *testing.B) {
	s := startServer(b)
	c := clientFor(b, s, "admin").CoreV1().ConfigMaps("default")
	ctx := context.Background()
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)}, Data: map[string]string{"k": "v"}}
		began := time.Now()
		if _, err := c.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(began))
	}
	reportPercentiles(b, ds, "µs", time.Microsecond)
}

// BenchmarkRSSAfterStart reports the process's resident set after a server started (Linux).
func BenchmarkRSSAfterStart(b *testing.B) {
	var rss float64
	for i := 0; i < b.N; i++ {
		s := startServer(b)
		rss = vmRSSMB(b)
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(rss, "RSS-MB")
}

func vmRSSMB(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	b.Fatal("VmRSS not found")
	return 0
}

// reportPercentiles adds p50 and p99 metrics in unit.
func reportPercentiles(b *testing.B, ds []time.Duration, unit string, per time.Duration) {
	if len(ds) == 0 {
		return
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	p := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))]) / float64(per) }
	b.ReportMetric(p(0.5), "p50-"+unit)
	b.ReportMetric(p(0.99), "p99-"+unit)
}

// countingRecorder is the cheapest Recorder: it counts records and keeps none. With it, a
// benchmark measures what recording costs the server itself — the library's audit and spans,
// and kubewalk's decorators — without runtime/tracing's store (whose full cost
// runtime/tracing's BenchmarkRecording measures).
type countingRecorder struct{ n atomic.Int64 }

func (c *countingRecorder) Record(observe.Record) { c.n.Add(1) }

// BenchmarkRecordingCost compares a configmap GET and CREATE through client-go on two servers
// run side by side, one without a Recorder and one with countingRecorder, alternating which
// goes first, and reports each p50 and their ratio (on/off).
func BenchmarkRecordingCost(b *testing.B) {
	rec := &countingRecorder{}
	off := startServer(b)
	on := startServer(b, func(o *server.Options) { o.Recorder = rec })
	ctx := context.Background()
	clients := []corev1client.ConfigMapInterface{
		clientFor(b, off, "admin").CoreV1().ConfigMaps("default"),
		clientFor(b, on, "admin").CoreV1().ConfigMaps("default"),
	}
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
					which := (i + k) % 2 // alternate which server goes first
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
	if rec.n.Load() == 0 {
		b.Fatal("the recording server recorded nothing")
	}
}

// reportRatio reports the p50 of off and on in µs and their ratio.
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
