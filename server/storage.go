package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/apiserver/pkg/server/options"
	serverstorage "k8s.io/apiserver/pkg/server/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/observe"
	"github.com/kubewalk/kubewalk/server/rbac"
	"github.com/kubewalk/kubewalk/server/registry/core/configmap"
	"github.com/kubewalk/kubewalk/server/registry/core/event"
	"github.com/kubewalk/kubewalk/server/registry/core/namespace"
	"github.com/kubewalk/kubewalk/server/registry/core/pod"
	"github.com/kubewalk/kubewalk/server/registry/core/secret"
	"github.com/kubewalk/kubewalk/server/registry/core/serviceaccount"
	"github.com/kubewalk/kubewalk/server/registry/rbac/clusterrole"
	"github.com/kubewalk/kubewalk/server/registry/rbac/clusterrolebinding"
	"github.com/kubewalk/kubewalk/server/registry/rbac/role"
	"github.com/kubewalk/kubewalk/server/registry/rbac/rolebinding"
)

var storageCheckpoints = []Checkpoint{
	{PhaseStorage, "etcd", "etcd is up: embedded (default) or the --etcd-servers cluster"},
	{PhaseStorage, "storage-factory", "Storage factory and RESTOptionsGetter: key prefix, codec and watch cache per resource"},
	{PhaseStorage, "rest-stores", "One REST store per resource: genericregistry.Store plus our strategy"},
}

// storageMediaType is how objects are encoded in etcd, as kube-apiserver does by default.
const storageMediaType = runtime.ContentTypeProtobuf

// etcdReadyTimeout bounds how long the storage phase waits for etcd.
const etcdReadyTimeout = 30 * time.Second

// Storage runs the storage phase: etcd, then the storage factory kube-apiserver builds in
// BuildGenericConfig (storageFactoryConfig.Complete(...).New() and
// EtcdOptions.ApplyWithStorageFactoryTo, which installs the RESTOptionsGetter that wraps each
// resource's etcd3 store in a watch cache), then one REST store per resource.
func (s *Server) Storage(ctx context.Context) error {
	return s.inPhase(ctx, PhaseStorage, func(ctx context.Context, run *phaseRun) error {
		st := &storageState{closeEtcd: func() error { return nil }}
		s.st = st
		if err := st.startEtcd(ctx, s.opts, s.workDir); err != nil {
			return err
		}
		if err := run.reach(ctx, "etcd"); err != nil {
			return err
		}

		if err := st.applyStorageFactory(s.opts.EtcdPrefix, s.c, s.opts.Recorder, s.opts.Gate); err != nil {
			return err
		}
		if err := run.reach(ctx, "storage-factory"); err != nil {
			return err
		}

		if err := st.newStores(s.c.scheme, s.az); err != nil {
			// Each store built so far runs a watch cache and an etcd client: stop them now.
			st.destroyStores()
			st.stores = nil
			return err
		}
		st.views = storeViews(st.stores)
		return run.reach(ctx, "rest-stores")
	})
}

// startEtcd starts embedded etcd, or checks that --etcd-servers answer.
func (st *storageState) startEtcd(ctx context.Context, o Options, workDir string) error {
	if len(o.EtcdServers) > 0 {
		st.external = true
		st.endpoints = append([]string(nil), o.EtcdServers...)
		if err := st.connect(ctx, "--etcd-servers"); err != nil {
			return err
		}
		return nil
	}
	st.dataDir = o.DataDir
	temp := st.dataDir == ""
	if temp {
		st.dataDir = filepath.Join(workDir, "etcd")
	}
	if err := checkDataDir(st.dataDir); err != nil {
		return fmt.Errorf("--data-dir %s: %w", st.dataDir, err)
	}
	e, err := startEmbeddedEtcd(ctx, st.dataDir, temp, o.LogOutput)
	if err != nil {
		return err
	}
	st.embedded = e
	st.etcdConfig = e.Config()
	var once sync.Once
	st.closeEtcd = func() error {
		// embed.Etcd.Close is not idempotent: it closes channels.
		once.Do(func() {
			if st.client != nil {
				st.client.Close()
			}
			e.Close()
		})
		return nil
	}
	for _, l := range e.Clients {
		st.endpoints = append(st.endpoints, "http://"+l.Addr().String())
	}
	return st.connect(ctx, "embedded etcd")
}

