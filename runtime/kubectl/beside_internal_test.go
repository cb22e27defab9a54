package kubectl

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"testing"
)

// TestIsWatch: a request is a watch when the server would take it for one.
func TestIsWatch(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want bool
	}{
		{"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=5", true},
		{"/api/v1/namespaces/default/configmaps?watch=1", true},
		{"/api/v1/namespaces/default/configmaps?watch=TRUE", true},
		{"/api/v1/namespaces/default/configmaps?watch", true}, // an empty value converts to true
		{"/api/v1/namespaces/default/configmaps?watch=false", false},
		{"/api/v1/namespaces/default/configmaps?watch=0", false},
		{"/api/v1/namespaces/default/configmaps?limit=500", false},
		{"/api/v1/watch/namespaces/default/configmaps", true},
		{"/apis/apps/v1/watch/deployments", true},
		{"/apis/apps/v1/namespaces/watch/deployments", false}, // a namespace named watch
		{"/api/v1/namespaces/watch", false},
		{"/version", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := isWatch(u); got != tc.want {
			t.Errorf("isWatch(%s) = %v, want %v", tc.url, got, tc.want)
		}
	}
}

// TestYieldGivesTheSlotBack: a run gives runSlot back once, at yield or at release, whichever
// comes first; yield puts os.Stdin back; a run with os.Stderr captured (logs) keeps the slot
// to its end.
func TestYieldGivesTheSlotBack(t *testing.T) {
	free := func() bool {
		select {
		case runSlot <- struct{}{}:
			<-runSlot
			return true
		default:
			return false
		}
	}
	newRun := func() *runState {
		runSlot <- struct{}{}
		return &runState{ctx: context.Background(), out: &bytes.Buffer{}, rec: &recorder{ctx: context.Background()}}
	}

	st := newRun()
	stdin := os.Stdin
	if err := st.feedStdin("kind: ConfigMap\n"); err != nil {
		t.Fatal(err)
	}
	st.yield()
	if !free() || os.Stdin != stdin {
		t.Fatalf("after yield: slot free %v, os.Stdin put back %v", free(), os.Stdin == stdin)
	}
	st.release() // the command ends: nothing more to give back
	st.restoreStdin()
	if !free() || os.Stdin != stdin {
		t.Fatal("release after yield took or gave the slot twice, or moved os.Stdin")
	}

	st = newRun()
	if err := st.captureStderr(); err != nil {
		t.Fatal(err)
	}
	st.yield()
	if free() {
		t.Fatal("a run with os.Stderr captured gave the slot back before its end")
	}
	st.restoreStderr()
	st.release()
	if !free() {
		t.Fatal("release did not give the slot back")
	}
}

// TestFatalRoutedToItsRun: kubectl's fatal-error handler ends the command of the goroutine
// that calls it, with that command's code, while others run; a goroutine of no command's goes
// to the newest running one.
func TestFatalRoutedToItsRun(t *testing.T) {
	newState := func() *runState {
		return &runState{ctx: context.Background(), out: &bytes.Buffer{}, rec: &recorder{ctx: context.Background()}}
	}
	watch, beside, newest := newState(), newState(), newState()
	registered := make(chan struct{})
	fail := make(chan struct{})
	ended := make(chan string, 3)
	start := func(st *runState, name string, code int) {
		go func() {
			defer func() { ended <- name }()
			defer routeFatal(st)()
			registered <- struct{}{}
			<-fail
			fatalRoute(name+" failed", code)
			t.Errorf("%s: fatalRoute returned", name)
		}()
		<-registered
	}
	start(watch, "watch", 3)
	start(beside, "beside", 1)
	// The newest run does not fail itself; a goroutine kubectl started on its own does.
	strayDone := make(chan struct{})
	go func() {
		defer func() { ended <- "newest" }()
		defer routeFatal(newest)()
		registered <- struct{}{}
		<-strayDone
	}()
	<-registered
	go func() {
		defer close(strayDone)
		fatalRoute("stray failed", 4)
	}()
	<-strayDone
	close(fail)
	for range 3 {
		<-ended
	}
	for _, c := range []struct {
		st   *runState
		code int
		out  string
	}{{watch, 3, "watch failed\n"}, {beside, 1, "beside failed\n"}, {newest, 4, "stray failed\n"}} {
		res := c.st.result(Result{})
		if got := c.st.out.(*bytes.Buffer).String(); res.ExitCode != c.code || got != c.out {
			t.Errorf("run %q: code %d, output %q", c.out, res.ExitCode, got)
		}
	}
	fatalRoutes.mu.Lock()
	defer fatalRoutes.mu.Unlock()
	if len(fatalRoutes.byG) != 0 || len(fatalRoutes.live) != 0 {
		t.Errorf("routes left registered: %v, %v", fatalRoutes.byG, fatalRoutes.live)
	}
}
