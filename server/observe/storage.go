package observe

import (
	"context"
	"path"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// StorageDecorator decorates a resource's storage decorator (the one the RESTOptionsGetter
// hands out: the watch cache in front of the etcd3 store) so that each call a request makes
// into it is recorded (a *Storage: op, etcd key, resource version) and, once per request, gate
// is asked at stage GateStorage before it. Whether a read was served by the watch cache or
// by etcd is not guessed here: the watch cache and the etcd3 store say so in their spans. rec
// and gate may be nil.
func StorageDecorator(rec Recorder, gate Gate, inner generic.StorageDecorator) generic.StorageDecorator {
	return func(config *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(obj runtime.Object) (string, error),
		newFunc func() runtime.Object, newListFunc func() runtime.Object, getAttrsFunc storage.AttrFunc,
		trigger storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
		s, destroy, err := inner(config, resourcePrefix, keyFunc, newFunc, newListFunc, getAttrsFunc, trigger, indexers)
		if err != nil {
			return s, destroy, err
		}
		prefix := path.Join("/", config.Prefix)
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		return &observedStorage{Interface: s, record: recorderFunc(rec), wait: gateFunc(gate), prefix: prefix, resource: config.GroupResource}, destroy, nil
	}
}

// observedStorage is the storage.Interface StorageDecorator returns.
type observedStorage struct {
	storage.Interface
	record   recordFunc
	wait     gateRef
	prefix   string // the etcd3 store's path prefix, ending in "/"
	resource schema.GroupResource
}

// Unwrap returns the decorated storage.
func (s *observedStorage) Unwrap() storage.Interface { return s.Interface }

// etcdKey is the key the etcd3 store uses for key (its prepareKey): the path prefix, then the
// key without its leading "/", with a trailing "/" for lists and watches.
func (s *observedStorage) etcdKey(key string, recursive bool) string {
	if recursive && !strings.HasSuffix(key, "/") {
		key += "/"
	}
	return s.prefix + strings.TrimPrefix(key, "/")
}

// wait asks the gate, and turns its refusal into a 403 the client sees.
func (s *observedStorage) gate(ctx context.Context, id string, obj runtime.Object) error {
	if id == "" || !s.wait.on() {
		return nil
	}
	p := Point{ID: id, Stage: GateStorage, Object: obj, Resource: s.resource.Resource, APIGroup: s.resource.Group}
	if info, ok := request.RequestInfoFrom(ctx); ok && info != nil {
		fillPoint(&p, info, info.Path)
	}
	if u, ok := request.UserFrom(ctx); ok && u != nil {
		p.User, p.Groups = u.GetName(), u.GetGroups()
	}
	if err := s.wait.wait(ctx, p); err != nil {
		return apierrors.NewForbidden(s.resource, p.Name, err)
	}
	return nil
}

func (s *observedStorage) recordOp(id, op, key, rv string, start time.Time, out runtime.Object, err error) {
	if s.record == nil || id == "" {
		return
	}
	r := &Storage{ID: id, Op: op, Key: key, ResourceVersion: rv, Start: start, Duration: time.Since(start)}
	if err != nil {
		r.Err = err.Error()
	} else if out != nil {
		r.Revision = resourceVersion(out)
	}
	s.record(r)
}

func resourceVersion(obj runtime.Object) string {
	if l, err := meta.ListAccessor(obj); err == nil && meta.IsListType(obj) {
		return l.GetResourceVersion()
	}
	if a, err := meta.Accessor(obj); err == nil {
		return a.GetResourceVersion()
	}
	return ""
}

// Create records the write and the revision etcd gave the object.
func (s *observedStorage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	id := audit.GetAuditIDTruncated(ctx)
	if err := s.gate(ctx, id, obj); err != nil {
		return err
	}
	start := time.Now()
	err := s.Interface.Create(ctx, key, obj, out, ttl)
	s.recordOp(id, OpCreate, s.etcdKey(key, false), "", start, out, err)
	return err
}

// Delete records the delete.
func (s *observedStorage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	id := audit.GetAuditIDTruncated(ctx)
	if err := s.gate(ctx, id, nil); err != nil {
		return err
	}
	start := time.Now()
	err := s.Interface.Delete(ctx, key, out, preconditions, validateDeletion, cachedExistingObject, opts)
	s.recordOp(id, OpDelete, s.etcdKey(key, false), "", start, out, err)
	return err
}

// Watch records the watch and the version it starts from.
func (s *observedStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	id := audit.GetAuditIDTruncated(ctx)
	if err := s.gate(ctx, id, nil); err != nil {
		return nil, err
	}
	start := time.Now()
	w, err := s.Interface.Watch(ctx, key, opts)
	s.recordOp(id, OpWatch, s.etcdKey(key, opts.Recursive), opts.ResourceVersion, start, nil, err)
	return w, err
}

// Get records the read and the version of what came back.
func (s *observedStorage) Get(ctx context.Context, key string, opts storage.GetOptions, objPtr runtime.Object) error {
	id := audit.GetAuditIDTruncated(ctx)
	if err := s.gate(ctx, id, nil); err != nil {
		return err
	}
	start := time.Now()
	err := s.Interface.Get(ctx, key, opts, objPtr)
	s.recordOp(id, OpGet, s.etcdKey(key, false), opts.ResourceVersion, start, objPtr, err)
	return err
}

// GetList records the list and the version of what came back.
func (s *observedStorage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	id := audit.GetAuditIDTruncated(ctx)
	if err := s.gate(ctx, id, nil); err != nil {
		return err
	}
	start := time.Now()
	err := s.Interface.GetList(ctx, key, opts, listObj)
	s.recordOp(id, OpList, s.etcdKey(key, opts.Recursive), opts.ResourceVersion, start, listObj, err)
	return err
}

// GuaranteedUpdate records the update and the revision etcd gave the object. The gate is asked
// once tryUpdate (which runs admission and validation for an update) has produced the new
// object, just before it is written.
func (s *observedStorage) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	id := audit.GetAuditIDTruncated(ctx)
	try := tryUpdate
	if s.wait.wait != nil && id != "" {
		try = func(input runtime.Object, res storage.ResponseMeta) (runtime.Object, *uint64, error) {
			out, ttl, err := tryUpdate(input, res)
			if err != nil {
				return out, ttl, err
			}
			if werr := s.gate(ctx, id, out); werr != nil {
				return nil, nil, werr
			}
			return out, ttl, nil
		}
	}
	start := time.Now()
	err := s.Interface.GuaranteedUpdate(ctx, key, destination, ignoreNotFound, preconditions, try, cachedExistingObject)
	s.recordOp(id, OpUpdate, s.etcdKey(key, false), "", start, destination, err)
	return err
}
