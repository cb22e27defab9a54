package exercises_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
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
	hinted := 0
	tr := exercises.NewTracker(exercises.Options{Server: srv,
		Exercises: []lessons.Exercise{choice("a", "authn", ""), choice("b", "authz", "serve")},
		OnDone:    func(id, why string) { done = append(done, id+": "+why) },
		OnHint:    func(string, int) { hinted++ }})
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
	// A hint asked for on a done exercise is neither shown nor counted.
	if st, err := tr.RevealHint("a"); err != nil || st.Hints != 0 || hinted != 0 {
		t.Errorf("hint on a done exercise: %d shown, OnHint called %d times, err %v; want 0, 0", st.Hints, hinted, err)
	}
	if st, _ := tr.RevealHint("b"); st.Hints != 1 || hinted != 1 {
		t.Errorf("hint on an open exercise: %d shown, OnHint called %d times; want 1, 1", st.Hints, hinted)
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

// runTracker runs tr until the test ends.
func runTracker(t *testing.T, tr *exercises.Tracker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tr.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// hiddenClient returns a clientset of admin that sends kubewalk's own User-Agent agent: the
// tracker never takes its requests for the learner's.
func hiddenClient(t testing.TB, s *server.Server, agent string) kubernetes.Interface {
	t.Helper()
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	cfg.UserAgent = agent
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTrackerStateFollowsEtcd: an object check ticks when its object appears, whoever wrote
// it: here a request the tracker ignores as kubewalk's own, so nothing but the etcd watch on
// the object's key can tell it.
func TestTrackerStateFollowsEtcd(t *testing.T) {
	s, store := liveServer(t)
	ex := lessons.Exercise{ID: "late-object", Lesson: "storage", Phase: "storage", Needs: "serve", Why: "found: {detail}",
		Check: lessons.ExerciseCheck{Kind: lessons.CheckObject, APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: "follows-etcd",
			Fields: map[string]string{`{.metadata.annotations.kubewalk\.io/created-by}`: "kubewalk-admin", "{.data.k}": "v"}}}
	tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{ex}, Server: s, Store: store})
	tr.Refresh(t.Context()) // opens it: nothing there yet
	if st, _ := tr.Get(ex.ID); st.State != exercises.Open {
		t.Fatalf("state %s before the object exists, want open", st.State)
	}
	runTracker(t, tr)
	c := hiddenClient(t, s, exercises.UserAgent)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "follows-etcd"}, Data: map[string]string{"k": "v"}}
	if _, err := c.CoreV1().ConfigMaps("default").Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.CoreV1().ConfigMaps("default").Delete(context.Background(), "follows-etcd", metav1.DeleteOptions{})
	})
	st := waitDone(t, tr, ex.ID)
	if want := "found: ConfigMap default/follows-etcd has data.k = v, annotation kubewalk.io/created-by = kubewalk-admin"; st.Why != want {
		t.Errorf("why %q, want %q", st.Why, want)
	}
}

// TestTrackerTicksPromptly: while Run runs, each kind of live check ticks after the learner's
// requests with no evaluation forced: a trace check on the request's lane, an object check on
// etcd's change, an access check on the RBAC informers' change (a SubjectAccessReview sent
// before the informer cache holds the binding would still say no), an etcd-key check on the
// key.
func TestTrackerTicksPromptly(t *testing.T) {
	s, store := liveServer(t)
	admin, alice, bob := clientAs(t, s, "admin"), clientAs(t, s, "alice"), clientAs(t, s, "bob")
	ctx := t.Context()
	// Names of their own, so the test runs again (-count) against the shared server.
	n := fmt.Sprint(runs.Add(1))
	note, roleName, user, nsName := "prompt-note-"+n, "prompt-cm-"+n, "dora-"+n, "prompt-lab-"+n
	tests := []struct {
		name  string
		check lessons.ExerciseCheck
		do    func(t *testing.T)
		why   string
	}{
		{"trace", lessons.ExerciseCheck{Kind: lessons.CheckTrace, User: "bob", Verb: "list", Resource: "secrets", Namespace: "kube-system", Code: 403},
			func(t *testing.T) {
				if _, err := bob.CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
					t.Fatalf("bob lists secrets: %v, want 403", err)
				}
			}, "bob LIST /api/v1/namespaces/kube-system/secrets → 403"},
		{"object", lessons.ExerciseCheck{Kind: lessons.CheckObject, APIVersion: "v1", Resource: "configmaps", Namespace: "default", Name: note,
			Fields: map[string]string{`{.metadata.annotations.kubewalk\.io/created-by}`: "alice"}},
			func(t *testing.T) {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: note}}
				if _, err := alice.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}, "ConfigMap default/" + note + " has annotation kubewalk.io/created-by = alice"},
		{"access", lessons.ExerciseCheck{Kind: lessons.CheckAccess, Asks: []lessons.AccessAsk{
			{User: user, Verb: "get", Resource: "configmaps", Namespace: "default", Allowed: true},
			{User: user, Verb: "get", Resource: "configmaps", Namespace: "kube-system", Allowed: false}}},
			func(t *testing.T) {
				role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: roleName},
					Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}}
				if _, err := admin.RbacV1().Roles("default").Create(ctx, role, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: roleName},
					RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roleName},
					Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
				if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}, fmt.Sprintf(`RBAC: allowed by RoleBinding "%s/default" of Role "%s" to User "%s"`, roleName, roleName, user)},
		{"etcd-key", lessons.ExerciseCheck{Kind: lessons.CheckEtcdKey, Key: "namespaces/" + nsName},
			func(t *testing.T) {
				ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName}}
				if _, err := admin.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}, "/registry/namespaces/" + nsName + " (mod revision "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ex := lessons.Exercise{ID: "prompt-" + tt.name, Lesson: "serve", Phase: "serve", Needs: "serve", Check: tt.check}
			tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{ex}, Server: s, Store: store})
			runTracker(t, tr)
			// Opened, evaluated once, and parked: nothing passed before the learner acted.
			waitParked(t, tr)
			if st, _ := tr.Get(ex.ID); st.State != exercises.Open {
				t.Fatalf("state %s before the learner acted, want open", st.State)
			}
			tt.do(t)
			st := waitDone(t, tr, ex.ID)
			if !strings.HasPrefix(st.Why, tt.why) {
				t.Errorf("why %q, want it to start with %q", st.Why, tt.why)
			}
		})
	}
}

