// Package etcdview explores what the running server keeps in etcd: the keys under its prefix
// grouped as a tree by resource and namespace, each stored value decoded with the server's own
// codecs, and live changes through an etcd watch.
//
// Everything here is plain Go — contexts and channels — and New, List, Decode and receiving
// from Watch's channel block on etcd: a TUI calls them from its commands (tea.Cmd), never from
// its update loop. Tree.Apply and Tree.Lookup do not block: the update loop, which owns its
// Tree, calls them. The explorer reads only; it never writes etcd.
//
// A typical view:
//
//	x, err := etcdview.New(srv) // fails with server.ErrEtcdNotReady before the storage phase
//	tree, err := x.List(ctx)    // keys only, paged: 10,000 keys in some tens of milliseconds
//	changes, err := x.Watch(ctx, tree.Revision)
//	c, ok := <-changes          // in a tea.Cmd; then, in Update:
//	tree.Apply(c)               // c.Err set: the watch has ended; List again
//	trail, exact := tree.Lookup("/registry/configmaps/default/x") // from a trace's storage stage
//	v, err := x.Decode(ctx, key, etcdview.DecodeOptions{})       // YAML, size, media type
//	x.Close()                   // stops the watches; no goroutine is left
package etcdview

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubewalk/kubewalk/server"
)

// PageSize is how many keys one listing request reads.
const PageSize = 500

// ErrNotFound is returned (wrapped) by Decode for a key etcd does not hold.
var ErrNotFound = errors.New("no such key in etcd")

// ErrClosed is returned (wrapped) by an Explorer's calls after Close.
var ErrClosed = errors.New("etcd explorer is closed")

// Redacted replaces each secret value Decode hides.
const Redacted = "<redacted>"

// lastApplied is the annotation kubectl apply writes: for a Secret it holds the data in clear.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Explorer reads the server's etcd. It is safe for concurrent use. Close it when done.
type Explorer struct {
	etcd    *server.EtcdAccess
	layout  *layout
	secrets []string // key prefixes of the stores that hold Secrets

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup // the watches' goroutines
}

// New returns an explorer of the server's etcd. It fails, wrapping server.ErrEtcdNotReady,
// until the storage phase has built its REST stores, and wrapping server.ErrClosed once the
// server is closed. The explorer works as long as the server runs; close it before or after
// the server.
func New(s *server.Server) (*Explorer, error) {
	acc, err := s.Etcd()
	if err != nil {
		return nil, fmt.Errorf("etcd explorer: %w", err)
	}
	x := &Explorer{etcd: acc, layout: newLayout(acc.KeyPrefix(), acc.Resources())}
	for _, r := range acc.Resources() {
		if r.Resource == (schema.GroupResource{Resource: "secrets"}) {
			x.secrets = append(x.secrets, r.KeyPrefix)
		}
	}
	x.ctx, x.cancel = context.WithCancel(context.Background())
	return x, nil
}

// Info says which etcd an explorer reads.
type Info struct {
	// KeyPrefix is the prefix of the server's keys (--etcd-prefix), ending in "/".
	KeyPrefix string
	// Endpoints are etcd's client URLs.
	Endpoints []string
	// External is true for --etcd-servers, false for the embedded etcd.
	External bool
}

// Info says which etcd the explorer reads.
func (x *Explorer) Info() Info {
	return Info{KeyPrefix: x.etcd.KeyPrefix(), Endpoints: x.etcd.Endpoints(), External: x.etcd.External()}
}

// bind returns a context that ends with ctx or with Close, or ErrClosed.
func (x *Explorer) bind(ctx context.Context) (context.Context, context.CancelFunc, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, nil, ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(x.ctx, cancel)
	return ctx, func() { stop(); cancel() }, nil
}

