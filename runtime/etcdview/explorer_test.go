package etcdview_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/runtime/etcdview"
	"github.com/kubewalk/kubewalk/server"
)

// names returns the names along a trail.
func names(trail []*etcdview.Node) []string {
	var out []string
	for _, n := range trail {
		out = append(out, n.Name)
	}
	return out
}

// rv parses a resourceVersion.
func rv(t testing.TB, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestListGroupsObjects creates objects through the API with client-go — a configmap, a
// namespace, a clusterrole, an event — and finds each in the tree where the server stores it,
// with the revisions etcd reports as their resourceVersions.
func TestListGroupsObjects(t *testing.T) {
	s := liveServer(t)
	c := client(t)
	ctx := context.Background()
	name := uniqueName("listed")
	cm, err := c.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["k"] = "v2"
	if cm, err = c.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cr, err := c.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := c.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: name},
		Reason:         "Test", Message: "listed", Type: corev1.EventTypeNormal,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	x := explorer(t, s)
	tree, err := x.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if tree.Revision < rv(t, ev.ResourceVersion) {
		t.Errorf("tree revision %d, before the event's %s", tree.Revision, ev.ResourceVersion)
	}
	for _, tc := range []struct {
		key       string
		trail     []string
		kind      etcdview.NodeKind
		modRev    string
		version   int64
		withLease bool
	}{
		{"/registry/configmaps/default/" + name, []string{"/registry", "configmaps", "default", name}, etcdview.KindObject, cm.ResourceVersion, 2, false},
		{"/registry/namespaces/" + name, []string{"/registry", "namespaces", name}, etcdview.KindObject, ns.ResourceVersion, 1, false},
		{"/registry/clusterroles/" + name, []string{"/registry", "clusterroles", name}, etcdview.KindObject, cr.ResourceVersion, 1, false},
		{"/registry/events/default/" + name, []string{"/registry", "events", "default", name}, etcdview.KindObject, ev.ResourceVersion, 1, true},
		// As a trace's storage stage names a list: the namespace's and resource's prefixes.
		{"/registry/configmaps/default", []string{"/registry", "configmaps", "default"}, etcdview.KindNamespace, "", 0, false},
		{"/registry/configmaps/", []string{"/registry", "configmaps"}, etcdview.KindResource, "", 0, false},
		{"/registry", []string{"/registry"}, etcdview.KindRoot, "", 0, false},
	} {
		trail, exact := tree.Lookup(tc.key)
		if !exact || strings.Join(names(trail), " › ") != strings.Join(tc.trail, " › ") {
			t.Errorf("Lookup(%s) = %v, %v; want %v", tc.key, names(trail), exact, tc.trail)
			continue
		}
		n := trail[len(trail)-1]
		if n.Kind != tc.kind {
			t.Errorf("%s: kind %v, want %v", tc.key, n.Kind, tc.kind)
		}
		if tc.modRev == "" {
			continue
		}
		k := n.Key
		if k == nil || k.Key != tc.key || k.ModRevision != rv(t, tc.modRev) || k.Version != tc.version ||
			k.CreateRevision > k.ModRevision || k.Size != -1 {
			t.Errorf("%s: key %+v, want mod revision %s, version %d", tc.key, k, tc.modRev, tc.version)
		}
		// A listing does not know leases (see Key.Lease); the value's read does.
		v, err := x.Decode(ctx, tc.key, etcdview.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Key.ModRevision != k.ModRevision || v.Key.CreateRevision != k.CreateRevision || (v.Key.Lease != 0) != tc.withLease {
			t.Errorf("%s: decoded key %+v, listed %+v, want lease %v", tc.key, v.Key, k, tc.withLease)
		}
	}
	// Every served resource has its node, empty or not, and the counts add up.
	trail, _ := tree.Lookup("/registry/pods/")
	if n := trail[len(trail)-1]; n.Kind != etcdview.KindResource || n.Name != "pods" {
		t.Errorf("pods: %+v", n)
	}
	sum := 0
	for _, ch := range tree.Root.Children {
		sum += ch.Count
	}
	if sum != tree.Len() || tree.Len() < 5 {
		t.Errorf("root count %d, children's %d", tree.Len(), sum)
	}
}

// TestDecode decodes a configmap written through the API: the server stored it as protobuf
// in v1, and it shows as YAML with its data.
func TestDecode(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	name := uniqueName("decoded")
	cm, err := client(t).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"greeting": "hello, etcd"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	key := "/registry/configmaps/default/" + name
	v, err := x.Decode(ctx, key, etcdview.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := etcdClient(t, x).Get(ctx, key)
	if err != nil || len(raw.Kvs) != 1 {
		t.Fatalf("raw get: %v %v", raw, err)
	}
	if !v.Object() || v.MediaType != "application/vnd.kubernetes.protobuf" || v.StorageVersion() != "v1" ||
		v.GVK.Kind != "ConfigMap" || v.Redacted || v.Raw != "" {
		t.Errorf("value: %+v", v)
	}
	if v.Key.Size != len(raw.Kvs[0].Value) || v.Key.ModRevision != rv(t, cm.ResourceVersion) || v.Key.Key != key {
		t.Errorf("key %+v; raw size %d, resourceVersion %s", v.Key, len(raw.Kvs[0].Value), cm.ResourceVersion)
	}
	for _, want := range []string{"apiVersion: v1\n", "kind: ConfigMap\n", "  greeting: hello, etcd\n", "  name: " + name + "\n", "  namespace: default\n"} {
		if !strings.Contains(v.YAML, want) {
			t.Errorf("YAML lacks %q:\n%s", want, v.YAML)
		}
	}

	if _, err := x.Decode(ctx, key+"-missing", etcdview.DecodeOptions{}); !errors.Is(err, etcdview.ErrNotFound) {
		t.Errorf("missing key: %v, want ErrNotFound", err)
	}
}

// TestDecodeRedactsSecrets: a Secret's data — and the copy kubectl apply leaves in an
// annotation — show as <redacted> unless revealed.
func TestDecodeRedactsSecrets(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	name := uniqueName("secret")
	const token = "s3cr3t-t0ken-value"
	if _, err := client(t).CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			"kubectl.kubernetes.io/last-applied-configuration": `{"stringData":{"token":"` + token + `"}}`,
			"note": "kept",
		}},
		StringData: map[string]string{"token": token},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	key := "/registry/secrets/default/" + name
	encoded := base64.StdEncoding.EncodeToString([]byte(token))
	for _, tc := range []struct {
		reveal   bool
		redacted bool
		has      []string
		lacks    []string
	}{
		{false, true, []string{"kind: Secret\n", "  token: <redacted>\n", "kubectl.kubernetes.io/last-applied-configuration: <redacted>", "note: kept"}, []string{token, encoded}},
		{true, false, []string{"  token: " + encoded + "\n", token}, []string{etcdview.Redacted}},
	} {
		t.Run(fmt.Sprintf("reveal=%v", tc.reveal), func(t *testing.T) {
			v, err := x.Decode(ctx, key, etcdview.DecodeOptions{RevealSecrets: tc.reveal})
			if err != nil {
				t.Fatal(err)
			}
			if v.Redacted != tc.redacted {
				t.Errorf("redacted %v, want %v", v.Redacted, tc.redacted)
			}
			for _, want := range tc.has {
				if !strings.Contains(v.YAML, want) {
					t.Errorf("YAML lacks %q:\n%s", want, v.YAML)
				}
			}
			for _, bad := range tc.lacks {
				if strings.Contains(v.YAML, bad) {
					t.Errorf("YAML shows %q:\n%s", bad, v.YAML)
				}
			}
		})
	}
}

