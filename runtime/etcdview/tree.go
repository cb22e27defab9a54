package etcdview

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubewalk/kubewalk/server"
)

// Key is one etcd key with the metadata etcd keeps for it.
type Key struct {
	// Key is the full etcd key, e.g. "/registry/configmaps/default/x".
	Key string
	// CreateRevision is the etcd revision that created the key; for an object it is the
	// resourceVersion the object had when it was created.
	CreateRevision int64
	// ModRevision is the revision of the last write: an object's resourceVersion.
	ModRevision int64
	// Version counts the writes since the key was created (1 after the create).
	Version int64
	// Lease is the ID of the lease the key expires with, 0 for none. Events have one: they
	// expire an hour after their last write. A listing reads keys only, and etcd answers
	// that from its in-memory index, which has no leases (etcd storage/mvcc/kvstore_txn.go,
	// FastKeysOnly): Lease is 0 there; a watch event and Decode know it.
	Lease int64
	// Size is the value's size in bytes, or -1 when it is not known: a listing reads keys
	// only (see Explorer.List); a watch event and Decode know it.
	Size int
}

// NodeKind says what a Node of a Tree stands for.
type NodeKind int

// The kinds of node.
const (
	// KindRoot is the tree's root: the key prefix, e.g. "/registry/".
	KindRoot NodeKind = iota
	// KindResource holds the keys of one REST store, e.g. configmaps or clusterroles.
	KindResource
	// KindNamespace holds the keys of one namespace within a namespaced resource.
	KindNamespace
	// KindObject is a key where a store keeps one object.
	KindObject
	// KindOther holds every listed key that is not an object of a store the server serves.
	KindOther
	// KindOtherKey is one such key: a key under the prefix that no store owns or whose shape
	// does not fit its store, or the apiserver's compact_rev_key (outside the prefix).
	KindOtherKey
)

// OtherID is the ID of the KindOther node.
const OtherID = "(other)"

// compactRevKey is where the apiserver's compactor keeps the last compaction's revision
// (k8s.io/apiserver/pkg/storage/etcd3/compact.go): at the root of the keyspace, not under the
// prefix, written at its first interval (5 minutes).
const compactRevKey = "compact_rev_key"

// Node is one node of a Tree: a group of keys or, at a leaf, one key.
type Node struct {
	Kind NodeKind
	// Name is what to show: the prefix for the root ("/registry"), the resource's key prefix
	// below the root ("configmaps"), the namespace, the object's name, "other", or for other
	// keys the key below the root (the full key when outside it).
	Name string
	// ID identifies the node in its tree and across trees of the same explorer: the key for
	// a leaf, the key prefix ending in "/" for the root, a resource or a namespace, and
	// OtherID for the other group.
	ID string
	// Resource is the store's group and resource, on resource, namespace and object nodes.
	Resource schema.GroupResource
	// Namespace is set on namespace nodes and on objects of namespaced resources.
	Namespace string
	// Key is set on leaves (KindObject, KindOtherKey) only.
	Key *Key
	// Count is the number of keys at or below the node.
	Count int
	// Children are sorted by ID (which is etcd's key order), except the root's: the
	// resources sorted by ID, then the other group.
	Children []*Node

	parent  *Node
	deleted bool // marked by Apply until it compacts the parent's children
}

// Leaf reports whether the node is one key.
func (n *Node) Leaf() bool { return n.Key != nil }

// Tree is the keys of etcd grouped as the server stores them: resource › namespace › object
// (resource › object for cluster-scoped resources), with every resource the server serves
// present even when it holds no key, and the keys that are not objects under "other".
//
// A Tree is a plain value owned by its caller and not safe for concurrent use: Explorer.List
// returns a fresh one; Apply updates it with a watch's changes.
type Tree struct {
	// Root is the key prefix's node; its children are the resources and the other group.
	Root *Node
	// Revision is the etcd revision of the listing: Watch from here to keep the tree
	// current. Apply raises it to each change's Revision.
	Revision int64

	layout    *layout
	resources map[string]*Node // by key prefix
	other     *Node
}

// layout is where the server's stores keep their keys.
type layout struct {
	root      string                // e.g. "/registry/"
	resources []server.EtcdResource // longest key prefix first, for matching
}

