package etcdview_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/etcdview"
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

// shared is one real server (embedded etcd in a temp dir) for the tests of the package:
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

// explorer returns an explorer of s, closed when the test ends.
func explorer(t testing.TB, s *server.Server) *etcdview.Explorer {
	t.Helper()
	x, err := etcdview.New(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

// client returns an admin clientset of the shared server.
func client(t testing.TB) kubernetes.Interface {
	t.Helper()
	cfg, err := liveServer(t).RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// etcdClient returns a client of the etcd the explorer reads, for writing keys the server's
// stores do not (the explorer itself cannot write). It is closed when the test ends.
func etcdClient(t testing.TB, x *etcdview.Explorer) *clientv3.Client {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: x.Info().Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var nameSeq atomic.Int64

// uniqueName returns a DNS-label name no other test (or -count repetition) uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid()%10000, nameSeq.Add(1))
}

// putKeys writes n keys prefix+"k00000"… with small values, 128 to a transaction (etcd's
// default --max-txn-ops), and returns the revision of the last write.
func putKeys(t testing.TB, c *clientv3.Client, prefix string, n int) int64 {
	t.Helper()
	var rev int64
	for i := 0; i < n; {
		var ops []clientv3.Op
		for ; i < n && len(ops) < 128; i++ {
			ops = append(ops, clientv3.OpPut(fmt.Sprintf("%sk%05d", prefix, i), fmt.Sprintf("value %d", i)))
		}
		resp, err := c.Txn(context.Background()).Then(ops...).Commit()
		if err != nil {
			t.Fatal(err)
		}
		rev = resp.Header.Revision
	}
	return rev
}

// nextChange receives one change, failing the test if none comes within a bound (a hang guard).
func nextChange(t testing.TB, ch <-chan etcdview.Change) (etcdview.Change, bool) {
	t.Helper()
	select {
	case c, ok := <-ch:
		return c, ok
	case <-time.After(time.Minute):
		t.Fatal("no change from the watch within a minute")
		return etcdview.Change{}, false
	}
}

// startTestEtcd starts a separate embedded etcd for the --etcd-servers test and returns its
// client URL.
func startTestEtcd(t testing.TB) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Logger, cfg.LogLevel = "zap", "error"
	cfg.LogOutputs = []string{filepath.Join(t.TempDir(), "etcd.log")} // its shutdown complains
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
