package engine_test

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/inspect"
	"github.com/kubewalk/kubewalk/server"
)

// rawWalkBudget bounds how many nodes of one live object the test walks (breadth first, with
// the TUI's own depth and item limits): enough to reach etcd's raft state, the watch caches
// and the informer indexers, small enough for a -race run.
const rawWalkBudget = 8000

// render walks a raw-view root breadth first, as far as a learner could expand it, and returns
// every name, type and value it shows, one node a line.
func render(root *inspect.Node, budget int) string {
	var b strings.Builder
	q := []*inspect.Node{root}
	for n := 0; len(q) > 0 && n < budget; n++ {
		x := q[0]
		q = q[1:]
		fmt.Fprintf(&b, "%s\t%s\t%s\n", x.Name, x.Type, x.Value)
		q = append(q, x.Children()...)
	}
	return b.String()
}

// runSecrets gathers the run's credentials from where the server keeps them, independently of
// what the server reports through Secrets: primary are the credentials themselves (tokens,
// PEM keys), values also holds forms derived from them (each line of a PEM body, the private
// scalar in hex and decimal) that must not show either.
type runSecrets struct{ primary, values []string }

func (r *runSecrets) add(s string, primary bool) {
	if s == "" {
		return
	}
	if primary && !slices.Contains(r.primary, s) {
		r.primary = append(r.primary, s)
	}
	if !slices.Contains(r.values, s) {
		r.values = append(r.values, s)
	}
}

// addPEM adds a PEM key, each line of its body and its private scalar.
func (r *runSecrets) addPEM(b []byte) {
	r.add(string(b), true)
	blk, _ := pem.Decode(b)
	if blk == nil {
		return
	}
	body := strings.TrimSpace(string(pem.EncodeToMemory(&pem.Block{Type: blk.Type, Bytes: blk.Bytes})))
	lines := strings.Split(body, "\n")
	for _, l := range lines[1 : len(lines)-1] {
		r.add(l, false)
	}
	if k, err := x509.ParseECPrivateKey(blk.Bytes); err == nil {
		r.add(fmt.Sprintf("%x", k.D.Bytes()[:16]), false)
		r.add(k.D.String(), false)
	}
}

// leaks returns every known secret (or a 16-byte window of one) found in text.
func (r *runSecrets) leaks(text string) []string {
	var found []string
	if strings.Contains(text, "PRIVATE KEY") {
		found = append(found, "a PEM private key header")
	}
	for _, s := range r.values {
		for i := 0; i+16 <= len(s); i += 8 {
			if strings.Contains(text, s[i:i+16]) {
				found = append(found, fmt.Sprintf("%.12s… (%d bytes)", s, len(s)))
				break
			}
		}
		if len(s) < 16 && strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// TestRawViewAtEveryCheckpoint pauses at every checkpoint and walks every live object the
// stop offers, while the server's own goroutines (etcd, watch caches, informers once serving)
// run. Under -race a read of anything they write is reported; without it, each object must
// render the same twice in one pause and an earlier stop may only keep objects the current
// stop still offers. At every pause no credential of the run may appear anywhere in the raw
// view: not as a value, not as a map key, not shortened.
func TestRawViewAtEveryCheckpoint(t *testing.T) {
	eng, err := engine.New(server.Options{LogOutput: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := eng.Start(ctx, engine.NextCheckpoint()); err != nil {
		t.Fatal(err)
	}
	secrets := &runSecrets{}
	var last *engine.Stop
	pauses := 0
	for {
		var ev engine.Event
		select {
		case ev = <-eng.Events():
		case <-ctx.Done():
			t.Fatal("no event")
		}
		if ev.Failed != nil {
			t.Fatal(ev.Failed)
		}
		if ev.Served {
			break
		}
		stop := ev.Paused
		pauses++
		gatherSecrets(t, eng.Server(), stop, secrets)
		checkStop(t, eng, stop, secrets)
		last = stop
		if err := eng.Continue(engine.NextCheckpoint()); err != nil {
			t.Fatal(err)
		}
	}
	if pauses != len(server.Checkpoints()) {
		t.Fatalf("paused %d times, want %d", pauses, len(server.Checkpoints()))
	}

	// Serving: make the informers, watch caches and etcd work while the final stop and every
	// earlier one are walked again, as a learner reviewing the tour does.
	cfg, err := eng.Server().RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 20; i++ {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("raw-%d", i)}}
			if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Errorf("create: %v", err)
				return
			}
		}
	}()
	walked := map[string][]any{} // each distinct object once: stops share most of theirs
	for _, st := range eng.Stops() {
		var fresh []server.LiveObject
		for _, lo := range st.Live {
			if !slices.ContainsFunc(walked[lo.Name], func(v any) bool { return sameObject(v, lo.Value) }) {
				walked[lo.Name] = append(walked[lo.Name], lo.Value)
				fresh = append(fresh, lo)
			}
		}
		st.Live = fresh
		walkStop(t, st, secrets)
	}
	<-done
	checkStop(t, eng, last, secrets)
}