func newLayout(root string, resources []server.EtcdResource) *layout {
	l := &layout{root: root, resources: slices.Clone(resources)}
	slices.SortStableFunc(l.resources, func(a, b server.EtcdResource) int {
		return cmp.Compare(len(b.KeyPrefix), len(a.KeyPrefix))
	})
	return l
}

// newTree returns a tree with the root, one node per resource and the other group, and no key.
func newTree(l *layout) *Tree {
	t := &Tree{layout: l, resources: map[string]*Node{}}
	t.Root = &Node{Kind: KindRoot, Name: strings.TrimSuffix(l.root, "/"), ID: l.root}
	if t.Root.Name == "" {
		t.Root.Name = "/"
	}
	for _, r := range l.resources {
		n := &Node{
			Kind:     KindResource,
			Name:     strings.TrimSuffix(strings.TrimPrefix(r.KeyPrefix, l.root), "/"),
			ID:       r.KeyPrefix,
			Resource: r.Resource,
			parent:   t.Root,
		}
		t.resources[r.KeyPrefix] = n
		t.Root.Children = append(t.Root.Children, n)
	}
	slices.SortFunc(t.Root.Children, byID)
	t.other = &Node{Kind: KindOther, Name: "other", ID: OtherID, parent: t.Root}
	t.Root.Children = append(t.Root.Children, t.other)
	return t
}

func byID(a, b *Node) int { return strings.Compare(a.ID, b.ID) }

// search finds the child with id among children sorted by ID.
func search(children []*Node, id string) (int, bool) {
	return slices.BinarySearchFunc(children, id, func(n *Node, id string) int { return strings.Compare(n.ID, id) })
}

// Len returns the number of keys in the tree.
func (t *Tree) Len() int { return t.Root.Count }

// place finds where key belongs: its parent node (a namespace, created when create is set; a
// resource; or the other group), the leaf's kind and name, and its namespace. parent is nil
// only for a namespaced key whose namespace node does not exist and create is not set; then
// nearest is the resource node.
func (t *Tree) place(key string, create bool) (parent, nearest *Node, kind NodeKind, name, namespace string) {
	if !strings.HasPrefix(key, t.layout.root) {
		return t.other, t.other, KindOtherKey, key, ""
	}
	for _, r := range t.layout.resources {
		if !strings.HasPrefix(key, r.KeyPrefix) {
			continue
		}
		rn := t.resources[r.KeyPrefix]
		sub := key[len(r.KeyPrefix):]
		if !r.Namespaced {
			if sub != "" && !strings.Contains(sub, "/") {
				return rn, rn, KindObject, sub, ""
			}
			break
		}
		ns, name, ok := strings.Cut(sub, "/")
		if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
			break
		}
		nsID := r.KeyPrefix + ns + "/"
		i, found := search(rn.Children, nsID)
		if !found {
			if !create {
				return nil, rn, KindObject, name, ns
			}
			nn := &Node{Kind: KindNamespace, Name: ns, ID: nsID, Resource: r.Resource, Namespace: ns, parent: rn}
			rn.Children = slices.Insert(rn.Children, i, nn)
		}
		return rn.Children[i], rn.Children[i], KindObject, name, ns
	}
	return t.other, t.other, KindOtherKey, key[len(t.layout.root):], ""
}

// newLeaf makes the leaf of k under parent.
func newLeaf(parent *Node, kind NodeKind, name, namespace string, k Key) *Node {
	return &Node{Kind: kind, Name: name, ID: k.Key, Resource: parent.Resource, Namespace: namespace, Key: &k, Count: 1, parent: parent}
}

// add inserts a key while a listing builds the tree. Keys come in etcd's order, so a leaf
// usually goes at the end of its parent's children.
func (t *Tree) add(k Key) {
	parent, _, kind, name, ns := t.place(k.Key, true)
	leaf := newLeaf(parent, kind, name, ns, k)
	c := parent.Children
	if n := len(c); n == 0 || c[n-1].ID < k.Key {
		parent.Children = append(c, leaf)
	} else if i, found := search(c, k.Key); found {
		c[i].Key = leaf.Key
		return
	} else {
		parent.Children = slices.Insert(c, i, leaf)
	}
	for n := parent; n != nil; n = n.parent {
		n.Count++
	}
}

