package server

// This file offers read-only access to the etcd the storage phase connected to, for an explorer
// of what the server stores (runtime/etcdview): the keys, their values and a decoder built from
// the server's own codecs. Nothing here writes to etcd.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/recognizer"
	"k8s.io/apiserver/pkg/registry/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"

	"github.com/kubewalk/kubewalk/server/apis"
)

// ErrEtcdNotReady is returned (wrapped) by Etcd before the storage phase has built its REST
// stores: until then there is no etcd to read, or no way yet to tell which keys hold which
// resource.
var ErrEtcdNotReady = errors.New("etcd is not ready: the storage phase has not built its REST stores yet")

// EtcdAccess is read-only access to the etcd the server stores its objects in — the embedded
// one or the --etcd-servers cluster — through the storage phase's own client. It is safe for
// concurrent use. It stays valid until the server is closed; after that its calls fail with
// ErrClosed.
type EtcdAccess struct {
	s         *Server
	client    *clientv3.Client
	keyPrefix string
	endpoints []string
	external  bool
	resources []EtcdResource
	codecs    serializer.CodecFactory
}

// EtcdResource says where one REST store keeps its objects.
type EtcdResource struct {
	// Resource is the store's group and resource, e.g. configmaps or
	// clusterroles.rbac.authorization.k8s.io.
	Resource schema.GroupResource
	// KeyPrefix is the etcd key prefix of its objects, ending in "/", e.g.
	// "/registry/configmaps/". A namespaced object's key is KeyPrefix+namespace+"/"+name, a
	// cluster-scoped one's KeyPrefix+name.
	KeyPrefix string
	// Namespaced tells which of the two key shapes the store writes.
	Namespaced bool
}

// StoredObject is an etcd value decoded by EtcdAccess.Decode.
type StoredObject struct {
	// Object is the typed object in the version it was stored in (no conversion, no
	// defaulting), with its apiVersion and kind set.
	Object runtime.Object
	// GVK is the group, version and kind the stored bytes declare: the storage version.
	GVK schema.GroupVersionKind
	// MediaType names the server serializer that recognised the bytes:
	// "application/vnd.kubernetes.protobuf" for the "k8s\x00" envelope the server writes,
	// "application/json" for JSON. It is set even when decoding fails, if a serializer
	// recognised the bytes.
	MediaType string
	// Unstructured is true when no scheme of the server registers the kind (a custom
	// resource): Object is then an *unstructured.Unstructured decoded from JSON.
	Unstructured bool
}

// Etcd returns read-only access to the server's etcd. It is safe from any goroutine. It fails
// with ErrEtcdNotReady until the storage phase has built its REST stores (it answers from the
// checkpoint storage/rest-stores on: while a phase runs it waits, as State does, until the
// phase pauses in the hook or returns) and with ErrClosed once Close has begun.
func (s *Server) Etcd() (*EtcdAccess, error) {
	s.mu.Lock()
	closed := s.closed
	storageDone := s.next > slices.Index(Phases(), PhaseStorage)
	s.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("etcd access: %w", ErrClosed)
	}
	if !storageDone {
		// The storage phase may be running or paused in the hook: read what it has built
		// only while its goroutine is paused or done. Once it has finished (seen under s.mu
		// above, after it wrote s.st), nothing writes what is read below.
		s.phaseMu.Lock()
		defer s.phaseMu.Unlock()
		if s.isClosed() { // Close ran while we waited
			return nil, fmt.Errorf("etcd access: %w", ErrClosed)
		}
	}
	st := s.st
	if st == nil || st.client == nil || st.views == nil || st.getter == nil {
		return nil, fmt.Errorf("etcd access: %w", ErrEtcdNotReady)
	}
	codecs, err := decodeCodecs()
	if err != nil {
		return nil, fmt.Errorf("etcd access: %w", err)
	}
	a := &EtcdAccess{
		s:         s,
		client:    st.client,
		keyPrefix: storageKeyPrefix(s.opts.EtcdPrefix),
		endpoints: slices.Clone(st.endpoints),
		external:  st.external,
		codecs:    codecs,
	}
	for _, rs := range st.stores {
		if strings.Contains(rs.Resource, "/") {
			continue // a subresource: its resource's key
		}
		gr := schema.GroupResource{Group: rs.GroupVersion.Group, Resource: rs.Resource}
		st.getter.mu.Lock()
		opts, ok := st.getter.seen[gr]
		st.getter.mu.Unlock()
		scoper, scoped := rs.Storage.(rest.Scoper)
		if !ok || !scoped {
			continue // not an etcd-backed store (none is, today)
		}
		// As the generic store (genericregistry.Store.CompleteWithOptions) and the etcd3
		// store (etcd3.New) put the two prefixes together.
		a.resources = append(a.resources, EtcdResource{
			Resource:   gr,
			KeyPrefix:  storageKeyPrefix(opts.StorageConfig.Prefix) + strings.Trim(opts.ResourcePrefix, "/") + "/",
			Namespaced: scoper.NamespaceScoped(),
		})
	}
	return a, nil
}

