package server_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