// Apply updates the tree with a change from Watch — apply them in the order Watch delivers
// them: puts add or update leaves, deletions remove them (and a namespace node left empty). An
// event no newer than the leaf it would change is skipped, so applying a change twice in a
// row is harmless. A change carrying only Err changes nothing. Its cost is linear in the sizes
// of the groups it touches.
func (t *Tree) Apply(c Change) {
	// The last event of each key wins (a Change from Watch has one per key already).
	last := make(map[string]int, len(c.Events))
	for i, ev := range c.Events {
		last[ev.Key.Key] = i
	}
	dirty := map[*Node]bool{}
	for i, ev := range c.Events {
		if last[ev.Key.Key] != i {
			continue
		}
		parent, _, kind, name, ns := t.place(ev.Key.Key, !ev.Deleted)
		if parent == nil {
			continue // a deletion in a namespace the tree does not show
		}
		j, found := search(parent.Children, ev.Key.Key)
		if found && parent.Children[j].Key.ModRevision >= ev.Key.ModRevision {
			continue // already applied
		}
		switch {
		case found && ev.Deleted:
			parent.Children[j].deleted = true
			dirty[parent] = true
		case found:
			k := ev.Key
			parent.Children[j].Key = &k
			parent.Children[j].deleted = false
		case !ev.Deleted:
			// Appended out of order: the children are sorted again below. No later event
			// of this batch looks for this key (one event per key).
			parent.Children = append(parent.Children, newLeaf(parent, kind, name, ns, ev.Key))
			dirty[parent] = true
		}
	}
	for n := range dirty {
		n.Children = slices.DeleteFunc(n.Children, func(c *Node) bool { return c.deleted })
		if !slices.IsSortedFunc(n.Children, byID) {
			slices.SortFunc(n.Children, byID)
		}
		if n.Kind == KindNamespace && len(n.Children) == 0 {
			p := n.parent
			if j, found := search(p.Children, n.ID); found {
				p.Children = slices.Delete(p.Children, j, j+1)
			}
		}
	}
	for n := range dirty {
		for ; n != nil; n = n.parent {
			n.Count = 0
			for _, c := range n.Children {
				n.Count += c.Count
			}
		}
	}
	t.Revision = max(t.Revision, c.Revision)
}

// Lookup finds the node of an etcd key, as a trace's storage stage names it: an object's key
// ("/registry/configmaps/default/x"), a namespace's or resource's prefix, with or without the
// trailing "/" ("/registry/configmaps/default", "/registry/configmaps/"), or another key. It
// returns the trail from the root to that node, and exact true; for a key the tree does not
// hold (deleted, or not yet seen) the trail to the nearest group that would hold it, and false.
func (t *Tree) Lookup(key string) (trail []*Node, exact bool) {
	group := strings.TrimSuffix(key, "/") + "/"
	switch {
	case group == t.Root.ID || key == t.Root.ID:
		return trailOf(t.Root), true
	case key == OtherID:
		return trailOf(t.other), true
	}
	if rn := t.resources[group]; rn != nil {
		return trailOf(rn), true
	}
	parent, nearest, _, _, _ := t.place(key, false)
	if parent != nil {
		if i, found := search(parent.Children, key); found {
			return trailOf(parent.Children[i]), true
		}
	}
	for _, r := range t.layout.resources {
		if r.Namespaced && strings.HasPrefix(group, r.KeyPrefix) && strings.Count(group[len(r.KeyPrefix):], "/") == 1 {
			rn := t.resources[r.KeyPrefix]
			if i, found := search(rn.Children, group); found {
				return trailOf(rn.Children[i]), true
			}
			return trailOf(rn), false
		}
	}
	if parent == nil {
		return trailOf(nearest), false
	}
	return trailOf(parent), false
}

// trailOf returns the nodes from the root down to n.
func trailOf(n *Node) []*Node {
	var out []*Node
	for ; n != nil; n = n.parent {
		out = append(out, n)
	}
	slices.Reverse(out)
	return out
}