// gatherSecrets collects the credentials visible at this stop from their sources.
func gatherSecrets(t *testing.T, s *server.Server, stop *engine.Stop, r *runSecrets) {
	t.Helper()
	for _, id := range s.Identities() {
		r.add(id.Token, true)
		if len(id.ClientKeyPEM) > 0 {
			r.addPEM(id.ClientKeyPEM)
		}
	}
	for _, lo := range stop.Live {
		if g, ok := lo.Value.(*genericapiserver.RecommendedConfig); ok && g != nil {
			if g.LoopbackClientConfig != nil {
				r.add(g.LoopbackClientConfig.BearerToken, true)
			}
			if g.SecureServing != nil && g.SecureServing.Cert != nil {
				_, key := g.SecureServing.Cert.CurrentCertKeyContent()
				r.addPEM(key)
			}
		}
	}
	reported := s.Secrets()
	for _, v := range r.primary {
		if !slices.Contains(reported, v) {
			t.Errorf("%s: Server.Secrets() does not report a credential of the run (%.6s…)", stop.Checkpoint.ID(), v)
		}
	}
	for _, v := range reported {
		if strings.Contains(v, "PRIVATE KEY") {
			r.addPEM([]byte(v))
		} else {
			r.add(v, true)
		}
	}
}

// checkStop walks the stop's objects twice and checks that earlier stops kept only objects the
// current stop offers.
func checkStop(t *testing.T, eng *engine.Engine, stop *engine.Stop, secrets *runSecrets) {
	t.Helper()
	first := walkStop(t, *stop, secrets)
	second := walkStop(t, *stop, secrets)
	for name, r := range first {
		if second[name] != r {
			t.Errorf("%s: live object %s changed while the server was paused: another goroutine writes it",
				stop.Checkpoint.ID(), name)
		}
	}
	offered := map[string]any{}
	for _, lo := range stop.Live {
		offered[lo.Name] = lo.Value
	}
	for _, earlier := range eng.Stops() {
		for _, lo := range earlier.Live {
			if v, ok := offered[lo.Name]; !ok || !sameObject(v, lo.Value) {
				t.Errorf("paused at %s, reviewing %s offers %s, which the current stop does not",
					stop.Checkpoint.ID(), earlier.Checkpoint.ID(), lo.Name)
			}
		}
	}
}

func sameObject(a, b any) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if !va.IsValid() || !vb.IsValid() || va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return va.Pointer() == vb.Pointer()
	}
	return reflect.DeepEqual(a, b)
}

// walkStop renders every live object of a stop and checks it for credentials.
func walkStop(t *testing.T, stop engine.Stop, secrets *runSecrets) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, lo := range stop.Live {
		r := render(inspect.Root(lo.Name, lo.Value, stop.InspectOptions()), rawWalkBudget)
		if leaks := secrets.leaks(r); len(leaks) > 0 {
			t.Errorf("%s: raw view of %s shows credentials: %s", stop.Checkpoint.ID(), lo.Name, strings.Join(leaks, "; "))
		}
		out[lo.Name] = r
	}
	return out
}
