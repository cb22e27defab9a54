package tracing_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// waitHeld waits until a request matching pred is held, and returns it.
func waitHeld(t testing.TB, store *tracing.Store, bp *tracing.Breakpoints, what string, pred func(tracing.Held) bool) tracing.Held {
	t.Helper()
	var found tracing.Held
	waitFor(t, store, bp, what, func() bool {
		for _, h := range bp.Held() {
			if pred(h) {
				found = h
				return true
			}
		}
		return false
	})
	return found
}

// blocked fails the test if the call has returned.
func blocked(t testing.TB, done <-chan error, what string) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("%s returned while held: %v", what, err)
	default:
	}
}

// result waits, up to waitBound, for a call's error.
func result(t testing.TB, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(waitBound):
		t.Fatalf("%s: still blocked after %s", what, waitBound)
		return nil
	}
}

func field(st tracing.Stage, label string) string {
	for _, f := range st.Fields {
		if f.Label == label {
			return f.Value
		}
	}
	return ""
}

func TestBreakpoints(t *testing.T) {
	store := tracing.NewStore(0)
	bp := tracing.NewBreakpoints(store)
	s := startServer(t, store, bp)
	ctx := context.Background()
	admin, _ := client(t, s, "admin")
	alice, _ := client(t, s, "alice")
	bob, bobIDs := client(t, s, "bob")
	if _, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	add := func(t *testing.T, spec string) {
		t.Helper()
		b, err := bp.Add(spec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = bp.Remove(b.ID) })
	}

	t.Run("held, others flow, step, continue", func(t *testing.T) {
		add(t, "authorization:user=alice,resource=configmaps")
		done := make(chan error, 1)
		go func() {
			_, err := alice.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{})
			done <- err
		}()
		h := waitHeld(t, store, bp, "alice's GET held at authorization", func(h tracing.Held) bool { return h.User == "alice" })
		if h.Stage != "authorization" || h.Verb != "get" || h.Resource != "configmaps" || h.Name != "held" ||
			h.Breakpoint != "authorization:user=alice,resource=configmaps" {
			t.Errorf("held = %+v", h)
		}
		tr, _ := store.Get(h.ID)
		if az := stage(t, tr, tracing.StageAuthorization); az.Outcome != tracing.OutcomeHeld {
			t.Errorf("lane while held: %+v", az)
		} else if zh := az.DetailIn(zhStrings); !strings.Contains(zh, "被断点 authorization:user=alice,resource=configmaps 挂起") {
			t.Errorf("held detail in zh-CN = %q", zh)
		}
		checkWorded(t, tr, map[string]bool{})
		blocked(t, done, "alice's GET")

		// Other clients are not blocked meanwhile.
		cctx, cancel := context.WithTimeout(ctx, waitBound)
		defer cancel()
		if _, err := bob.CoreV1().ConfigMaps("default").Get(cctx, "held", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
			t.Errorf("bob meanwhile: %v", err)
		}
		if _, err := admin.CoreV1().ConfigMaps("default").List(cctx, metav1.ListOptions{}); err != nil {
			t.Errorf("admin meanwhile: %v", err)
		}
		blocked(t, done, "alice's GET")

		// Step: on to the next breakpoint stage, storage, where it holds again.
		if err := bp.Step(h.ID); err != nil {
			t.Fatal(err)
		}
		h2 := waitHeld(t, store, bp, "stepped to storage", func(x tracing.Held) bool { return x.ID == h.ID && x.Stage == "storage" })
		if h2.Breakpoint != "" {
			t.Errorf("held at storage by %q, want by stepping", h2.Breakpoint)
		}
		blocked(t, done, "alice's GET")
		if err := bp.Continue(h.ID); err != nil {
			t.Fatal(err)
		}
		if err := result(t, done, "alice's GET"); err != nil {
			t.Fatalf("after continue: %v", err)
		}
		tr = waitDone(t, store, h.ID)
		checkLane(t, tr)
		if v := field(stage(t, tr, tracing.StageAuthorization), "breakpoint"); !strings.Contains(v, "then stepped on") {
			t.Errorf("authorization breakpoint field = %q", v)
		}
		if v := field(stage(t, tr, tracing.StageStorage), "breakpoint"); !strings.Contains(v, "held by stepping") || !strings.Contains(v, "continued") {
			t.Errorf("storage breakpoint field = %q", v)
		}
		if err := bp.Step(h.ID); !errors.Is(err, tracing.ErrNotHeld) {
			t.Errorf("step of a finished request: %v", err)
		}
	})

	abort := []struct {
		name, spec string
		call       func(ctx context.Context) error
		isErr      func(error) bool
		stage      string
	}{
		{"authorization", "authorization:user=alice", func(ctx context.Context) error {
			_, err := alice.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{})
			return err
		}, apierrors.IsForbidden, tracing.StageAuthorization},
		{"admission", "admission:user=alice,verb=create", func(ctx context.Context) error {
			_, err := alice.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "aborted"}}, metav1.CreateOptions{})
			return err
		}, apierrors.IsForbidden, tracing.StageMutatingAdmission},
		{"storage", "storage:user=alice,resource=configmaps", func(ctx context.Context) error {
			_, err := alice.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
			return err
		}, apierrors.IsForbidden, tracing.StageStorage},
		{"authentication", "authentication:user=alice", func(ctx context.Context) error {
			_, err := alice.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{})
			return err
		}, apierrors.IsUnauthorized, tracing.StageAuthentication},
	}
	for _, tc := range abort {
		t.Run("abort at "+tc.name, func(t *testing.T) {
			add(t, tc.spec)
			done := make(chan error, 1)
			go func() { done <- tc.call(ctx) }()
			h := waitHeld(t, store, bp, "held at "+tc.name, func(h tracing.Held) bool { return h.User == "alice" })
			if err := bp.Abort(h.ID); err != nil {
				t.Fatal(err)
			}
			err := result(t, done, "aborted request")
			if !tc.isErr(err) {
				t.Fatalf("err = %v", err)
			}
			// The library writes a fixed "Unauthorized" for a 401; elsewhere the client sees why.
			if tc.stage != tracing.StageAuthentication && !strings.Contains(err.Error(), "held at "+tc.name+" and failed by the learner in kubewalk") {
				t.Errorf("client sees %q", err)
			}
			tr := waitDone(t, store, h.ID)
			checkLane(t, tr)
			st := stage(t, tr, tc.stage)
			if st.Outcome != tracing.OutcomeAborted || !st.Stopped {
				t.Errorf("lane: %+v", st)
			}
		})
	}

	t.Run("secret held at admission shows the object redacted", func(t *testing.T) {
		add(t, "admission:resource=secrets")
		const value = "s3cr3t-value-held-at-admission"
		done := make(chan error, 1)
		go func() {
			_, err := admin.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "held"},
				StringData: map[string]string{"password": value}}, metav1.CreateOptions{})
			done <- err
		}()
		h := waitHeld(t, store, bp, "secret create held", func(h tracing.Held) bool { return h.Resource == "secrets" })
		if !strings.Contains(h.Object, `"password":"\u003credacted\u003e"`) || strings.Contains(h.Object, value) {
			t.Errorf("held object = %s", h.Object)
		}
		if err := bp.Continue(h.ID); err != nil {
			t.Fatal(err)
		}
		if err := result(t, done, "secret create"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("loopback held only when named", func(t *testing.T) {
		loop, loopIDs := client(t, s, "", func(cfg *rest.Config) { cfg.BearerToken = s.Secrets()[0] })
		add(t, "authorization:resource=configmaps,verb=get")
		if _, err := loop.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{}); err != nil {
			t.Fatalf("loopback GET under a breakpoint without user: %v", err)
		}
		if tr := waitDone(t, store, loopIDs.last(t)); tr.User != tracing.LoopbackUser || !tr.Loopback {
			t.Fatalf("not a loopback request: %+v", tr)
		}
		// The breakpoint is live: bob is held by it.
		done := make(chan error, 1)
		go func() {
			_, err := bob.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{})
			done <- err
		}()
		h := waitHeld(t, store, bp, "bob held", func(h tracing.Held) bool { return h.User == "bob" })
		if err := bp.Continue(h.ID); err != nil {
			t.Fatal(err)
		}
		if err := result(t, done, "bob's GET"); !apierrors.IsForbidden(err) {
			t.Fatalf("bob: %v", err)
		}
		if got := waitDone(t, store, bobIDs.last(t)); got.ID != h.ID {
			t.Errorf("held %s, bob's request was %s", h.ID, got.ID)
		}

		add(t, "authorization:user=system:apiserver,resource=configmaps,verb=get")
		go func() {
			_, err := loop.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{})
			done <- err
		}()
		h = waitHeld(t, store, bp, "loopback held when named", func(h tracing.Held) bool { return h.User == tracing.LoopbackUser })
		if err := bp.Continue(h.ID); err != nil {
			t.Fatal(err)
		}
		if err := result(t, done, "loopback GET"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("close releases", func(t *testing.T) {
		add(t, "authorization:user=alice")
		done := make(chan error, 1)
		go func() {
			_, err := alice.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{})
			done <- err
		}()
		h := waitHeld(t, store, bp, "held before close", func(h tracing.Held) bool { return h.User == "alice" })
		bp.Close()
		if err := result(t, done, "held request at Close"); err != nil {
			t.Fatalf("released request: %v", err)
		}
		if len(bp.Held()) != 0 {
			t.Errorf("still held: %+v", bp.Held())
		}
		tr := waitDone(t, store, h.ID)
		if v := field(stage(t, tr, tracing.StageAuthorization), "breakpoint"); !strings.Contains(v, "released") {
			t.Errorf("breakpoint field = %q", v)
		}
		// Closed: nothing holds any more.
		if _, err := alice.CoreV1().ConfigMaps("default").Get(ctx, "held", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	if got := bp.List(); len(got) != 0 {
		t.Errorf("breakpoints left: %+v", got)
	}
	// Every lane, the held, stepped, failed and released ones among them, in both languages.
	seen := checkStoreWorded(t, store)
	for _, k := range []string{"LaneHoldStepped", "LaneHoldContinued", "LaneHoldReleased", "LaneAbortedAt", "LaneFieldBreakpoint"} {
		if !seen[k] {
			t.Errorf("no lane used %s", k)
		}
	}
}

// TestHoldLimit: a request no one releases goes on by itself after the hold limit.
func TestHoldLimit(t *testing.T) {
	store := tracing.NewStore(0)
	bp := tracing.NewBreakpointsWithLimit(store, 200*time.Millisecond)
	s := startServer(t, store, bp)
	alice, ids := client(t, s, "alice")
	if _, err := bp.Add("storage:user=alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := alice.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	tr := waitDone(t, store, ids.last(t))
	if v := field(stage(t, tr, tracing.StageStorage), "breakpoint"); !strings.Contains(v, "let go after the hold limit") {
		t.Errorf("storage = %+v", stage(t, tr, tracing.StageStorage))
	}
	if b := bp.List(); len(b) != 1 || b[0].Hits != 1 {
		t.Errorf("breakpoints = %+v", b)
	}
	if zh := stage(t, tr, tracing.StageStorage); !strings.Contains(fieldIn(zh, "breakpoint"), "超过挂起时限后被放行") {
		t.Errorf("storage breakpoint field in zh-CN = %q", fieldIn(zh, "breakpoint"))
	}
	checkStoreWorded(t, store)
}

// fieldIn is the value of the stage's field labelled label (in English), in Chinese.
func fieldIn(st tracing.Stage, label string) string {
	for _, f := range st.Fields {
		if f.Label == label {
			return f.ValueIn(zhStrings)
		}
	}
	return ""
}

// TestCloseReleasesHeld: Server.Close lets a held request go rather than wait for it.
func TestCloseReleasesHeld(t *testing.T) {
	store := tracing.NewStore(0)
	bp := tracing.NewBreakpoints(store)
	s := startServer(t, store, bp)
	alice, _ := client(t, s, "alice")
	if _, err := bp.Add("authorization:user=alice"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := alice.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
		done <- err
	}()
	waitHeld(t, store, bp, "held", func(h tracing.Held) bool { return h.User == "alice" })
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	if err := result(t, closed, "Server.Close"); err != nil {
		t.Fatal(err)
	}
	// Released before the server stopped: it completes (ReleaseAll lets it run to the end).
	if err := result(t, done, "held request"); err != nil {
		t.Errorf("held request after Close: %v", err)
	}
	if slices.ContainsFunc(bp.Held(), func(h tracing.Held) bool { return h.User == "alice" }) {
		t.Error("still held after Close")
	}
}