// decodeCodecs returns the codecs Decode reads values with: kubewalk's scheme (apis.NewScheme,
// the kinds its own server stores) plus the external versions of the kinds the two other
// servers of the chain store under the same prefix — CustomResourceDefinitions
// (apiextensions.k8s.io, stored as v1beta1 JSON: newAPIExtensionsConfig) and APIServices
// (apiregistration.k8s.io, stored as v1 JSON: newAggregatorConfig), v1 and v1beta1 of each.
// It is a scheme of its own: the server's scheme stays the one its API groups are installed
// from. Custom resources are in no scheme; Decode reads them as unstructured objects.
func decodeCodecs() (serializer.CodecFactory, error) {
	sch, err := apis.NewScheme()
	if err != nil {
		return serializer.CodecFactory{}, fmt.Errorf("decode scheme: %w", err)
	}
	for _, add := range []func(*runtime.Scheme) error{
		apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
		apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme,
	} {
		if err := add(sch.Scheme); err != nil {
			return serializer.CodecFactory{}, fmt.Errorf("decode scheme: %w", err)
		}
	}
	return serializer.NewCodecFactory(sch.Scheme), nil
}

// storageKeyPrefix is the key prefix every store's keys start with, as the etcd3 store makes it
// from --etcd-prefix (k8s.io/apiserver/pkg/storage/etcd3.New): rooted, ending in "/".
func storageKeyPrefix(prefix string) string {
	p := path.Join("/", prefix)
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return p
}

// KeyPrefix returns the prefix of every key the server's stores write, from --etcd-prefix and
// ending in "/", e.g. "/registry/".
func (a *EtcdAccess) KeyPrefix() string { return a.keyPrefix }

// Endpoints returns the etcd client URLs.
func (a *EtcdAccess) Endpoints() []string { return slices.Clone(a.endpoints) }

// External reports whether etcd is the --etcd-servers cluster rather than the embedded one.
func (a *EtcdAccess) External() bool { return a.external }

// Resources returns where each REST store keeps its objects, in the storage phase's order.
func (a *EtcdAccess) Resources() []EtcdResource { return slices.Clone(a.resources) }

// Get reads keys, as clientv3.KV.Get does: the options choose a prefix or range, a limit,
// keys only, a revision. It fails with ErrClosed once the server is closed.
func (a *EtcdAccess) Get(ctx context.Context, key string, opts ...clientv3.OpOption) (*clientv3.GetResponse, error) {
	if a.s.isClosed() {
		return nil, fmt.Errorf("etcd get %q: %w", key, ErrClosed)
	}
	resp, err := a.client.Get(ctx, key, opts...)
	if err != nil {
		if a.s.isClosed() {
			err = fmt.Errorf("%w: %w", ErrClosed, err)
		}
		return nil, fmt.Errorf("etcd get %q: %w", key, err)
	}
	return resp, nil
}

// Watch watches keys, as clientv3.Watcher.Watch does: the channel is closed when ctx is done
// or the server is closed. Cancel ctx to stop the watch and release its goroutines.
func (a *EtcdAccess) Watch(ctx context.Context, key string, opts ...clientv3.OpOption) clientv3.WatchChan {
	return a.client.Watch(ctx, key, opts...)
}

// Decode turns a stored value into an object with the server's own codecs: the serializer of
// the server's CodecFactory that recognises the bytes (protobuf for the "k8s\x00" envelope,
// which wraps a runtime.Unknown holding the apiVersion and kind; JSON for a JSON value) decodes
// them. The stores decode the same way: the storage codec built by
// k8s.io/apiserver/pkg/server/storage.NewStorageCodec tries the storage media type's
// serializer, then the factory's universal deserializer. Unlike the stores, Decode does not
// convert to the in-memory version: the object keeps the version it was stored in.
//
// A JSON value whose apiVersion and kind no scheme registers — a custom resource, which the
// apiextensions server stores as JSON through unstructured.UnstructuredJSONScheme
// (apiextensions-apiserver's NewCRDRESTOptionsGetter) — decodes as that codec decodes it, into
// an *unstructured.Unstructured; StoredObject.Unstructured says so.
func (a *EtcdAccess) Decode(value []byte) (StoredObject, error) {
	for _, info := range a.codecs.SupportedMediaTypes() {
		r, ok := info.Serializer.(recognizer.RecognizingDecoder)
		if !ok {
			continue
		}
		if ok, _, err := r.RecognizesData(value); err != nil || !ok {
			continue
		}
		out := StoredObject{MediaType: info.MediaType}
		obj, gvk, err := info.Serializer.Decode(value, nil, nil)
		if err != nil && runtime.IsNotRegisteredError(err) && info.MediaType == runtime.ContentTypeJSON {
			u := &unstructured.Unstructured{}
			obj, gvk, err = unstructured.UnstructuredJSONScheme.Decode(value, nil, u)
			out.Unstructured = err == nil
		}
		if err != nil {
			return out, fmt.Errorf("decode %s value: %w", info.MediaType, err)
		}
		obj.GetObjectKind().SetGroupVersionKind(*gvk)
		out.Object, out.GVK = obj, *gvk
		return out, nil
	}
	return StoredObject{}, errors.New("decode: no serializer of the server recognises the value (not protobuf, not JSON)")
}
