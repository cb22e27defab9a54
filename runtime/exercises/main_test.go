package exercises_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/tracing"
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

// shared is one real server (embedded etcd in a temp dir) recording its requests into a
// trace store, for every test of the package: starting one takes seconds.
var shared struct {
	once  sync.Once
	s     *server.Server
	store *tracing.Store
	err   error
}

// liveServer starts the shared server on first use.
func liveServer(t testing.TB) (*server.Server, *tracing.Store) {
	t.Helper()
	shared.once.Do(func() {
		store := tracing.NewStore(0)
		s, err := server.New(server.Options{Recorder: store})
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
		shared.s, shared.store = s, store
	})
	if shared.err != nil {
		t.Fatalf("starting the server: %v", shared.err)
	}
	return shared.s, shared.store
}

// freshServer starts a server of the test's own, closed when the test ends.
func freshServer(t *testing.T) (*server.Server, *tracing.Store) {
	t.Helper()
	store := tracing.NewStore(0)
	s, err := server.New(server.Options{Recorder: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("starting the server: %v", err)
	}
	return s, store
}