// connect opens the client used for the state tree and checks the cluster answers.
func (st *storageState) connect(ctx context.Context, what string) error {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   st.endpoints,
		DialTimeout: 3 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return fmt.Errorf("%s %v: %w", what, st.endpoints, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.MemberList(cctx); err != nil {
		cli.Close()
		return fmt.Errorf("%s %v: cannot reach etcd: %w", what, st.endpoints, err)
	}
	st.client = cli
	if st.embedded == nil {
		st.closeEtcd = func() error { return cli.Close() }
	}
	return nil
}

// checkDataDir makes sure dir exists (or can be created) and is writable.
func checkDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".kubewalk-write-check-")
	if err != nil {
		return fmt.Errorf("not writable: %w", err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// startEmbeddedEtcd starts a single-member etcd on two free loopback ports and waits until it
// serves. A single member still waits an election timeout before leading, so ticks are short.
func startEmbeddedEtcd(ctx context.Context, dataDir string, temp bool, logOut io.Writer) (*embed.Etcd, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: client port: %w", err)
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: peer port: %w", err)
	}
	cfg := embed.NewConfig()
	cfg.Name = "kubewalk"
	cfg.Dir = dataDir
	clientURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))}
	peerURL := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{clientURL}, []url.URL{clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peerURL}, []url.URL{peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.TickMs, cfg.ElectionMs = 10, 50
	// A temp data dir is thrown away on exit: skipping fsync makes writes fast and loses
	// nothing the learner keeps. A --data-dir keeps etcd's normal durability.
	cfg.UnsafeNoFsync = temp
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(newZapLogger(logOut, zapcore.WarnLevel))
	cfg.AutoCompactionMode, cfg.AutoCompactionRetention = "periodic", "5m"

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("embedded etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("embedded etcd: %w", err)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("embedded etcd: %w", ctx.Err())
	case <-time.After(etcdReadyTimeout):
		e.Close()
		return nil, errors.New("embedded etcd: not ready after 30s")
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// newZapLogger returns a zap logger writing JSON lines at level and above to w.
func newZapLogger(w io.Writer, level zapcore.Level) *zap.Logger {
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.AddSync(w), level)
	return zap.New(core)
}

// applyStorageFactory builds the storage factory and sets the config's RESTOptionsGetter.
func (st *storageState) applyStorageFactory(prefix string, c *configState, rec observe.Recorder, gate observe.Gate) error {
	backend := storagebackend.NewDefaultConfig(prefix, nil)
	backend.Transport.ServerList = st.endpoints
	st.etcd = options.NewEtcdOptions(backend)
	st.etcd.EnableWatchCache = true
	st.etcd.DefaultStorageMediaType = storageMediaType
	// No garbage collector runs here: with GC on, foreground/orphan deletes would wait forever
	// on a finalizer nobody removes.
	st.etcd.EnableGarbageCollection = false
	// The library's etcd health checks hold an etcd client until the server has drained, which
	// never happens if the walkthrough quits before serve; ours reuse the phase's own client,
	// closed by Close.
	st.etcd.SkipHealthEndpoints = true
	c.generic.AddHealthChecks(healthz.NamedCheck("etcd", st.etcdCheck))
	c.generic.AddReadyzChecks(healthz.NamedCheck("etcd-readiness", st.etcdCheck))

	resources := serverstorage.NewResourceConfig()
	resources.EnableVersions(apis.CoreV1, apis.RBACV1, apis.AuthorizationV1, apis.AuthenticationV1)
	st.factory = serverstorage.NewDefaultStorageFactory(
		*backend,
		storageMediaType,
		c.scheme.Codecs,
		serverstorage.NewDefaultResourceEncodingConfigForEffectiveVersion(c.scheme.Scheme, c.version),
		resources,
		nil,
	)
	if err := st.etcd.ApplyWithStorageFactoryTo(st.factory, &c.generic.Config); err != nil {
		return fmt.Errorf("storage factory: %w", err)
	}
	st.getter = &recordingGetter{inner: c.generic.RESTOptionsGetter, seen: map[schema.GroupResource]generic.RESTOptions{},
		record: rec, gate: gate, strategies: observe.NewStrategies(rec)}
	c.generic.RESTOptionsGetter = st.getter
	return nil
}

// etcdCheck is the etcd health and readiness check: one linearizable read with a deadline.
func (st *storageState) etcdCheck(r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if _, err := st.client.Get(ctx, "/kubewalk-health", clientv3.WithCountOnly()); err != nil {
		return fmt.Errorf("etcd %v: %w", st.endpoints, err)
	}
	return nil
}

// newStores builds one REST store per resource. RBAC writes go through escalation checks.
func (st *storageState) newStores(scheme *apis.Scheme, az *authzState) error {
	g := st.getter
	add := func(gv schema.GroupVersion, resource string, storage rest.Storage) {
		st.stores = append(st.stores, restStore{GroupVersion: gv, Resource: resource, Storage: storage})
	}
	type simple func(*apis.Scheme, generic.RESTOptionsGetter) (rest.Storage, error)
	core := []struct {
		resource string
		build    simple
	}{
		{"configmaps", func(s *apis.Scheme, g generic.RESTOptionsGetter) (rest.Storage, error) {
			return configmap.NewREST(s, g)
		}},
		{"secrets", func(s *apis.Scheme, g generic.RESTOptionsGetter) (rest.Storage, error) { return secret.NewREST(s, g) }},
		{"serviceaccounts", func(s *apis.Scheme, g generic.RESTOptionsGetter) (rest.Storage, error) {
			return serviceaccount.NewREST(s, g)
		}},
		{"events", func(s *apis.Scheme, g generic.RESTOptionsGetter) (rest.Storage, error) { return event.NewREST(s, g) }},
	}
	namespaces, namespaceStatus, namespaceFinalize, err := namespace.NewREST(scheme, g)
	if err != nil {
		return fmt.Errorf("REST store namespaces: %w", err)
	}
	add(apis.CoreV1, "namespaces", namespaces)
	add(apis.CoreV1, "namespaces/status", namespaceStatus)
	add(apis.CoreV1, "namespaces/finalize", namespaceFinalize)
	for _, r := range core {
		storage, err := r.build(scheme, g)
		if err != nil {
			return fmt.Errorf("REST store %s: %w", r.resource, err)
		}
		add(apis.CoreV1, r.resource, storage)
	}
	pods, podStatus, err := pod.NewREST(scheme, g)
	if err != nil {
		return fmt.Errorf("REST store pods: %w", err)
	}
	add(apis.CoreV1, "pods", pods)
	add(apis.CoreV1, "pods/status", podStatus)

	// The RBAC stores are wrapped once all four exist; until then a failure destroys the ones
	// built (the caller destroys those already added).
	var built []rest.Storage
	fail := func(resource string, err error) error {
		for _, b := range built {
			b.Destroy()
		}
		return fmt.Errorf("REST store %s: %w", resource, err)
	}
	roles, err := role.NewREST(scheme, g)
	if err != nil {
		return fail("roles", err)
	}
	built = append(built, roles)
	roleBindings, err := rolebinding.NewREST(scheme, g)
	if err != nil {
		return fail("rolebindings", err)
	}
	built = append(built, roleBindings)
	clusterRoles, err := clusterrole.NewREST(scheme, g)
	if err != nil {
		return fail("clusterroles", err)
	}
	built = append(built, clusterRoles)
	clusterRoleBindings, err := clusterrolebinding.NewREST(scheme, g)
	if err != nil {
		return fail("clusterrolebindings", err)
	}
	add(apis.RBACV1, "roles", rbac.NewRoleEscalationStorage(roles, az.final, az.rbac.Resolver(), apis.RBACV1.WithResource("roles").GroupResource()))
	add(apis.RBACV1, "rolebindings", rbac.NewBindingEscalationStorage(roleBindings, az.final, az.rbac.Resolver(), apis.RBACV1.WithResource("rolebindings").GroupResource()))
	add(apis.RBACV1, "clusterroles", rbac.NewRoleEscalationStorage(clusterRoles, az.final, az.rbac.Resolver(), apis.RBACV1.WithResource("clusterroles").GroupResource()))
	add(apis.RBACV1, "clusterrolebindings", rbac.NewBindingEscalationStorage(clusterRoleBindings, az.final, az.rbac.Resolver(), apis.RBACV1.WithResource("clusterrolebindings").GroupResource()))
	return nil
}

// destroyStores releases the stores' watch caches and etcd clients when the server stops
// before install hands them to genericapiserver (which then destroys them itself).
func (st *storageState) destroyStores() {
	for _, r := range st.stores {
		r.Storage.Destroy()
	}
}

// recordingGetter remembers the RESTOptions handed to each resource so the state tree can show
// the real prefix, codec and decorator each store got. When requests are recorded or may be
// held, it also decorates each resource's storage (observe.StorageDecorator) and, as the
// store.StrategyDecorator the registries look for, their strategies' validation.
type recordingGetter struct {
	inner generic.RESTOptionsGetter
	mu    sync.Mutex
	seen  map[schema.GroupResource]generic.RESTOptions
	order []schema.GroupResource

	record     observe.Recorder
	gate       observe.Gate
	strategies observe.Strategies
}

// GetRESTOptions implements generic.RESTOptionsGetter.
func (g *recordingGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := g.inner.GetRESTOptions(resource, example)
	if err != nil {
		return opts, err
	}
	if (g.record != nil || g.gate != nil) && opts.Decorator != nil {
		opts.Decorator = observe.StorageDecorator(g.record, g.gate, opts.Decorator)
	}
	g.mu.Lock()
	if _, ok := g.seen[resource]; !ok {
		g.order = append(g.order, resource)
	}
	g.seen[resource] = opts
	g.mu.Unlock()
	return opts, nil
}

// DecorateCreate implements store.StrategyDecorator: validation is recorded when requests are.
func (g *recordingGetter) DecorateCreate(resource schema.GroupResource, s rest.RESTCreateStrategy) rest.RESTCreateStrategy {
	return g.strategies.DecorateCreate(resource, s)
}

// DecorateUpdate implements store.StrategyDecorator.
func (g *recordingGetter) DecorateUpdate(resource schema.GroupResource, s rest.RESTUpdateStrategy) rest.RESTUpdateStrategy {
	return g.strategies.DecorateUpdate(resource, s)
}

// compile-time check: the generic store is what every resource builds on.
var _ rest.StandardStorage = &genericregistry.Store{}
