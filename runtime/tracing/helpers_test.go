package tracing_test

import (
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// TestMain keeps klog (the apiserver's logger) off the test output.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

// waitBound bounds every wait for a condition in these tests.
const waitBound = time.Minute

// startServer runs a real server (embedded etcd unless mutate sets --etcd-servers) through
// every phase, recording into store and asking gate (either may be nil), and closes it when
// the test ends.
func startServer(t testing.TB, store *tracing.Store, gate *tracing.Breakpoints, mutate ...func(*server.Options)) *server.Server {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	opts := server.Options{LogOutput: logFile}
	if store != nil {
		opts.Recorder = store
	}
	if gate != nil {
		opts.Gate = gate
	}
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	return s
}

// auditIDs records the Audit-Id header of every response a client gets.
type auditIDs struct {
	mu  sync.Mutex
	ids []string
}

// last returns the Audit-Id of the latest response.
func (a *auditIDs) last(t testing.TB) string {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.ids) == 0 {
		t.Fatal("no response carried an Audit-Id header")
	}
	return a.ids[len(a.ids)-1]
}

func (a *auditIDs) all() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.ids...)
}

type captureTransport struct {
	rt  http.RoundTripper
	ids *auditIDs
}

func (c captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if resp != nil {
		if id := resp.Header.Get("Audit-Id"); id != "" {
			c.ids.mu.Lock()
			c.ids.ids = append(c.ids.ids, id)
			c.ids.mu.Unlock()
		}
	}
	return resp, err
}

// client returns a clientset for a kubeconfig context ("admin", "alice", "bob"; "" is
// anonymous), optionally changed by mutate, that notes each response's Audit-Id.
func client(t testing.TB, s *server.Server, context string, mutate ...func(*rest.Config)) (kubernetes.Interface, *auditIDs) {
	t.Helper()
	cfg, err := s.RESTConfig(context)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mutate {
		m(cfg)
	}
	ids := &auditIDs{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return captureTransport{rt: rt, ids: ids} })
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, ids
}

// waitDone waits for the trace of request id to finish.
func waitDone(t testing.TB, store *tracing.Store, id string) tracing.Trace {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	tr, ok := store.WaitDone(ctx, id)
	if !ok || !tr.Done {
		t.Fatalf("trace %s not done within %s (found %v): %+v", id, waitBound, ok, tr)
	}
	return tr
}

// waitFor waits, up to waitBound, until cond holds, re-checking whenever store or bp changes.
func waitFor(t testing.TB, store *tracing.Store, bp *tracing.Breakpoints, what string, cond func() bool) {
	t.Helper()
	events, cancel := store.Subscribe()
	defer cancel()
	var changed <-chan struct{}
	if bp != nil {
		changed = bp.Changed()
	}
	deadline := time.NewTimer(waitBound)
	defer deadline.Stop()
	for !cond() {
		select {
		case <-events:
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%s: not within %s", what, waitBound)
		}
	}
}

// startTestEtcd starts a separate embedded etcd, for a server run with --etcd-servers whose
// keys a test reads directly, and returns its client URL.
func startTestEtcd(t testing.TB) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Logger, cfg.LogLevel = "zap", "error"
	cfg.LogOutputs = []string{filepath.Join(cfg.Dir, "etcd.log")}
	u := func() url.URL {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return url.URL{Scheme: "http", Host: l.Addr().String()}
	}
	c, p := u(), u()
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{c}, []url.URL{c}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{p}, []url.URL{p}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(waitBound):
		t.Fatal("test etcd not ready")
	}
	return c.String()
}

// stageNames lists a lane's stage names.
func stageNames(tr tracing.Trace) []string {
	var out []string
	for _, st := range tr.Stages {
		out = append(out, st.Name)
	}
	return out
}

// stage returns the lane's stage called name.
func stage(t testing.TB, tr tracing.Trace, name string) tracing.Stage {
	t.Helper()
	for _, st := range tr.Stages {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("lane %s has no stage %q: %v", tr.ID, name, stageNames(tr))
	return tracing.Stage{}
}

// hasField reports whether the stage has a field labelled label (in English) whose value is
// value.
func hasField(st tracing.Stage, label, value string) bool {
	return slices.ContainsFunc(st.Fields, func(f tracing.Field) bool { return f.Label == label && f.Value == value })
}
