package etcd

import "context"

// Browser reads the keys the server stores in etcd (runtime/etcdview, wired by runtime/cli;
// runtime/tui calls it EtcdBrowser).
type Browser interface {
	// List returns up to limit keys under prefix in key order, starting after continueKey
	// ("" starts at the beginning). Page.Continue is "" when there are no more.
	List(ctx context.Context, prefix string, limit int, continueKey string) (Page, error)
	// Decode reads key and decodes its value with the server's own codecs.
	Decode(ctx context.Context, key string) (Value, error)
	// Watch reports every change under /registry after afterRevision (the Revision of the
	// listing's first page, so that nothing between the listing and the watch is missed),
	// until ctx ends or the watch fails (then the channel is closed).
	Watch(ctx context.Context, afterRevision int64) <-chan Change
}

// Key is one stored key with its metadata (no value).
type Key struct {
	// Key is the full key, e.g. /registry/configmaps/default/demo.
	Key string
	// CreateRevision and ModRevision are the etcd revisions that created and last changed
	// the key; Version counts its changes since it was created.
	CreateRevision, ModRevision, Version int64
	// Size is the stored value's size in bytes, -1 when the listing did not read it (a
	// listing reads keys only: etcd answers that from its index).
	Size int
}

// EtcdKey is Key under the name Value embeds it by: the field is Value.EtcdKey, as it was
// when these types lived in runtime/tui (runtime/cli fills Value{EtcdKey: …}).
type EtcdKey = Key

// Page is one page of a listing.
type Page struct {
	Keys []Key
	// Continue is the key to pass to the next List, "" when the listing is complete.
	Continue string
	// Revision is the store's revision the page was read at.
	Revision int64
}

// Value is a decoded value.
type Value struct {
	EtcdKey
	// Encoding says how the value is stored: "protobuf" (the k8s\x00 envelope), "json", or
	// what else the decoder recognised.
	Encoding string
	// YAML is the decoded object (secret data redacted).
	YAML string
}

// Change is one change a watch reports.
type Change struct {
	// Key is the key after the change (its metadata; Size is 0 for a delete).
	Key Key
	// Deleted is set when the key was removed.
	Deleted bool
}
