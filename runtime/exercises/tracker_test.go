package exercises_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// fakeServer is a walkthrough at a phase of our choosing, with no server behind it.
type fakeServer struct {
	mu      sync.Mutex
	current server.Checkpoint
	next    server.Phase
}

func (f *fakeServer) set(cp server.Checkpoint, next server.Phase) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.current, f.next = cp, next
}
func (f *fakeServer) Current() server.Checkpoint {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.current
}
func (f *fakeServer) NextPhase() server.Phase {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.next
}
func (f *fakeServer) RESTConfig(string) (*rest.Config, error) { return nil, errors.New("no server") }
func (f *fakeServer) Etcd() (*server.EtcdAccess, error)       { return nil, errors.New("no server") }

func choice(id, phase, needs string) lessons.Exercise {
	return lessons.Exercise{ID: id, Lesson: phase, Phase: phase, Needs: needs, Title: id, Goal: "g",
		Choices: []string{"a", "b"}, Hints: []string{"1", "2", "3"}, Why: "because {detail}",
		Check: lessons.ExerciseCheck{Kind: lessons.CheckChoice, Correct: 2}}
}

// TestTrackerStates: an exercise is locked until the walkthrough reaches its phase, waits
// for serve when it needs the server, and opens; a right answer makes it done, with why, and
// a wrong one says what is wrong.
func TestTrackerStates(t *testing.T) {
	srv := &fakeServer{next: server.PhaseConfig}
	var done []string
	tr := exercises.NewTracker(exercises.Options{Server: srv,
		Exercises: []lessons.Exercise{choice("a", "authn", ""), choice("b", "authz", "serve")},
		OnDone:    func(id, why string) { done = append(done, id+": "+why) }})
	ctx := context.Background()
	state := func(id string) exercises.State { st, _ := tr.Get(id); return st.State }

	tr.Refresh(ctx)
	if state("a") != exercises.Locked || state("b") != exercises.Locked {
		t.Fatalf("before any checkpoint: %s, %s; want locked", state("a"), state("b"))
	}
	if _, err := tr.Answer(ctx, "a", "2"); err == nil {
		t.Error("a locked exercise took an answer")
	}
	srv.set(server.Checkpoint{Phase: server.PhaseAuthz, Name: "rbac"}, server.PhaseAuthz)
	tr.Refresh(ctx)
	if state("a") != exercises.Open || state("b") != exercises.NeedsServe {
		t.Fatalf("at authz: %s, %s; want open, needs serve", state("a"), state("b"))
	}
	select {
	case <-tr.Changed():
	default:
		t.Error("opening exercises did not signal Changed")
	}
	if _, err := tr.Answer(ctx, "b", "2"); err == nil {
		t.Error("an exercise waiting for serve took an answer")
	}
	st, err := tr.Answer(ctx, "a", "1")
	if err != nil || st.State != exercises.Open || st.LastTry != "option 1 is not right" {
		t.Errorf("wrong answer: %+v, %v", st, err)
	}
	if st, _ := tr.Answer(ctx, "a", "7"); st.LastTry != "pick an option from 1 to 2" {
		t.Errorf("out of range: %q", st.LastTry)
	}
	st, err = tr.Answer(ctx, "a", " 2 ")
	if err != nil || st.State != exercises.Done || st.Why != "because b" || st.LastTry != "" {
		t.Errorf("right answer: %+v, %v", st, err)
	}
	srv.set(server.Checkpoint{Phase: server.PhaseServe, Name: "kubeconfig"}, "")
	tr.Refresh(ctx)
	if state("a") != exercises.Done || state("b") != exercises.Open {
		t.Errorf("serving: %s, %s; want done, open", state("a"), state("b"))
	}
	if len(done) != 1 || done[0] != "a: because b" {
		t.Errorf("OnDone calls: %q", done)
	}
}