// TestOtherKeys: keys under the prefix that no store owns list under "other" and decode as
// raw text or a hex dump, not as objects.
func TestOtherKeys(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	ec := etcdClient(t, x)
	dir := "/registry/" + uniqueName("kubewalk-test") + "/"
	t.Cleanup(func() { ec.Delete(context.Background(), dir, clientv3.WithPrefix()) })
	for k, v := range map[string]string{"note": "hello\nworld", "binary": "\x00\x01\x02\xff"} {
		if _, err := ec.Put(ctx, dir+k, v); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := x.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	trail, exact := tree.Lookup(dir + "note")
	if n := trail[len(trail)-1]; !exact || len(trail) != 3 || trail[1].Kind != etcdview.KindOther ||
		n.Kind != etcdview.KindOtherKey || n.Name != strings.TrimPrefix(dir, "/registry/")+"note" {
		t.Fatalf("Lookup: %v %v", names(trail), exact)
	}
	for _, tc := range []struct{ key, raw string }{
		{"note", "hello\nworld"},
		{"binary", "00000000  00 01 02 ff"},
	} {
		v, err := x.Decode(ctx, dir+tc.key, etcdview.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v.Object() || v.MediaType != "" || !strings.HasPrefix(v.Raw, tc.raw) || v.YAML != "" {
			t.Errorf("%s: %+v", tc.key, v)
		}
	}
}

// TestWatch follows a configmap's create, update and delete through the watch and the tree.
func TestWatch(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	tree, err := x.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := x.Watch(ctx, tree.Revision)
	if err != nil {
		t.Fatal(err)
	}
	name := uniqueName("watched")
	key := "/registry/configmaps/default/" + name
	cms := client(t).CoreV1().ConfigMaps("default")

	// await applies changes until the tree's node for key satisfies done.
	await := func(what string, done func(n *etcdview.Node, exact bool) bool) {
		t.Helper()
		for {
			trail, exact := tree.Lookup(key)
			if done(trail[len(trail)-1], exact) {
				return
			}
			c, ok := nextChange(t, changes)
			if !ok || c.Err != nil {
				t.Fatalf("watch ended waiting for %s: %v", what, c.Err)
			}
			tree.Apply(c)
		}
	}
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	await("the create", func(n *etcdview.Node, exact bool) bool { return exact })
	if trail, _ := tree.Lookup(key); !slicesEqual(names(trail), []string{"/registry", "configmaps", "default", name}) {
		t.Errorf("new key's trail %v", names(trail))
	}
	cm.Data["k"] = "v2"
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	await("the update", func(n *etcdview.Node, exact bool) bool {
		return exact && n.Key.ModRevision == rv(t, cm.ResourceVersion)
	})
	if trail, _ := tree.Lookup(key); trail[len(trail)-1].Key.Version != 2 || trail[len(trail)-1].Key.Size <= 0 {
		t.Errorf("updated key %+v", trail[len(trail)-1].Key)
	}
	if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	await("the delete", func(n *etcdview.Node, exact bool) bool { return !exact })
	if tree.Revision <= rv(t, cm.ResourceVersion) {
		t.Errorf("tree revision %d after the delete, not past the update's %s", tree.Revision, cm.ResourceVersion)
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// TestWatchSlowConsumer writes keys while nobody reads the watch, then reads: everything
// arrives, coalesced — a key written and deleted meanwhile is gone — and fewer changes than
// writes, since the watch merged what piled up.
func TestWatchSlowConsumer(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	ec := etcdClient(t, x)
	dir := "/registry/" + uniqueName("kubewalk-slow") + "/"
	t.Cleanup(func() { ec.Delete(context.Background(), dir, clientv3.WithPrefix()) })
	tree, err := x.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := x.Watch(ctx, tree.Revision)
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := 0; i < n; i++ {
		if _, err := ec.Put(ctx, fmt.Sprintf("%sk%03d", dir, i), "v"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ec.Delete(ctx, dir+"k000"); err != nil {
		t.Fatal(err)
	}
	last, err := ec.Put(ctx, dir+"last", "v")
	if err != nil {
		t.Fatal(err)
	}
	received := 0
	for tree.Revision < last.Header.Revision {
		c, ok := nextChange(t, changes)
		if !ok || c.Err != nil {
			t.Fatalf("watch ended: %v", c.Err)
		}
		tree.Apply(c)
		received++
	}
	trail, exact := tree.Lookup(dir + "k001")
	other := trail[len(trail)-2]
	if !exact || other.Kind != etcdview.KindOther {
		t.Fatalf("k001: %v %v", names(trail), exact)
	}
	if _, exact := tree.Lookup(dir + "k000"); exact {
		t.Error("k000 was deleted, the tree still has it")
	}
	if _, exact := tree.Lookup(dir + "last"); !exact {
		t.Error("the last key is missing")
	}
	t.Logf("%d changes for %d writes", received, n+2)
	if received >= n {
		t.Errorf("%d changes for %d writes: nothing coalesced", received, n+2)
	}
}

// TestListPages lists 10,000 keys, 20 pages of etcdview.PageSize, while more keys are
// written: the tree is exactly etcd's keyspace at the listing's revision.
func TestListPages(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	ec := etcdClient(t, x)
	dir := "/registry/" + uniqueName("kubewalk-paging") + "/"
	t.Cleanup(func() { ec.Delete(context.Background(), dir, clientv3.WithPrefix()) })
	putKeys(t, ec, dir, 10_000)

	// Writers keep going during the listing; the snapshot must not see their keys.
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := ec.Put(ctx, fmt.Sprintf("%slate%05d", dir, i), "v"); err != nil {
				done <- err
				return
			}
		}
	}()
	tree, err := x.List(ctx)
	close(stop)
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}

	want, err := ec.Get(ctx, "/registry/", clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithRev(tree.Revision))
	if err != nil {
		t.Fatal(err)
	}
	var got []etcdview.Key
	var walk func(n *etcdview.Node)
	walk = func(n *etcdview.Node) {
		if n.Key != nil && n.Key.Key != "compact_rev_key" {
			got = append(got, *n.Key)
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(tree.Root)
	if len(got) != len(want.Kvs) {
		t.Fatalf("tree has %d keys, etcd %d at revision %d", len(got), len(want.Kvs), tree.Revision)
	}
	byKey := map[string]etcdview.Key{}
	for _, k := range got {
		byKey[k.Key] = k
	}
	for _, kv := range want.Kvs {
		k, ok := byKey[string(kv.Key)]
		if !ok || k.ModRevision != kv.ModRevision || k.CreateRevision != kv.CreateRevision || k.Version != kv.Version {
			t.Fatalf("%s: tree %+v, etcd mod %d create %d version %d", kv.Key, k, kv.ModRevision, kv.CreateRevision, kv.Version)
		}
	}
	trail, _ := tree.Lookup(etcdview.OtherID)
	other := trail[len(trail)-1]
	var inDir int
	for _, c := range other.Children {
		if strings.HasPrefix(c.ID, dir+"k") {
			inDir++
		}
	}
	if inDir != 10_000 {
		t.Errorf("other holds %d of the 10,000 keys", inDir)
	}
}

// TestBeforeStorageAndAfterClose: no explorer before the storage phase has built its stores
// or once the server is closed; an explorer's calls fail after its own Close.
func TestBeforeStorageAndAfterClose(t *testing.T) {
	s, err := server.New(server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcdview.New(s); !errors.Is(err, server.ErrEtcdNotReady) {
		t.Errorf("before any phase: %v, want ErrEtcdNotReady", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := etcdview.New(s); !errors.Is(err, server.ErrClosed) {
		t.Errorf("after Close: %v, want server.ErrClosed", err)
	}

	x, err := etcdview.New(liveServer(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := x.List(ctx); !errors.Is(err, etcdview.ErrClosed) {
		t.Errorf("List after Close: %v", err)
	}
	if _, err := x.Decode(ctx, "/registry/namespaces/default", etcdview.DecodeOptions{}); !errors.Is(err, etcdview.ErrClosed) {
		t.Errorf("Decode after Close: %v", err)
	}
	if _, err := x.Watch(ctx, 1); !errors.Is(err, etcdview.ErrClosed) {
		t.Errorf("Watch after Close: %v", err)
	}
}

// TestCloseLeavesNoGoroutine: Close stops every watch — one being read, one nobody reads with
// changes piling up — and no goroutine of the explorer or of its etcd watches is left.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	s := liveServer(t)
	ctx := context.Background()
	warm := explorer(t, s) // the server's etcd client connected, the test's client too
	ec := etcdClient(t, warm)
	dir := "/registry/" + uniqueName("kubewalk-leak") + "/"
	t.Cleanup(func() { ec.Delete(context.Background(), dir, clientv3.WithPrefix()) })
	if _, err := ec.Put(ctx, dir+"warm", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := warm.List(ctx); err != nil {
		t.Fatal(err)
	}
	before := goroutineCreators()

	x, err := etcdview.New(s)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := x.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read, err := x.Watch(ctx, tree.Revision)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Watch(ctx, tree.Revision); err != nil { // never read
		t.Fatal(err)
	}
	if _, err := ec.Put(ctx, dir+"a", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := ec.Put(ctx, dir+"b", "v"); err != nil {
		t.Fatal(err)
	}
	if c, ok := nextChange(t, read); !ok || len(c.Events) == 0 {
		t.Fatalf("first change: %+v %v", c, ok)
	}
	if _, err := x.Decode(ctx, dir+"a", etcdview.DecodeOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	for range read { // closed by Close, maybe after a last change
	}
	// The server runs beside the explorer: a goroutine that a goroutine older than the
	// snapshot (other than this test's) started is the server's own work (a reflector
	// re-listing, a watch cache's stream), not the explorer's. Everything the explorer starts
	// is started by this goroutine or by one the explorer started.
	me := currentGoroutine()
	var leak []string
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		leak = leak[:0]
		now := goroutineCreators()
		for id, g := range now {
			if _, old := before[id]; old || serversOwn(id, now, before, me) {
				continue
			}
			leak = append(leak, fmt.Sprintf("goroutine %d (%s, created in goroutine %d)", id, g.top, g.parent))
		}
		if len(leak) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling a bounded wait: etcd's side of a closed watch ends asynchronously
	}
	t.Fatalf("goroutines left after Close:\n%s", strings.Join(leak, "\n"))
}

// TestExternalEtcd explores an etcd the test starts itself, given with --etcd-servers, after
// only the phases up to storage: a configmap stored as JSON by another writer decodes as
// JSON, compact_rev_key lists under other, and a watch from a compacted revision ends with an
// error that says so.
func TestExternalEtcd(t *testing.T) {
	endpoint := startTestEtcd(t)
	s, err := server.New(server.Options{EtcdServers: []string{endpoint}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, p := range server.Phases()[:5] {
		if err := s.RunPhase(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	x := explorer(t, s)
	if info := x.Info(); !info.External || len(info.Endpoints) != 1 || info.Endpoints[0] != endpoint || info.KeyPrefix != "/registry/" {
		t.Errorf("info %+v", info)
	}
	ec := etcdClient(t, x)
	const jsonCM = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"from-json","namespace":"default"},"data":{"format":"json"}}`
	if _, err := ec.Put(ctx, "/registry/configmaps/default/from-json", jsonCM); err != nil {
		t.Fatal(err)
	}
	if _, err := ec.Put(ctx, "compact_rev_key", "1"); err != nil {
		t.Fatal(err)
	}
	tree, err := x.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string][]string{
		"/registry/configmaps/default/from-json": {"/registry", "configmaps", "default", "from-json"},
		"compact_rev_key":                        {"/registry", "other", "compact_rev_key"},
	} {
		if trail, exact := tree.Lookup(key); !exact || !slicesEqual(names(trail), want) {
			t.Errorf("Lookup(%s) = %v %v, want %v", key, names(trail), exact, want)
		}
	}
	v, err := x.Decode(ctx, "/registry/configmaps/default/from-json", etcdview.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.MediaType != "application/json" || v.StorageVersion() != "v1" || !strings.Contains(v.YAML, "format: json") || v.Key.Size != len(jsonCM) {
		t.Errorf("JSON value: %+v", v)
	}
	v, err = x.Decode(ctx, "compact_rev_key", etcdview.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Object() || v.Raw != "1" {
		t.Errorf("compact_rev_key: %+v", v)
	}

	// Compact past the tree's revision: a watch from there cannot be served.
	var put *clientv3.PutResponse
	for _, k := range []string{"after", "after-that"} {
		if put, err = ec.Put(ctx, "/registry/kubewalk-test/"+k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ec.Compact(ctx, put.Header.Revision); err != nil {
		t.Fatal(err)
	}
	changes, err := x.Watch(ctx, tree.Revision)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := nextChange(t, changes)
	if !ok || c.Err == nil || !strings.Contains(c.Err.Error(), "compacted") {
		t.Fatalf("watch from a compacted revision: %+v, open %v", c, ok)
	}
	if _, ok := nextChange(t, changes); ok {
		t.Error("the channel stays open after the error")
	}

	// The server closes under a watch: it ends with an error, and the explorer's calls fail.
	changes, err = x.Watch(ctx, put.Header.Revision)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c, ok = nextChange(t, changes)
	if !ok || !errors.Is(c.Err, server.ErrClosed) {
		t.Fatalf("watch when the server closed: %+v, open %v", c, ok)
	}
	if _, err := x.List(ctx); !errors.Is(err, server.ErrClosed) {
		t.Errorf("List after the server closed: %v", err)
	}
}

// goroutineInfo is what a goroutine's stack says about it: its top function and the goroutine
// that created it.
type goroutineInfo struct {
	top    string
	parent int
}

// goroutineCreators reads every goroutine's stack.
func goroutineCreators() map[int]goroutineInfo {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[int]goroutineInfo{}
	for _, block := range strings.Split(string(buf), "\n\n") {
		lines := strings.Split(block, "\n")
		var id int
		if _, err := fmt.Sscanf(lines[0], "goroutine %d", &id); err != nil || len(lines) < 2 {
			continue
		}
		g := goroutineInfo{parent: -1}
		if i := strings.LastIndex(lines[1], "("); i > 0 {
			g.top = lines[1][:i]
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "created by ") {
				if i := strings.LastIndex(l, " in goroutine "); i > 0 {
					fmt.Sscanf(l[i:], " in goroutine %d", &g.parent)
				}
			}
		}
		out[id] = g
	}
	return out
}

// serversOwn reports whether a goroutine started after the snapshot descends from one that
// was running before it (other than the test's own, me), following "created in goroutine"
// through the goroutines still running. A chain that breaks (a creator has exited) counts as
// the explorer's: the check errs towards reporting a leak.
func serversOwn(id int, now, before map[int]goroutineInfo, me int) bool {
	for range len(now) + 1 {
		p := now[id].parent
		if p == me {
			return false
		}
		if _, old := before[p]; old {
			return true
		}
		if _, running := now[p]; !running {
			return false
		}
		id = p
	}
	return false
}

// currentGoroutine is the calling goroutine's id.
func currentGoroutine() int {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	var id int
	fmt.Sscanf(string(buf), "goroutine %d", &id)
	return id
}