// List reads every key under the prefix, and the apiserver's compact_rev_key, into a new Tree.
// It reads keys only — no values, so Key.Size is -1 — a page of PageSize keys per
// request, every page at the revision of the first, so the tree is one consistent snapshot
// (Tree.Revision). A listing outlived by an etcd compaction (the apiserver compacts every five
// minutes) fails; list again.
func (x *Explorer) List(ctx context.Context) (*Tree, error) {
	ctx, cancel, err := x.bind(ctx)
	if err != nil {
		return nil, fmt.Errorf("etcd list: %w", err)
	}
	defer cancel()
	t := newTree(x.layout)
	root := x.layout.root
	end := clientv3.GetPrefixRangeEnd(root)
	var rev int64
	for from := root; ; {
		opts := []clientv3.OpOption{clientv3.WithRange(end), clientv3.WithKeysOnly(), clientv3.WithLimit(PageSize)}
		if rev != 0 {
			opts = append(opts, clientv3.WithRev(rev))
		}
		resp, err := x.etcd.Get(ctx, from, opts...)
		if err != nil {
			return nil, fmt.Errorf("etcd list %s (from %q, revision %d): %w", root, from, rev, err)
		}
		if rev == 0 {
			rev = resp.Header.Revision
		}
		for _, kv := range resp.Kvs {
			t.add(keyOf(kv, -1))
		}
		if !resp.More || len(resp.Kvs) == 0 {
			break
		}
		from = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
	resp, err := x.etcd.Get(ctx, compactRevKey, clientv3.WithKeysOnly(), clientv3.WithRev(rev))
	if err != nil {
		return nil, fmt.Errorf("etcd list %s (revision %d): %w", compactRevKey, rev, err)
	}
	for _, kv := range resp.Kvs {
		t.add(keyOf(kv, -1))
	}
	t.Revision = rev
	return t, nil
}

// keyValue is the part of etcd's mvccpb.KeyValue the explorer reads (named through its
// getters: the explorer needs no more of etcd's API module than the client offers).
type keyValue interface {
	GetKey() []byte
	GetCreateRevision() int64
	GetModRevision() int64
	GetVersion() int64
	GetLease() int64
}

// keyOf converts etcd's key-value metadata; size -1 means unknown.
func keyOf(kv keyValue, size int) Key {
	return Key{
		Key:            string(kv.GetKey()),
		CreateRevision: kv.GetCreateRevision(),
		ModRevision:    kv.GetModRevision(),
		Version:        kv.GetVersion(),
		Lease:          kv.GetLease(),
		Size:           size,
	}
}

// DecodeOptions choose what Decode shows.
type DecodeOptions struct {
	// RevealSecrets shows a Secret's data as etcd holds it. By default Decode replaces each
	// value of a Secret's data and stringData, and its kubectl last-applied-configuration
	// annotation (which repeats the data), with Redacted, and shows no raw bytes of a key
	// under the secrets prefix. The explorer shows what etcd holds, but a screen is often
	// shared — a workshop projector, a screenshot in a question — and the traces promise
	// never to show secret data; so revealing is one explicit step, taken per decode.
	RevealSecrets bool
}

// Value is one key's stored value, decoded.
type Value struct {
	// Key is the key with its metadata; Size is the raw value's size in bytes.
	Key Key
	// MediaType is the encoding the server's serializers recognised:
	// "application/vnd.kubernetes.protobuf" (what the server writes), "application/json", or
	// "" for bytes none of them recognises.
	MediaType string
	// GVK is the group, version and kind in the stored bytes: the storage version. Zero when
	// the value is not an object.
	GVK schema.GroupVersionKind
	// YAML is the object as YAML, exactly as stored (no conversion, no defaulting), with
	// secret values redacted unless revealed. Empty when the value is not an object.
	YAML string
	// Redacted says that secret values were hidden (see DecodeOptions).
	Redacted bool
	// NotObject says why the value is not a Kubernetes object (e.g. compact_rev_key holds a
	// revision number); "" for an object.
	NotObject string
	// Raw is a value that is not an object, as text when it is printable, else as a hex dump
	// (at most 4 KiB of it). Empty for objects, and for secrets unless revealed.
	Raw string
	// Unstructured says that no scheme of the server registers the object's kind, so it was
	// decoded from JSON as an unstructured object: a custom resource (see CRD).
	Unstructured bool
	// CRD is the CustomResourceDefinition whose prefix the key is under, read from etcd, for
	// an unstructured object; nil when none is stored there.
	CRD *CRD
}

// CRD is what Decode tells of the CustomResourceDefinition that defines a custom resource.
type CRD struct {
	// Name is the CRD's name, <plural>.<group>, e.g. "widgets.demo.example.com".
	Name string
	// Key is the etcd key the CRD is stored under.
	Key string
	// StorageVersion is the version of the CRD's spec.versions marked storage: the version
	// the apiextensions server writes the CRD's objects in (objects written before a change
	// of storage version keep the old one until written again).
	StorageVersion string
}

// crdPrefix is where the apiextensions server stores CRDs, below the key prefix: the group and
// resource of customresourcedefinitions, as genericoptions.SimpleStorageFactory makes a
// store's ResourcePrefix.
const crdPrefix = "apiextensions.k8s.io/customresourcedefinitions/"

// Object reports whether the value decoded to a Kubernetes object.
func (v Value) Object() bool { return v.NotObject == "" }

// StorageVersion returns the apiVersion in the stored bytes, e.g. "v1" or
// "rbac.authorization.k8s.io/v1"; "" when the value is not an object.
func (v Value) StorageVersion() string {
	if v.GVK.Empty() {
		return ""
	}
	return v.GVK.GroupVersion().String()
}

// Decode reads key's current value and decodes it with the server's own codecs (see
// server.EtcdAccess.Decode) into YAML. A value that is not an object is no error: Value says
// why and shows it raw. A key etcd does not hold fails with ErrNotFound.
func (x *Explorer) Decode(ctx context.Context, key string, opts DecodeOptions) (Value, error) {
	ctx, cancel, err := x.bind(ctx)
	if err != nil {
		return Value{}, fmt.Errorf("etcd decode %q: %w", key, err)
	}
	defer cancel()
	resp, err := x.etcd.Get(ctx, key)
	if err != nil {
		return Value{}, fmt.Errorf("etcd decode: %w", err)
	}
	if len(resp.Kvs) == 0 {
		return Value{}, fmt.Errorf("etcd decode %q: %w", key, ErrNotFound)
	}
	kv := resp.Kvs[0]
	v := Value{Key: keyOf(kv, len(kv.Value))}
	stored, err := x.etcd.Decode(kv.Value)
	v.MediaType = stored.MediaType
	if err != nil {
		v.NotObject = err.Error()
		if x.isSecretKey(key) && !opts.RevealSecrets {
			v.Redacted = true
		} else {
			v.Raw = rawText(kv.Value)
		}
		return v, nil
	}
	v.GVK = stored.GVK
	v.Unstructured = stored.Unstructured
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored.Object)
	if err != nil {
		return v, fmt.Errorf("etcd decode %q: %s to unstructured: %w", key, v.GVK.Kind, err)
	}
	if v.Unstructured {
		if v.CRD, err = x.crdOf(ctx, key); err != nil {
			return v, fmt.Errorf("etcd decode %q: %w", key, err)
		}
	}
	if !opts.RevealSecrets && (v.GVK.GroupKind() == schema.GroupKind{Kind: "Secret"} || x.isSecretKey(key)) {
		v.Redacted = redactSecret(u)
	}
	y, err := yaml.Marshal(u)
	if err != nil {
		return v, fmt.Errorf("etcd decode %q: %s to YAML: %w", key, v.GVK.Kind, err)
	}
	v.YAML = string(y)
	return v, nil
}

