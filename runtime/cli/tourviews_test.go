package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui"
	"github.com/kubewalk/kubewalk/server"
)

// TestMain keeps klog off the test output and closes the servers the tests shared.
func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	code := m.Run()
	if shared.s != nil {
		shared.t.Breakpoints.Close()
		if err := shared.s.Close(); err != nil {
			fmt.Fprintf(os.Stderr, "closing the shared server: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// shared is one real server (embedded etcd) recording into a real store and asking real
// breakpoints, as the tour wires them, for the tests of the package.
var shared struct {
	once sync.Once
	s    *server.Server
	t    *tourTracing
	err  error
}

// liveServer starts the shared server on first use.
func liveServer(t testing.TB) (*server.Server, *tourTracing) {
	t.Helper()
	shared.once.Do(func() {
		o := &traceOptions{RequestTimeout: tourRequestTimeout}
		tt, err := o.newTourTracing()
		if err != nil {
			shared.err = err
			return
		}
		s, err := startServer(tt.apply(server.Options{RequestTimeout: tourRequestTimeout}))
		shared.s, shared.t, shared.err = s, tt, err
	})
	if shared.err != nil {
		t.Fatalf("starting the server: %v", shared.err)
	}
	return shared.s, shared.t
}

func startServer(opts server.Options) (*server.Server, error) {
	s, err := server.New(opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func clientAs(t testing.TB, s *server.Server, contextName string) kubernetes.Interface {
	t.Helper()
	cfg, err := s.RESTConfig(contextName)
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

// waitFor polls cond until it holds, failing the test after bound (a hang guard).
func waitFor(t testing.TB, bound time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, bound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// heldOne waits until exactly the request the predicate picks is held, and returns it.
func heldOne(t *testing.T, bps tui.Breakpoints, pick func(tui.HeldRequest) bool) tui.HeldRequest {
	t.Helper()
	var got tui.HeldRequest
	waitFor(t, time.Minute, "a held request", func() bool {
		for _, h := range bps.Held() {
			if pick(h) {
				got = h
				return true
			}
		}
		return false
	})
	return got
}

// TestBreakpointsAdapter holds bob's list at authorization through the adapter the TUI
// uses: the held request shows in the store's lane as held, at the stage the TUI highlights;
// aborting it fails the client with the learner's error; breakpoints are removed by spec.
func TestBreakpointsAdapter(t *testing.T) {
	s, tt := liveServer(t)
	bps := tuiBreakpoints{tt.Breakpoints}
	ns := uniqueName("held")
	spec := "authorization:user=bob,resource=configmaps"
	if err := bps.Add(spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bps.Remove(spec) })
	if got := bps.List(); len(got) != 1 || got[0] != spec {
		t.Fatalf("List = %q, want [%s]", got, spec)
	}

	bob := clientAs(t, s, "bob")
	errc := make(chan error, 1)
	go func() {
		_, err := bob.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
		errc <- err
	}()
	h := heldOne(t, bps, func(h tui.HeldRequest) bool { return h.Stage == tracing.StageAuthorization })
	if h.Spec != spec || h.Body != "" {
		t.Errorf("held %+v: want spec %s and no body (a list has none)", h, spec)
	}
	// Other requests flow meanwhile: admin is not held, and the client is still blocked.
	admin := clientAs(t, s, "admin")
	if _, err := admin.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("admin while bob is held: %v", err)
	}
	select {
	case err := <-errc:
		t.Fatalf("bob's list returned while held: %v", err)
	default:
	}
	trace, ok := tt.Store.Get(h.ID)
	if !ok {
		t.Fatalf("no trace %s in the store", h.ID)
	}
	heldStage := ""
	for _, st := range trace.Stages {
		if st.Outcome == tracing.OutcomeHeld {
			heldStage = st.Name
		}
	}
	if heldStage != h.Stage {
		t.Errorf("the lane shows %q held, the breakpoints %q: %+v", heldStage, h.Stage, trace.Stages)
	}

	if err := bps.Abort(h.ID); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-errc:
	case <-time.After(time.Minute):
		t.Fatal("bob's list did not return after the abort")
	}
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "failed by the learner in kubewalk") {
		t.Errorf("aborted list: %v; want a 403 saying the learner failed it", err)
	}
	if err := bps.Abort(h.ID); !errors.Is(err, tracing.ErrNotHeld) {
		t.Errorf("a second abort: %v, want ErrNotHeld", err)
	}

	// Remove takes the spec in any spelling ParseSpec reads, and says what is set otherwise.
	if err := bps.Remove("Authorization: user=bob"); err == nil || !strings.Contains(err.Error(), spec) {
		t.Errorf("removing a breakpoint not set: %v; want an error naming %s", err, spec)
	}
	if err := bps.Remove("authorization:resource=configmaps, user=bob"); err != nil {
		t.Fatal(err)
	}
	if got := bps.List(); len(got) != 0 {
		t.Errorf("after Remove, List = %q", got)
	}
	if err := bps.Remove(spec); err == nil || !strings.Contains(err.Error(), "none is set") {
		t.Errorf("removing from none: %v", err)
	}
	if err := bps.Add("authorisation"); err == nil {
		t.Error("a misspelt stage was accepted")
	}
}

// TestBreakpointsAdapterBody holds a create before admission: the TUI gets the stage the lane
// names it by and the object as YAML, a Secret's data redacted; stepping and continuing let
// the create through.
func TestBreakpointsAdapterBody(t *testing.T) {
	s, tt := liveServer(t)
	bps := tuiBreakpoints{tt.Breakpoints}
	ns := "default"
	admin := clientAs(t, s, "admin")
	spec := "admission:user=" + identity(t, s, "admin") + ",verb=create,resource=secrets"
	if err := bps.Add(spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bps.Remove(spec) })
	name := uniqueName("sec")
	errc := make(chan error, 1)
	go func() {
		_, err := admin.CoreV1().Secrets(ns).Create(context.Background(), &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			StringData: map[string]string{"password": "hunter2-" + name},
		}, metav1.CreateOptions{})
		errc <- err
	}()
	h := heldOne(t, bps, func(h tui.HeldRequest) bool { return strings.Contains(h.Body, name) })
	if h.Stage != tracing.StageMutatingAdmission {
		t.Errorf("held at %q, want %q (the lane's name for the hold before admission)", h.Stage, tracing.StageMutatingAdmission)
	}
	if !strings.Contains(h.Body, "name: "+name) || !strings.Contains(h.Body, "kind: Secret") {
		t.Errorf("body is not the object as YAML:\n%s", h.Body)
	}
	if strings.Contains(h.Body, "hunter2") {
		t.Errorf("the secret's data shows in the held body:\n%s", h.Body)
	}
	// Step: held again at the next breakpoint stage (storage), then run to the end.
	if err := bps.Step(h.ID); err != nil {
		t.Fatal(err)
	}
	h2 := heldOne(t, bps, func(x tui.HeldRequest) bool { return x.ID == h.ID && x.Stage == tracing.StageStorage })
	if h2.Spec != "" {
		t.Errorf("a hold reached by stepping names breakpoint %q", h2.Spec)
	}
	if err := bps.Continue(h.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("create after continue: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the create did not return after continue")
	}
}

// identity is the user name of a kubeconfig context.
func identity(t testing.TB, s *server.Server, contextName string) string {
	t.Helper()
	for _, id := range s.Identities() {
		if id.Context == contextName {
			return id.User
		}
	}
	t.Fatalf("no identity for context %s in %+v", contextName, s.Identities())
	return ""
}

// TestEtcdBrowserBeforeStorage: before the storage phase the browser says why it has
// nothing, as the TUI explains it, and its watch is closed at once.
func TestEtcdBrowserBeforeStorage(t *testing.T) {
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := newEtcdBrowser(s, i18n.For("en"))
	defer b.Close()
	ctx := context.Background()
	if _, err := b.List(ctx, "/registry/", 10, ""); !errors.Is(err, server.ErrEtcdNotReady) {
		t.Errorf("List before storage: %v, want ErrEtcdNotReady", err)
	}
	if _, err := b.Decode(ctx, "/registry/namespaces/default"); !errors.Is(err, server.ErrEtcdNotReady) {
		t.Errorf("Decode before storage: %v, want ErrEtcdNotReady", err)
	}
	select {
	case _, ok := <-b.Watch(ctx, 0):
		if ok {
			t.Error("the watch before storage delivered a change")
		}
	case <-time.After(time.Minute):
		t.Error("the watch before storage was not closed")
	}
}

// TestEtcdBrowser lists, decodes and watches the shared server's etcd (embedded) through the
// adapter; TestEtcdBrowserExternal does the same with --etcd-servers.
func TestEtcdBrowser(t *testing.T) {
	s, _ := liveServer(t)
	checkEtcdBrowser(t, s)
}

func TestEtcdBrowserExternal(t *testing.T) {
	s, err := startServer(server.Options{EtcdServers: []string{startTestEtcd(t)}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkEtcdBrowser(t, s)
}

func checkEtcdBrowser(t *testing.T, s *server.Server) {
	t.Helper()
	b := newEtcdBrowser(s, i18n.For("en"))
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin := clientAs(t, s, "admin")
	ns := uniqueName("etcdview")
	if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i := range 5 {
		name := fmt.Sprintf("cm-%d", i)
		names = append(names, name)
		if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name},
			Data: map[string]string{"greeting": "hello " + name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	secret, err := admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		StringData: map[string]string{"password": "hunter2"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// Pages of 2 keys under the namespace's configmaps: 5 keys, 3 pages, in order, none twice.
	prefix := "/registry/configmaps/" + ns + "/"
	var got []string
	var firstRev int64
	after := ""
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more than 3 pages of 2 for 5 keys: %q", got)
		}
		p, err := b.List(ctx, prefix, 2, after)
		if err != nil {
			t.Fatal(err)
		}
		if firstRev == 0 {
			firstRev = p.Revision
		}
		for _, k := range p.Keys {
			got = append(got, strings.TrimPrefix(k.Key, prefix))
			if k.ModRevision == 0 || k.CreateRevision == 0 || k.Version != 1 || k.Size != -1 {
				t.Errorf("key %+v: want revisions, version 1, size unknown (-1)", k)
			}
		}
		if p.Continue == "" {
			break
		}
		after = p.Continue
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("listed %q, want %q", got, names)
	}
	if _, err := b.List(ctx, prefix, 2, "/elsewhere/x"); err == nil {
		t.Error("a continue key outside the prefix was accepted")
	}

	// Decoded with the server's codecs: the object as YAML, stored as protobuf; a Secret's
	// data redacted.
	v, err := b.Decode(ctx, prefix+"cm-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(v.YAML, "greeting: hello cm-1") || !strings.Contains(v.YAML, "kind: ConfigMap") ||
		!strings.HasPrefix(v.Encoding, "protobuf") || v.Size <= 0 || v.ModRevision == 0 {
		t.Errorf("decoded %+v", v)
	}
	sv, err := b.Decode(ctx, "/registry/secrets/"+ns+"/s")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sv.YAML, "hunter2") || strings.Contains(sv.YAML, "aHVudGVyMg") || !strings.Contains(sv.YAML, "<redacted>") {
		t.Errorf("secret %s decoded without redaction:\n%s", secret.Name, sv.YAML)
	}
	if _, err := b.Decode(ctx, prefix+"missing"); err == nil {
		t.Error("decoding a key etcd does not hold gave no error")
	}

	// The watch from the listing's revision reports what changed since, key by key: a change
	// made before Watch is called is not missed.
	if _, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wctx, wcancel := context.WithCancel(ctx)
	changes := b.Watch(wctx, firstRev)
	if err := admin.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	sawLate, sawDelete := false, false
	for !sawLate || !sawDelete {
		select {
		case c, ok := <-changes:
			if !ok {
				t.Fatal("the watch closed early")
			}
			switch {
			case c.Key.Key == prefix+"late" && !c.Deleted:
				sawLate = c.Key.Size > 0
			case c.Key.Key == prefix+"cm-0" && c.Deleted:
				sawDelete = true
			}
		case <-time.After(time.Minute):
			t.Fatalf("watch: create seen %v, delete seen %v within a minute", sawLate, sawDelete)
		}
	}
	wcancel()
	waitClosed(t, changes)
	// Close ends the browser: later calls fail.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.List(ctx, prefix, 2, ""); err == nil {
		t.Error("List after Close gave no error")
	}
}

// waitClosed drains ch until it is closed, within a bound.
func waitClosed(t *testing.T, ch <-chan tui.EtcdChange) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the watch's channel was not closed after its context ended")
		}
	}
}

// startTestEtcd starts an etcd of the test's own, as --etcd-servers would name one, and
// returns its client URL.
func startTestEtcd(t testing.TB) string {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Dir = t.TempDir()
	cfg.Logger, cfg.LogLevel = "zap", "error"
	cfg.LogOutputs = []string{filepath.Join(t.TempDir(), "etcd.log")}
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
