package server_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
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

// BenchmarkServedMemory reports what one served server holds once it is ready: the Go heap's
// live bytes after a GC, the memory the Go runtime keeps mapped (heap, stacks, metadata, minus
// what it returned to the system) and the process's anonymous PSS (Linux). Run it with
// -benchtime=1x -count=N; the figures are for this test binary, whose code differs from
// kubewalk's, so its file-backed pages are left out.
func BenchmarkServedMemory(b *testing.B) {
	var live, mapped, anon float64
	for i := 0; i < b.N; i++ {
		s := startServer(b)
		// Let the post-start hooks and informers settle (bounded) before measuring.
		waitQuiet(b, s)
		runtime.GC()
		live, mapped = goMemoryMB()
		anon = anonPSSMB(b)
		writeHeapProfile(b)
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(live, "heap-live-MB")
	b.ReportMetric(mapped, "go-mapped-MB")
	b.ReportMetric(anon, "anon-PSS-MB")
}

// waitQuiet waits until the server answers /readyz and has run for a second, so that the
// bootstrap writes of its post-start hooks are done.
func waitQuiet(b *testing.B, s *server.Server) {
	b.Helper()
	c := clientFor(b, s, "admin")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		body, err := c.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && string(body) == "ok" {
			break
		}
		select {
		case <-ctx.Done():
			b.Fatalf("readyz: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	time.Sleep(time.Second) // settle time for a measurement, not a wait for a condition
}

// writeHeapProfile writes the live server's heap profile to $KW_BENCH_HEAP_PROFILE, if set
// (go test's -memprofile is written after the server has closed).
func writeHeapProfile(b *testing.B) {
	path := os.Getenv("KW_BENCH_HEAP_PROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}

// goMemoryMB returns the Go heap's live bytes (as of the last GC) and the memory the runtime
// holds from the system, in MB.
func goMemoryMB() (live, mapped float64) {
	samples := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(samples)
	mb := func(i int) float64 { return float64(samples[i].Value.Uint64()) / (1 << 20) }
	return mb(0), mb(1) - mb(2)
}

// anonPSSMB returns the process's Pss_Anon from /proc/self/smaps_rollup in MB.
func anonPSSMB(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		b.Skip("no /proc/self/smaps_rollup")
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "Pss_Anon:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	b.Fatal("Pss_Anon not found")
	return 0
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
