package server

// This file holds what the storage phase builds (storageState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"context"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
)

// restStore is one REST storage in install order.
type restStore struct {
	GroupVersion schema.GroupVersion
	Resource     string // "pods" or "pods/status"
	Storage      rest.Storage
}

// storageState is what the storage phase builds.
type storageState struct {
	embedded  *embed.Etcd
	closeEtcd func() error
	endpoints []string
	dataDir   string
	external  bool
	client    *clientv3.Client // for the state tree: members and status

	factory *serverstorage.DefaultStorageFactory
	etcd    *options.EtcdOptions
	getter  *recordingGetter

	stores []restStore
}

// liveObjects lists the storage phase's objects for the raw view.
func (st *storageState) liveObjects() []LiveObject {
	out := []LiveObject{{"storage.factory", st.factory}}
	if st.embedded != nil {
		out = append(out, LiveObject{"storage.etcd", st.embedded})
	}
	for _, r := range st.stores {
		out = append(out, LiveObject{"storage.store." + r.Resource, r.Storage})
	}
	return out
}

func (st *storageState) describe(n *Node, prefix string, scheme *runtime.Scheme) {
	e := n.Add("etcd", "")
	if st.external {
		e.Add("mode", "external (--etcd-servers)")
	} else {
		e.Add("mode", "embedded (go.etcd.io/etcd/server/v3/embed)")
		e.Add("dataDir", st.dataDir)
	}
	e.Add("endpoints", strings.Join(st.endpoints, ", "))
	if st.client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if ml, err := st.client.MemberList(ctx); err == nil {
			m := e.Add("members", fmt.Sprintf("%d", len(ml.Members)))
			for _, mem := range ml.Members {
				m.Addf(mem.Name, "id %x, clients %s", mem.ID, strings.Join(mem.ClientURLs, ", "))
			}
		}
		if len(st.endpoints) > 0 {
			if status, err := st.client.Status(ctx, st.endpoints[0]); err == nil {
				e.Addf("status", "etcd %s, db %d bytes, raft index %d, leader %x", status.Version, status.DbSize, status.RaftIndex, status.Leader)
			}
		}
	}
	if st.factory != nil {
		f := n.Add("storageFactory", "serverstorage.DefaultStorageFactory")
		f.Add("prefix", prefix)
		f.Add("mediaType", st.factory.DefaultMediaType)
		f.Addf("watchCache", "%t", st.etcd.EnableWatchCache)
	}
	if len(st.stores) > 0 {
		r := n.Add("restStores", fmt.Sprintf("%d", len(st.stores)))
		for _, rs := range st.stores {
			r.Add(rs.Resource, st.storeSummary(rs, scheme))
		}
	}
}

// storeSummary says where a store keeps its objects and how it encodes them: the etcd key
// prefix, the group version and kind the store's EncodeVersioner writes, and the media type.
func (st *storageState) storeSummary(rs restStore, scheme *runtime.Scheme) string {
	resource := strings.Split(rs.Resource, "/")[0]
	gr := schema.GroupResource{Group: rs.GroupVersion.Group, Resource: resource}
	st.getter.mu.Lock()
	opts, ok := st.getter.seen[gr]
	st.getter.mu.Unlock()
	if !ok {
		return fmt.Sprintf("%T", rs.Storage)
	}
	if strings.Contains(rs.Resource, "/") {
		return fmt.Sprintf("subresource of %s, same etcd key", resource)
	}
	return fmt.Sprintf("key %s/%s/…, stored as %s in %s",
		opts.StorageConfig.Prefix, strings.TrimPrefix(opts.ResourcePrefix, "/"),
		storageKind(opts.StorageConfig.EncodeVersioner, rs.Storage.New(), scheme), st.factory.DefaultMediaType)
}

// storageKind names the group version and kind the versioner encodes obj as, e.g. "v1
// ConfigMap" or "rbac.authorization.k8s.io/v1 Role": the storage version.
func storageKind(v runtime.GroupVersioner, obj runtime.Object, scheme *runtime.Scheme) string {
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return fmt.Sprintf("? (%v)", err)
	}
	gvk, ok := v.KindForGroupVersionKinds(gvks)
	if !ok {
		return fmt.Sprintf("? (no storage version among %v)", gvks)
	}
	return strings.TrimPrefix(gvk.GroupVersion().String()+" "+gvk.Kind, "/")
}
