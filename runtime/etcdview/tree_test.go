package etcdview

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubewalk/kubewalk/server"
)

// testLayout is the layout of kubewalk's server for a few resources, as server.EtcdAccess
// reports it.
func testLayout() *layout {
	rbac := "rbac.authorization.k8s.io"
	return newLayout("/registry/", []server.EtcdResource{
		{Resource: schema.GroupResource{Resource: "namespaces"}, KeyPrefix: "/registry/namespaces/"},
		{Resource: schema.GroupResource{Resource: "configmaps"}, KeyPrefix: "/registry/configmaps/", Namespaced: true},
		{Resource: schema.GroupResource{Resource: "events"}, KeyPrefix: "/registry/events/", Namespaced: true},
		{Resource: schema.GroupResource{Group: rbac, Resource: "clusterroles"}, KeyPrefix: "/registry/clusterroles/"},
		{Resource: schema.GroupResource{Group: rbac, Resource: "roles"}, KeyPrefix: "/registry/roles/", Namespaced: true},
	})
}

func trailNames(trail []*Node) string {
	var out []string
	for _, n := range trail {
		out = append(out, n.Name)
	}
	return strings.Join(out, " › ")
}

// TestPlacement puts each kind of key where it belongs, and keys that fit no store under
// other.
func TestPlacement(t *testing.T) {
	for _, tc := range []struct {
		key, trail string
		kind       NodeKind
		resource   string
		namespace  string
	}{
		{"/registry/configmaps/default/x", "/registry › configmaps › default › x", KindObject, "configmaps", "default"},
		{"/registry/namespaces/kube-system", "/registry › namespaces › kube-system", KindObject, "namespaces", ""},
		{"/registry/clusterroles/admin", "/registry › clusterroles › admin", KindObject, "clusterroles.rbac.authorization.k8s.io", ""},
		{"/registry/roles/default/r", "/registry › roles › default › r", KindObject, "roles.rbac.authorization.k8s.io", "default"},
		{"/registry/events/default/x.17a2b3c4", "/registry › events › default › x.17a2b3c4", KindObject, "events", "default"},
		// Shapes the stores do not write.
		{"/registry/configmaps/x", "/registry › other › configmaps/x", KindOtherKey, "", ""},
		{"/registry/configmaps/a/b/c", "/registry › other › configmaps/a/b/c", KindOtherKey, "", ""},
		{"/registry/configmaps//x", "/registry › other › configmaps//x", KindOtherKey, "", ""},
		{"/registry/namespaces/a/b", "/registry › other › namespaces/a/b", KindOtherKey, "", ""},
		// Keys of resources kubewalk does not serve, as kube-apiserver writes them.
		{"/registry/masterleases/10.0.0.1", "/registry › other › masterleases/10.0.0.1", KindOtherKey, "", ""},
		{"/registry/rolesx/default/r", "/registry › other › rolesx/default/r", KindOtherKey, "", ""},
		{"compact_rev_key", "/registry › other › compact_rev_key", KindOtherKey, "", ""},
	} {
		t.Run(tc.key, func(t *testing.T) {
			tree := newTree(testLayout())
			tree.add(Key{Key: tc.key, ModRevision: 7})
			trail, exact := tree.Lookup(tc.key)
			n := trail[len(trail)-1]
			if !exact || trailNames(trail) != tc.trail || n.Kind != tc.kind || n.Resource.String() != tc.resource ||
				n.Namespace != tc.namespace || n.ID != tc.key || n.Key.ModRevision != 7 {
				t.Errorf("Lookup = %s (exact %v), node %+v; want %s", trailNames(trail), exact, n, tc.trail)
			}
			for _, a := range trail {
				if a.Count != 1 {
					t.Errorf("%s counts %d keys, want 1", a.Name, a.Count)
				}
			}
		})
	}
}

