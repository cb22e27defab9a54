package kubectl_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/server"
)

// TestMain keeps klog off the test output and closes the shared server.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	code := m.Run()
	if shared.s != nil {
		if err := shared.s.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared server: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// shared is one real server (embedded etcd in a temp dir) for every test of the package:
// starting one takes seconds, and the tests use names of their own.
var shared struct {
	once sync.Once
	s    *server.Server
	err  error
}

// liveServer starts the shared server on first use.
func liveServer(t testing.TB) *server.Server {
	t.Helper()
	shared.once.Do(func() {
		s, err := server.New(server.Options{})
		if err != nil {
			shared.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := s.Start(ctx); err != nil {
			s.Close()
			shared.err = err
			return
		}
		shared.s = s
	})
	if shared.err != nil {
		t.Fatalf("starting the server: %v", shared.err)
	}
	return shared.s
}

// newRunner returns a Runner on the shared server's kubeconfig with a cache of its own.
func newRunner(t testing.TB, mutate ...func(*kubectl.Options)) *kubectl.Runner {
	t.Helper()
	s := liveServer(t)
	opts := kubectl.Options{Kubeconfig: s.Kubeconfig(), CacheDir: t.TempDir()}
	for _, m := range mutate {
		m(&opts)
	}
	r, err := kubectl.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

// client returns a clientset for a kubeconfig context.
func client(t testing.TB, contextName string) kubernetes.Interface {
	t.Helper()
	cfg, err := liveServer(t).RESTConfig(contextName)
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var nameSeq atomic.Int64

// uniqueName returns a DNS-label name no other test (or -count repetition) uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid()%10000, nameSeq.Add(1))
}

// run runs a command line and fails the test if Run returns an error.
func run(t testing.TB, r *kubectl.Runner, line string) (kubectl.Result, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := r.RunLine(context.Background(), line, &out)
	if err != nil {
		t.Fatalf("kubectl %s: %v\noutput:\n%s", line, err, out.String())
	}
	return res, out.String()
}

// syncBuffer is a bytes.Buffer safe for a writing goroutine and a reading test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls cond until it holds or the bound passes.
func waitFor(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", bound, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// writeFile writes a temp file and returns its path.
func writeFile(t testing.TB, name, content string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