// runs numbers the runs of a test that names objects on the shared server.
var runs atomic.Int32

// waitParked waits (bounded) until tr's Run waits for a change with nothing left to do.
func waitParked(t *testing.T, tr *exercises.Tracker) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !tr.Parked() {
		if time.Now().After(deadline) {
			t.Fatal("the tracker never parked: it keeps working with nothing to do")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// countAgent counts the requests the store holds from User-Agent agent.
func countAgent(store *tracing.Store, agent string) int {
	n := 0
	for _, tr := range store.List(tracing.Filter{Loopback: true}) {
		if tr.UserAgent == agent {
			n++
		}
	}
	return n
}

// TestTrackerIdleAfterWatch: with every exercise open (their checks aimed at what never
// exists, so all stay open) and a learner's watch still open after another one ran, the
// tracker parks and sends nothing more: the requests counted at the server from the checks'
// User-Agent do not grow while kubewalk's own traffic (health polls, the server's loopback)
// passes, and no pass runs. The old tracker took an open watch for fresh activity on every
// pass and asked the server 8–19 times a second for ever.
func TestTrackerIdleAfterWatch(t *testing.T) {
	s, store := freshServer(t)
	exs := neverPassingExercises(t)
	tr := exercises.NewTracker(exercises.Options{Exercises: exs, Server: s, Store: store})
	runTracker(t, tr)
	admin := clientAs(t, s, "admin")
	ctx := t.Context()
	// A watch that ran and ended, and one the learner leaves open.
	timeout := int64(1)
	w, err := admin.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{TimeoutSeconds: &timeout})
	if err != nil {
		t.Fatal(err)
	}
	for range w.ResultChan() {
	}
	open, err := admin.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer open.Stop()
	// Both lanes settled (the ended watch finished, the open one answering), so no news of
	// the learner's is on its way to the tracker.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ended, answering := 0, 0
		for _, tr := range store.List(tracing.Filter{}) {
			switch {
			case tr.Verb == "watch" && tr.Done:
				ended++
			case tr.Verb == "watch" && tr.Code == 200:
				answering++
			}
		}
		if ended == 1 && answering == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("watches: %d ended, %d answering; want 1 and 1", ended, answering)
		}
		time.Sleep(5 * time.Millisecond)
	}
	waitParked(t, tr)
	passes, sent := tr.Passes(), countAgent(store, exercises.UserAgent)
	if sent == 0 {
		t.Fatal("the checks sent no request at all: the exercises were never evaluated")
	}
	// kubewalk's own traffic passes: 200 health polls. None may wake the tracker.
	poller := hiddenClient(t, s, "kubewalk-self-check")
	for range 200 {
		if _, err := poller.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx); err != nil {
			t.Fatal(err)
		}
	}
	waitStore(t, store, func(tr tracing.Trace) bool { return tr.UserAgent == "kubewalk-self-check" && tr.Done })
	if !tr.Parked() || tr.Passes() != passes {
		t.Errorf("kubewalk's own traffic woke the tracker: %d passes, parked %v", tr.Passes()-passes, tr.Parked())
	}
	if got := countAgent(store, exercises.UserAgent); got != sent {
		t.Errorf("the idle tracker sent %d requests", got-sent)
	}
}

// waitStore waits (bounded) until the store holds a trace that ok accepts.
func waitStore(t *testing.T, store *tracing.Store, ok func(tracing.Trace) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, tr := range store.List(tracing.Filter{Loopback: true}) {
			if ok(tr) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the store never held the trace waited for")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// neverPassingExercises returns the English exercises with every state check aimed at
// something that does not exist, so that all stay open.
func neverPassingExercises(t testing.TB) []lessons.Exercise {
	exs := englishExercises(t)
	for i := range exs {
		c := &exs[i].Check
		switch c.Kind {
		case lessons.CheckObject:
			c.Name += "-never"
		case lessons.CheckEtcdKey:
			c.Key += "-never"
		case lessons.CheckAccess:
			c.Asks = append(c.Asks, lessons.AccessAsk{User: "nobody", Verb: "delete", Resource: "namespaces", Allowed: true})
		}
	}
	return exs
}
