package exercises_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// TestAuthnExercisesNearMisses: the two authentication exercises a class ssh student must be
// able to do without --token or curl tick only for the request their text asks for, sent
// with the real kubectl and the run's kubeconfig: a bad token through the badtoken context
// (admin's certificate with a wrong --token is still admin: 200, no tick), no credentials
// through the anonymous context (admin impersonating system:anonymous is not that, nor is a bad
// token on /version: 401). The anonymous context on a path only users may read is a 401, but
// kubectl then asks /version itself, with no credentials, to word its error: that request is
// the exercise done, honestly.
func TestAuthnExercisesNearMisses(t *testing.T) {
	kubectlPath := requireKubectl(t)
	s, store := freshServer(t)
	r := solutionRunner{kubectl: kubectlPath, kubeconfig: s.Kubeconfig(), server: s.Address(), home: t.TempDir()}
	byID := map[string]lessons.Exercise{}
	for _, e := range englishExercises(t) {
		byID[e.ID] = e
	}
	for _, tc := range []struct {
		exercise string
		misses   []lessons.SolutionStep
		hit      lessons.SolutionStep
	}{
		{"authn-bad-token",
			[]lessons.SolutionStep{
				{Kubectl: "--context admin --token not-a-real-token get --raw /version"},
				{Kubectl: "--context anonymous get --raw /api", Fails: true}, // 401, but no token
			},
			lessons.SolutionStep{Kubectl: "--context badtoken get --raw /version", Fails: true}},
		{"authn-anonymous",
			[]lessons.SolutionStep{
				{Kubectl: "--context admin --as system:anonymous get --raw /version"},
				{Kubectl: "--context badtoken get --raw /version", Fails: true},
			},
			lessons.SolutionStep{Kubectl: "--context anonymous get --raw /version"}},
	} {
		t.Run(tc.exercise, func(t *testing.T) {
			e, ok := byID[tc.exercise]
			if !ok {
				t.Fatalf("no exercise %s", tc.exercise)
			}
			ctx := t.Context()
			tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{e}, Server: s, Store: store})
			tr.Refresh(ctx)
			for _, miss := range tc.misses {
				r.run(t, ctx, miss)
			}
			// The near misses are recorded (their traces done) and the exercise stays open.
			waitTraces(t, store, len(tc.misses))
			tr.Refresh(ctx)
			if st, _ := tr.Get(e.ID); st.State == exercises.Done {
				t.Fatalf("ticked by a near miss: %s", st.Why)
			}
			r.run(t, ctx, tc.hit)
			deadline := time.Now().Add(30 * time.Second)
			for {
				tr.Refresh(ctx)
				st, _ := tr.Get(e.ID)
				if st.State == exercises.Done {
					t.Logf("%s: %s", e.ID, st.Why)
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("kubectl %s did not tick it within 30s: %s", tc.hit.Kubectl, st.State)
				}
				time.Sleep(50 * time.Millisecond) // polling the tracker, within the deadline above
			}
		})
	}
}

// waitTraces waits, bounded, until the store holds at least n finished requests from kubectl
// and none of kubectl's is still running.
func waitTraces(t *testing.T, store *tracing.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		done, running := 0, 0
		for _, tr := range store.List(tracing.Filter{}) {
			if !strings.HasPrefix(tr.UserAgent, "kubectl") {
				continue
			}
			if tr.Done {
				done++
			} else {
				running++
			}
		}
		if done >= n && running == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d kubectl requests done, %d running after 30s; want %d done", done, running, n)
		}
		time.Sleep(20 * time.Millisecond) // polling the store, within the deadline above
	}
}