// crdOf returns the CRD whose objects' prefix key is under, read from etcd, or nil when there
// is none. The apiextensions server stores a custom resource under
// <key prefix><group>/<plural>/[<namespace>/]<name> (the ResourcePrefix group/resource
// genericoptions.SimpleStorageFactory gives each store), and the CRD that serves it is named
// <plural>.<group>. The explorer reads etcd, not the API: the CRD as stored is what the key
// belongs to, it is there whether or not the server serves yet, and the explorer holds no
// credentials to ask the server with.
func (x *Explorer) crdOf(ctx context.Context, key string) (*CRD, error) {
	rest, ok := strings.CutPrefix(key, x.layout.root)
	if !ok {
		return nil, nil
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || len(parts) > 4 || parts[0] == "" || parts[1] == "" {
		return nil, nil
	}
	name := parts[1] + "." + parts[0]
	crdKey := x.layout.root + crdPrefix + name
	resp, err := x.etcd.Get(ctx, crdKey)
	if err != nil {
		return nil, fmt.Errorf("reading its CRD: %w", err)
	}
	if len(resp.Kvs) == 0 {
		return nil, nil
	}
	stored, err := x.etcd.Decode(resp.Kvs[0].Value)
	if err != nil || stored.Unstructured || stored.GVK.Group != "apiextensions.k8s.io" || stored.GVK.Kind != "CustomResourceDefinition" {
		return nil, nil // not a CRD after all: say none defines it
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored.Object)
	if err != nil {
		return nil, fmt.Errorf("reading its CRD %s: %w", name, err)
	}
	return &CRD{Name: name, Key: crdKey, StorageVersion: storageVersion(u)}, nil
}

// storageVersion returns the name of the version a CRD (v1 or v1beta1, as a map) marks storage:
// spec.versions[].storage, or v1beta1's spec.version when it lists no versions.
func storageVersion(crd map[string]any) string {
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		m, _ := v.(map[string]any)
		if st, _ := m["storage"].(bool); st {
			name, _ := m["name"].(string)
			return name
		}
	}
	if len(versions) == 0 {
		name, _ := spec["version"].(string)
		return name
	}
	return ""
}

