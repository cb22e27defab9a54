package etcd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// fakeBrowser is a Browser over a sorted in-memory map; listErrs are returned by the first
// List calls, one each.
type fakeBrowser struct {
	mu       sync.Mutex
	keys     map[string]Key
	rev      int64
	watches  []chan Change
	lists    int
	decodes  int
	listErrs []error
	// dataLines is how many lines of data each decoded value has beyond one.
	dataLines int
}

func newFake(keys ...string) *fakeBrowser {
	e := &fakeBrowser{keys: map[string]Key{}}
	for _, k := range keys {
		e.rev++
		e.keys[k] = Key{Key: k, CreateRevision: e.rev, ModRevision: e.rev, Version: 1, Size: 100 + len(k)}
	}
	return e
}

func (e *fakeBrowser) List(ctx context.Context, prefix string, limit int, after string) (Page, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.lists++
	if len(e.listErrs) > 0 {
		err := e.listErrs[0]
		e.listErrs = e.listErrs[1:]
		if err != nil {
			return Page{}, err
		}
	}
	var all []string
	for k := range e.keys {
		if strings.HasPrefix(k, prefix) && k > after {
			all = append(all, k)
		}
	}
	sort.Strings(all)
	page := Page{Revision: e.rev}
	for i, k := range all {
		if i == limit {
			page.Continue = page.Keys[len(page.Keys)-1].Key
			break
		}
		page.Keys = append(page.Keys, e.keys[k])
	}
	return page, nil
}

func (e *fakeBrowser) Decode(ctx context.Context, key string) (Value, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.decodes++
	k, ok := e.keys[key]
	if !ok {
		return Value{}, fmt.Errorf("%s: not found", key)
	}
	res, ns, name := SplitKey(key)
	y := fmt.Sprintf("apiVersion: v1\nkind: %s\nmetadata:\n  name: %s\n", strings.TrimSuffix(res, "s"), name)
	if ns != "" {
		y += "  namespace: " + ns + "\n"
	}
	y += fmt.Sprintf("  resourceVersion: \"%d\"\ndata:\n  a: b\n", k.ModRevision)
	for i := range e.dataLines {
		y += fmt.Sprintf("  k%d: v%d\n", i, i)
	}
	return Value{EtcdKey: k, Encoding: "protobuf (k8s\\x00 envelope)", YAML: y}, nil
}

func (e *fakeBrowser) Watch(ctx context.Context, afterRevision int64) <-chan Change {
	ch := make(chan Change, 64)
	e.mu.Lock()
	e.watches = append(e.watches, ch)
	e.mu.Unlock()
	return ch
}

// put writes a key and tells the watches.
func (e *fakeBrowser) put(key string) {
	e.mu.Lock()
	e.rev++
	k, ok := e.keys[key]
	if !ok {
		k = Key{Key: key, CreateRevision: e.rev}
	}
	k.ModRevision, k.Version, k.Size = e.rev, k.Version+1, 120+len(key)
	e.keys[key] = k
	ws := e.watches
	e.mu.Unlock()
	for _, w := range ws {
		w <- Change{Key: k}
	}
}

// del deletes a key and tells the watches.
func (e *fakeBrowser) del(key string) {
	e.mu.Lock()
	e.rev++
	k := e.keys[key]
	delete(e.keys, key)
	k.ModRevision = e.rev
	ws := e.watches
	e.mu.Unlock()
	for _, w := range ws {
		w <- Change{Key: k, Deleted: true}
	}
}

// closeWatches ends every watch, as a failed watch does.
func (e *fakeBrowser) closeWatches() {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, w := range e.watches {
		close(w)
	}
	e.watches = nil
}

func (e *fakeBrowser) counts() (lists, decodes int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lists, e.decodes
}