// clientAs returns a clientset for a kubeconfig context of s.
func clientAs(t testing.TB, s *server.Server, ctxName string) kubernetes.Interface {
	t.Helper()
	cfg, err := s.RESTConfig(ctxName)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitDone waits (bounded) for exercise id to be done, on the tracker's Changed.
func waitDone(t *testing.T, tr *exercises.Tracker, id string) exercises.Status {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		if st, _ := tr.Get(id); st.State == exercises.Done {
			return st
		}
		select {
		case <-tr.Changed():
		case <-timeout:
			t.Fatalf("exercise %s not done after 30s", id)
		}
	}
}

// TestTrackerTraceSinceOpened: against the real server, a request made before the exercise
// opened does not count; one made after ticks it while Run runs, and it stays done.
func TestTrackerTraceSinceOpened(t *testing.T) {
	s, store := liveServer(t)
	bob := clientAs(t, s, "bob")
	ns := "kube-public"
	forbidden := func() {
		_, err := bob.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{})
		if !apierrors.IsForbidden(err) {
			t.Fatalf("bob lists secrets: %v, want 403", err)
		}
	}
	forbidden() // before the exercise opens
	ex := lessons.Exercise{ID: "bob-secrets", Lesson: "authz", Phase: "authz", Needs: "serve", Why: "refused: {detail}",
		Check: lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Resource: "secrets", Namespace: ns, Code: 403, Stage: "authorization", Outcome: "denied"}}
	// The earlier request must have finished in the store before the exercise opens.
	deadline := time.Now().Add(10 * time.Second)
	for !storeHasDone(store, "bob", "secrets") {
		if time.Now().After(deadline) {
			t.Fatal("bob's request never finished in the trace store")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var calls atomic.Int32
	tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{ex}, Server: s, Store: store,
		OnDone: func(string, string) { calls.Add(1) }})
	tr.Refresh(t.Context())
	if st, _ := tr.Get(ex.ID); st.State != exercises.Open {
		t.Fatalf("a request from before the exercise opened counted: %s", st.State)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	runDone := make(chan struct{})
	go func() { defer close(runDone); tr.Run(ctx) }()
	forbidden()
	st := waitDone(t, tr, ex.ID)
	if want := "refused: 403 Forbidden: privileged-groups: no opinion, rbac: no opinion"; st.Why != want {
		t.Errorf("why %q, want %q", st.Why, want)
	}
	forbidden()
	tr.Refresh(t.Context())
	if st, _ := tr.Get(ex.ID); st.State != exercises.Done || calls.Load() != 1 {
		t.Errorf("after more requests: %s, OnDone called %d times; want done, once", st.State, calls.Load())
	}
	cancel()
	<-runDone
}

// storeHasDone reports whether the store holds a finished request of user on resource.
func storeHasDone(store *tracing.Store, user, resource string) bool {
	for _, tr := range store.List(tracing.Filter{}) {
		if tr.User == user && tr.Resource == resource && tr.Done {
			return true
		}
	}
	return false
}

// TestTrackerStateSettles: the state checks keep being evaluated for a while after the
// learner's last request, so a check whose first pass ran before the server caught up (here:
// the object appears through a request the tracker ignores as its own) still passes without
// another request from the learner.
func TestTrackerStateSettles(t *testing.T) {
	s, store := liveServer(t)
	ex := lessons.Exercise{ID: "late-object", Lesson: "storage", Phase: "storage", Needs: "serve", Why: "found: {detail}",
		Check: lessons.ExerciseCheck{Kind: lessons.CheckObject, APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: "settle-late"}}
	tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{ex}, Server: s, Store: store, StateEvery: time.Millisecond, StateSettle: time.Hour})
	tr.Refresh(t.Context()) // opens it: the first state pass finds nothing
	if st, _ := tr.Get(ex.ID); st.State != exercises.Open {
		t.Fatalf("state %s before the object exists, want open", st.State)
	}
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = exercises.UserAgent // a request the tracker does not count as the learner's
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settle-late"}}
	if _, err := c.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.CoreV1().ConfigMaps("default").Delete(context.Background(), "settle-late", metav1.DeleteOptions{})
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		tr.Refresh(t.Context())
		if st, _ := tr.Get(ex.ID); st.State == exercises.Done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the object check never ran again after its first pass found nothing")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