// isSecretKey reports whether key is under a store of Secrets.
func (x *Explorer) isSecretKey(key string) bool {
	for _, p := range x.secrets {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// redactSecret replaces the values of a Secret's data and stringData, and its last-applied
// annotation, with Redacted; it reports whether it replaced anything.
func redactSecret(u map[string]any) bool {
	redacted := false
	for _, field := range []string{"data", "stringData"} {
		m, ok := u[field].(map[string]any)
		if !ok {
			continue
		}
		for k := range m {
			m[k] = Redacted
			redacted = true
		}
	}
	if md, ok := u["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			if _, ok := ann[lastApplied]; ok {
				ann[lastApplied] = Redacted
				redacted = true
			}
		}
	}
	return redacted
}

// rawLimit bounds the hex dump of a value that is not text.
const rawLimit = 4 << 10

// rawText shows a value that is not an object: as text when it is printable UTF-8, else as a
// hex dump of its first rawLimit bytes.
func rawText(b []byte) string {
	printable := utf8.Valid(b)
	for _, r := range string(b) {
		if !printable {
			break
		}
		printable = unicode.IsPrint(r) || r == '\n' || r == '\t'
	}
	if printable {
		return string(b)
	}
	if len(b) > rawLimit {
		return hex.Dump(b[:rawLimit]) + fmt.Sprintf("… %d more bytes\n", len(b)-rawLimit)
	}
	return hex.Dump(b)
}

// Close stops the explorer's watches and waits for their goroutines to end. Calls after
// Close fail with ErrClosed. It is safe to call more than once.
func (x *Explorer) Close() error {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	x.cancel()
	x.wg.Wait()
	return nil
}

// sortEvents orders a change's events by key.
func sortEvents(evs []Event) {
	sort.Slice(evs, func(i, j int) bool { return evs[i].Key.Key < evs[j].Key.Key })
}