// TestLookup finds groups by the prefixes a trace names, and the nearest group of a key the
// tree does not hold.
func TestLookup(t *testing.T) {
	tree := newTree(testLayout())
	for _, k := range []string{"/registry/configmaps/default/a", "/registry/configmaps/default/b", "/registry/namespaces/default", "/registry/configmaps/x"} {
		tree.add(Key{Key: k, ModRevision: 2})
	}
	for _, tc := range []struct {
		key, trail string
		exact      bool
	}{
		{"/registry/configmaps/default/a", "/registry › configmaps › default › a", true},
		{"/registry/configmaps/default", "/registry › configmaps › default", true},
		{"/registry/configmaps/default/", "/registry › configmaps › default", true},
		{"/registry/configmaps", "/registry › configmaps", true},
		{"/registry/configmaps/", "/registry › configmaps", true},
		{"/registry/", "/registry", true},
		{"/registry", "/registry", true},
		{OtherID, "/registry › other", true},
		{"/registry/configmaps/x", "/registry › other › configmaps/x", true},
		{"/registry/configmaps/default/gone", "/registry › configmaps › default", false},
		{"/registry/configmaps/kube-system/c", "/registry › configmaps", false},
		{"/registry/configmaps/kube-system", "/registry › configmaps", false},
		{"/registry/namespaces/gone", "/registry › namespaces", false},
		{"/registry/unknown/x", "/registry › other", false},
	} {
		trail, exact := tree.Lookup(tc.key)
		if trailNames(trail) != tc.trail || exact != tc.exact {
			t.Errorf("Lookup(%q) = %s, %v; want %s, %v", tc.key, trailNames(trail), exact, tc.trail, tc.exact)
		}
	}
}

// TestApply updates a tree with changes as Watch delivers them: the counts follow, an emptied
// namespace goes, a resource stays, a repeated or stale change does nothing.
func TestApply(t *testing.T) {
	tree := newTree(testLayout())
	for _, k := range []string{"/registry/configmaps/default/a", "/registry/configmaps/default/b", "/registry/configmaps/kube-system/c"} {
		tree.add(Key{Key: k, CreateRevision: 2, ModRevision: 2, Version: 1, Size: -1})
	}
	tree.Revision = 2
	put := func(k string, rev int64) Event {
		return Event{Key: Key{Key: k, CreateRevision: rev, ModRevision: rev, Version: 1, Size: 10}}
	}
	del := func(k string, rev int64) Event { return Event{Deleted: true, Key: Key{Key: k, ModRevision: rev}} }
	count := func(key string) int {
		trail, exact := tree.Lookup(key)
		if !exact {
			return -1
		}
		return trail[len(trail)-1].Count
	}

	steps := []struct {
		name    string
		change  Change
		counts  map[string]int // -1: absent
		visible []string       // configmaps' children, in order
	}{
		{"add in a new namespace and an existing one",
			Change{Revision: 3, Events: []Event{put("/registry/configmaps/app/z", 3), put("/registry/configmaps/default/0", 3)}},
			map[string]int{"/registry/": 5, "/registry/configmaps/": 5, "/registry/configmaps/app": 1, "/registry/configmaps/default": 3},
			[]string{"app", "default", "kube-system"}},
		{"update keeps the count",
			Change{Revision: 4, Events: []Event{{Key: Key{Key: "/registry/configmaps/default/a", CreateRevision: 2, ModRevision: 4, Version: 2, Size: 12}}}},
			map[string]int{"/registry/": 5, "/registry/configmaps/default": 3},
			[]string{"app", "default", "kube-system"}},
		{"delete the last key of a namespace",
			Change{Revision: 5, Events: []Event{del("/registry/configmaps/kube-system/c", 5), del("/registry/configmaps/nowhere/x", 5)}},
			map[string]int{"/registry/": 4, "/registry/configmaps/": 4, "/registry/configmaps/kube-system": -1},
			[]string{"app", "default"}},
		{"a stale put is skipped",
			Change{Revision: 5, Events: []Event{put("/registry/configmaps/default/a", 3)}},
			map[string]int{"/registry/": 4},
			[]string{"app", "default"}},
		{"the last event of a key wins",
			Change{Revision: 7, Events: []Event{put("/registry/configmaps/default/n", 6), del("/registry/configmaps/default/n", 7), del("/registry/configmaps/app/z", 7)}},
			map[string]int{"/registry/": 3, "/registry/configmaps/default/n": -1, "/registry/configmaps/app": -1},
			[]string{"default"}},
		{"other keys",
			Change{Revision: 8, Events: []Event{put("compact_rev_key", 8), put("/registry/x/y", 8)}},
			map[string]int{"/registry/": 5, OtherID: 2, "/registry/configmaps/": 3},
			[]string{"default"}},
	}
	for _, st := range steps {
		for range 2 { // a change applied twice in a row changes nothing more
			tree.Apply(st.change)
			for key, want := range st.counts {
				if got := count(key); got != want {
					t.Errorf("%s: count(%s) = %d, want %d", st.name, key, got, want)
				}
			}
			var got []string
			for _, c := range tree.resources["/registry/configmaps/"].Children {
				got = append(got, c.Name)
			}
			if strings.Join(got, ",") != strings.Join(st.visible, ",") {
				t.Errorf("%s: configmaps › %v, want %v", st.name, got, st.visible)
			}
			if tree.Revision != st.change.Revision {
				t.Errorf("%s: revision %d", st.name, tree.Revision)
			}
		}
	}
	trail, _ := tree.Lookup("/registry/configmaps/default/a")
	if k := trail[len(trail)-1].Key; k.ModRevision != 4 || k.Version != 2 || k.Size != 12 {
		t.Errorf("updated key %+v", k)
	}
	var ids []string
	for _, c := range tree.resources["/registry/configmaps/"].Children[0].Children {
		ids = append(ids, c.Name)
	}
	if strings.Join(ids, ",") != "0,a,b" {
		t.Errorf("default's keys %v, want sorted 0,a,b", ids)
	}
}

