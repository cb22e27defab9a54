package server

// This file holds what the storage phase builds (storageState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage"
)

// restStore is one REST storage in install order.
type restStore struct {
	GroupVersion schema.GroupVersion
	Resource     string // "pods" or "pods/status"
	Storage      rest.Storage
}

// storageState is what the storage phase builds.
type storageState struct {
	embedded   *embed.Etcd
	etcdConfig embed.Config // a copy, taken once etcd was ready, for the raw view
	closeEtcd  func() error
	endpoints  []string
	dataDir    string
	external   bool
	client     *clientv3.Client // for the state tree: members and status

	factory *serverstorage.DefaultStorageFactory
	etcd    *options.EtcdOptions
	getter  *recordingGetter

	stores []restStore
	views  []*storeView // what the raw view shows of the stores
}

// storeView is what the raw view shows of one REST store: the parts of its
// genericregistry.Store that nothing writes once the storage phase has built it. The store
// itself is not offered: its storage.Interface is a watch cache over the etcd3 store whose
// goroutines write it all the time, and the store reaches it from several fields.
type storeView struct {
	Resource                  string
	REST                      string // the REST storage's type, e.g. *configmap.REST
	Storage                   string // the storage.Interface's type: the watch cache's
	DefaultQualifiedResource  schema.GroupResource
	SingularQualifiedResource schema.GroupResource
	KeyRoot                   string // the etcd key prefix of the resource, below the storage prefix
	EnableGarbageCollection   bool
	ReturnDeletedObject       bool
	CreateStrategy            rest.RESTCreateStrategy
	UpdateStrategy            rest.RESTUpdateStrategy
	DeleteStrategy            rest.RESTDeleteStrategy
	ResetFieldsStrategy       rest.ResetFieldsStrategy
	TableConvertor            rest.TableConvertor
	StorageVersioner          runtime.GroupVersioner
	Codec                     runtime.Codec
}

// storeViews makes a view of each store built on a genericregistry.Store (subresources such as
// pods/status share their resource's store and are left out).
func storeViews(stores []restStore) []*storeView {
	var out []*storeView
	for _, rs := range stores {
		gs := genericStore(reflect.ValueOf(rs.Storage))
		if gs == nil {
			continue
		}
		out = append(out, &storeView{
			Resource:                  rs.Resource,
			REST:                      fmt.Sprintf("%T", rs.Storage),
			Storage:                   storageType(gs.Storage.Storage),
			DefaultQualifiedResource:  gs.DefaultQualifiedResource,
			SingularQualifiedResource: gs.SingularQualifiedResource,
			KeyRoot:                   gs.KeyRootFunc(genericapirequest.NewContext()),
			EnableGarbageCollection:   gs.EnableGarbageCollection,
			ReturnDeletedObject:       gs.ReturnDeletedObject,
			CreateStrategy:            gs.CreateStrategy,
			UpdateStrategy:            gs.UpdateStrategy,
			DeleteStrategy:            gs.DeleteStrategy,
			ResetFieldsStrategy:       gs.ResetFieldsStrategy,
			TableConvertor:            gs.TableConvertor,
			StorageVersioner:          gs.StorageVersioner,
			Codec:                     gs.Storage.Codec,
		})
	}
	return out
}

// storageType names the type of a store's storage.Interface, looking through the decorator
// that records requests.
func storageType(s storage.Interface) string {
	if u, ok := s.(interface{ Unwrap() storage.Interface }); ok {
		return fmt.Sprintf("%T (recorded by observe.StorageDecorator)", u.Unwrap())
	}
	return fmt.Sprintf("%T", s)
}

// genericStore finds the *genericregistry.Store a REST storage is built on: a registry REST
// type embeds it as Store; rbac's escalation checks embed the REST storage they decorate.
func genericStore(v reflect.Value) *genericregistry.Store {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		if gs, ok := v.Interface().(*genericregistry.Store); ok {
			return gs
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	for _, name := range []string{"Store", "StandardStorage"} {
		if f, ok := v.Type().FieldByName(name); ok && f.Anonymous && f.IsExported() {
			return genericStore(v.FieldByIndex(f.Index))
		}
	}
	return nil
}

// liveObjects lists the storage phase's objects the raw view may read now. The embedded etcd
// server is never offered: its raft, backend and compaction goroutines write it from the
// moment it starts. Its configuration is, as copied once etcd was ready. The REST stores are
// never offered either: each starts a watch cache (a reflector over etcd, an event
// dispatcher, a progress requester) and a count observer that write it.
func (st *storageState) liveObjects(r running) []LiveObject {
	var out []LiveObject
	if st.embedded != nil {
		out = append(out, LiveObject{"storage.etcdConfig", &st.etcdConfig,
			"a copy of embed.Etcd's configuration taken once etcd was ready; nothing writes the copy"})
	}
	if st.factory != nil {
		out = append(out, LiveObject{"storage.factory", st.factory,
			"built by the storage phase; building each store only reads it, and so does everything after"})
	}
	for _, v := range st.views {
		out = append(out, LiveObject{"storage.store." + v.Resource, v,
			"a view of the store made by the storage phase, without its watch cache: strategies, codec and versioner are only read"})
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
	if s, ok := rs.Storage.(interface{ StateSummary() string }); ok {
		return s.StateSummary() // a subresource no store backs, such as pods/exec
	}
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
		storageKind(opts.StorageConfig.EncodeVersioner, rs.Storage.New(), scheme), storageMediaTypeOf(gr))
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
