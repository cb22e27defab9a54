package exercises_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// BenchmarkIdleTour measures what an idle served tour costs: every English exercise open
// (their state checks aimed at what never exists, so all stay open and keep being checked),
// a learner's watch that ran and one left open, the tracker running, and then nothing. Each
// op is one second of that idleness. It reports the requests the server received per minute
// (req/min: all of them, the server's own loopback included; check-req/min: the exercise
// checks'), and the CPU the whole process spent (cpu-%: user + system time over wall time,
// server and etcd included; 100 is one core). tracker=off is the same server with no tracker:
// the floor an idle server costs by itself.
//
//	go test ./runtime/exercises -run '^$' -bench IdleTour -benchtime 30x
func BenchmarkIdleTour(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "tracker=off"
		if on {
			name = "tracker=on"
		}
		b.Run(name, func(b *testing.B) { idleTour(b, on) })
	}
}

func idleTour(b *testing.B, tracker bool) {
	s, store := liveServer(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if tracker {
		tr := exercises.NewTracker(exercises.Options{Exercises: neverPassing(b), Server: s, Store: store})
		done := make(chan struct{})
		go func() { defer close(done); tr.Run(ctx) }()
		defer func() { cancel(); <-done }()
	}
	admin := clientAs(b, s, "admin")
	timeout := int64(1)
	w, err := admin.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{TimeoutSeconds: &timeout})
	if err != nil {
		b.Fatal(err)
	}
	for range w.ResultChan() {
	}
	open, err := admin.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer open.Stop()
	// Warm-up: the exercises open and are checked once; the checks the last requests made
	// due have run (the old tracker kept them running for 5 s after any activity).
	time.Sleep(6 * time.Second)

	seen := store.Seen()
	cpu := cpuTime(b)
	start := time.Now()
	for b.Loop() {
		time.Sleep(time.Second)
	}
	elapsed := time.Since(start)
	cpu = cpuTime(b) - cpu
	requests := store.Seen() - seen
	checks := 0
	for _, t := range store.List(tracing.Filter{Loopback: true}) {
		if t.Seq > seen && t.UserAgent == exercises.UserAgent {
			checks++
		}
	}
	b.ReportMetric(float64(requests)/elapsed.Minutes(), "req/min")
	b.ReportMetric(float64(checks)/elapsed.Minutes(), "check-req/min")
	b.ReportMetric(100*cpu.Seconds()/elapsed.Seconds(), "cpu-%")
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