// TestMailboxCoalesces: while the consumer does not read, everything the watch reports piles up
// in one change — at most one was taken before the consumer came — and a key's last event wins.
func TestMailboxCoalesces(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	m := &mailbox{pending: map[string]Event{}, signal: make(chan struct{}, 1)}
	out := make(chan Change)
	done := make(chan struct{})
	go func() {
		defer close(done)
		deliver(ctx, m, out)
	}()
	const n = 1000
	for i := range n {
		m.add([]Event{{Key: Key{Key: fmt.Sprintf("k%04d", i), ModRevision: int64(i + 1)}}}, int64(i+1))
	}
	m.add([]Event{{Deleted: true, Key: Key{Key: "k0500", ModRevision: n + 1}}}, n+1)

	seen := map[string]Event{}
	var changes int
	for len(seen) < n || !seen["k0500"].Deleted {
		select {
		case c := <-out:
			changes++
			for _, ev := range c.Events {
				seen[ev.Key.Key] = ev
			}
		case <-time.After(time.Minute): // a hang guard
			t.Fatalf("after %d changes, %d keys seen", changes, len(seen))
		}
	}
	if changes > 2 {
		t.Errorf("%d changes for writes made while nobody read, want at most 2", changes)
	}
	if !seen["k0500"].Deleted {
		t.Errorf("k0500: %+v, want its deletion", seen["k0500"])
	}
	m.fail(fmt.Errorf("watch failed"))
	if c := <-out; c.Err == nil {
		t.Errorf("after fail: %+v", c)
	}
	<-done // deliver ends after sending the error
	cancel()
}

// BenchmarkApply applies one coalesced change of 10,000 new keys in one namespace, then one
// deleting them all: the worst a watch hands the TUI's update loop at once.
func BenchmarkApply(b *testing.B) {
	puts := Change{Revision: 2}
	dels := Change{Revision: 3}
	for i := range 10_000 {
		k := fmt.Sprintf("/registry/configmaps/default/cm-%05d", i)
		puts.Events = append(puts.Events, Event{Key: Key{Key: k, CreateRevision: 2, ModRevision: 2, Version: 1, Size: 100}})
		dels.Events = append(dels.Events, Event{Deleted: true, Key: Key{Key: k, ModRevision: 3}})
	}
	for b.Loop() {
		tree := newTree(testLayout())
		tree.Revision = 1
		tree.Apply(puts)
		tree.Apply(dels)
		if tree.Len() != 0 {
			b.Fatalf("%d keys left", tree.Len())
		}
	}
}
