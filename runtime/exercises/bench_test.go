package exercises_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
)

// neverPassing returns the English exercises with every state check aimed at something that
// does not exist, so that all of them stay open and are evaluated for the whole run: the
// worst case. The trace checks are kept; the benchmark's requests match none of them.
func neverPassing(b *testing.B) []lessons.Exercise { return neverPassingExercises(b) }

// BenchmarkRequestWithTracker measures what following every exercise costs per request: the
// learner's requests (admin GETs of a configmap, one at a time) with the tracker off and on.
// ns/op is the request's own latency, which the tracker must not raise (it runs off the request
// path); check-ns/req is the tracker's time (matching traces, asking the server for the state
// checks) divided by the requests.
func BenchmarkRequestWithTracker(b *testing.B) {
	s, store := liveServer(b)
	admin := clientAs(b, s, "admin")
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "bench-tracker", Namespace: "default"}}
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		b.Fatal(err)
	}
	get := func(b *testing.B) {
		if _, err := admin.CoreV1().ConfigMaps("default").Get(ctx, "bench-tracker", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("tracker=off", func(b *testing.B) {
		for b.Loop() {
			get(b)
		}
	})
	b.Run("tracker=on", func(b *testing.B) {
		exs := neverPassing(b)
		tr := exercises.NewTracker(exercises.Options{Exercises: exs, Server: s, Store: store})
		tr.Refresh(ctx) // open them all
		before := tr.Spent()
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); tr.Run(runCtx) }()
		n := 0
		for b.Loop() {
			get(b)
			n++
		}
		b.StopTimer()
		tr.Refresh(ctx) // the last requests too
		cancel()
		<-done
		for _, st := range tr.List() {
			if st.State == exercises.Done {
				b.Fatalf("exercise %s passed during the benchmark", st.Exercise.ID)
			}
		}
		b.ReportMetric(float64(tr.Spent()-before)/float64(n), "check-ns/req")
	})
}
