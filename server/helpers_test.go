package server_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/server"
)

// startServer runs a real server (embedded etcd in a temp dir) through every phase and closes
// it when the test ends. Logs go to a file in the test's temp dir.
func startServer(t testing.TB, mutate ...func(*server.Options)) *server.Server {
	t.Helper()
	s := newServer(t, mutate...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	return s
}

// newServer creates a server that has run no phase; it is closed when the test ends.
func newServer(t testing.TB, mutate ...func(*server.Options)) *server.Server {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	opts := server.Options{LogOutput: logFile}
	for _, m := range mutate {
		m(&opts)
	}
	s, err := server.New(opts)
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

// clientFor returns a clientset for a kubeconfig context ("admin", "alice", "bob").
func clientFor(t testing.TB, s *server.Server, context string) kubernetes.Interface {
	t.Helper()
	cfg := restConfig(t, s, context)
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func restConfig(t testing.TB, s *server.Server, context string) *rest.Config {
	t.Helper()
	cfg, err := s.RESTConfig(context)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// pauseHook blocks at the named checkpoint until released, and reports arrival; with
// closeInside it closes the server from inside the hook instead and returns.
type pauseHook struct {
	at          string // checkpoint ID
	closeInside bool
	closeErr    error // Close's result when closeInside
	arrived     chan struct{}
	release     chan struct{}
	once        sync.Once
}

func newPauseHook(at string) *pauseHook {
	return &pauseHook{at: at, arrived: make(chan struct{}), release: make(chan struct{})}
}

func (h *pauseHook) Checkpoint(ctx context.Context, cp server.Checkpoint, s *server.Server) error {
	if cp.ID() != h.at {
		return nil
	}
	h.once.Do(func() { close(h.arrived) })
	if h.closeInside {
		h.closeErr = s.Close()
		return ctx.Err()
	}
	select {
	case <-h.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// goroutineSet is a snapshot of the live goroutines' stacks, keyed by goroutine ID (IDs are
// never reused, so a goroutine started later has an ID the snapshot lacks).
type goroutineSet map[string]string

// goroutines takes a snapshot of every goroutine's stack.
func goroutines() goroutineSet {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := goroutineSet{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		// "goroutine 42 [chan receive]:\n..."
		if f := strings.Fields(g); len(f) > 1 && f[0] == "goroutine" {
			out[f[1]] = g
		}
	}
	return out
}

// finiteGoroutines are started by the library and end on their own after a fixed time, with
// or without Close: the watch cache's wake-up timer (k8s.io/apiserver/pkg/storage/cacher,
// watch_cache.go waitUntilFreshLocked, blockTimeout = 3s).
var finiteGoroutines = []string{
	"created by k8s.io/apiserver/pkg/storage/cacher.(*watchCache).waitUntilFreshLocked",
}

// started returns the stacks of goroutines in now that are not in before, leaving out the
// test framework's own (a test's goroutine and its subtests') and finiteGoroutines.
func (before goroutineSet) started(now goroutineSet) []string {
	var out []string
next:
	for id, stack := range now {
		if _, ok := before[id]; ok || strings.Contains(stack, "testing.tRunner") {
			continue
		}
		for _, f := range finiteGoroutines {
			if strings.Contains(stack, f) {
				continue next
			}
		}
		out = append(out, stack)
	}
	sort.Strings(out)
	return out
}

// leftBehind waits, up to a bound, for every goroutine started since before to end, and
// returns the stacks of those still running. A shut-down server leaves none: each goroutine
// its phases start ends with Close (or with the work that started it).
func leftBehind(before goroutineSet) []string {
	return leftBehindExcept(before, func(left []string) []string { return left })
}

// leftBehindExcept is leftBehind for the goroutines keep does not take out.
func leftBehindExcept(before goroutineSet, keep func([]string) []string) []string {
	var left []string
	_ = wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		left = keep(before.started(goroutines()))
		return len(left) == 0, nil
	})
	return left
}

// startTestEtcd starts a separate embedded etcd for the --etcd-servers tests and returns its
// client URL.
func startTestEtcd(t testing.TB) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Logger, cfg.LogLevel = "zap", "error"
	u := func() url.URL {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return url.URL{Scheme: "http", Host: l.Addr().String()}
	}
	client, peer := u(), u()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(30 * time.Second):
		t.Fatal("test etcd not ready")
	}
	return client.String()
}

// stateEveryCheckpoint is a hook that builds the state tree at every checkpoint, as a
// walkthrough does, and records the checkpoint IDs.
type stateEveryCheckpoint struct{ seen []string }

func (h *stateEveryCheckpoint) Checkpoint(_ context.Context, cp server.Checkpoint, s *server.Server) error {
	st := s.State()
	if st.Find(string(cp.Phase)) == nil {
		return fmt.Errorf("state at %s has no %s node", cp.ID(), cp.Phase)
	}
	// A value printed with the wrong verb ("%!s(bool=false)") is a formatting bug go vet cannot
	// see when the argument is an interface.
	if text := st.String(); strings.Contains(text, "%!") {
		return fmt.Errorf("state at %s has a misformatted value:\n%s", cp.ID(), text)
	}
	_ = s.LiveObjects()
	h.seen = append(h.seen, cp.ID())
	return nil
}
