package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/endpoints/discovery/aggregated"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/apis/learn"
	nscontroller "github.com/kubewalk/kubewalk/server/controller/namespace"
	"github.com/kubewalk/kubewalk/server/observe"
	"github.com/kubewalk/kubewalk/server/rbac"
	"github.com/kubewalk/kubewalk/server/registry/authentication/selfsubjectreview"
	"github.com/kubewalk/kubewalk/server/registry/authorization/selfsubjectaccessreview"
	"github.com/kubewalk/kubewalk/server/registry/authorization/selfsubjectrulesreview"
	"github.com/kubewalk/kubewalk/server/registry/authorization/subjectaccessreview"
)

var installCheckpoints = []Checkpoint{
	{PhaseInstall, "apiextensions", "apiextensions-apiserver: CRDs under /apis/apiextensions.k8s.io, the NotFound handler behind it"},
	{PhaseInstall, "new", "Complete().New(): kubewalk's GenericAPIServer, delegating to the apiextensions server"},
	{PhaseInstall, "legacy-group", "InstallLegacyAPIGroup: core/v1 served under /api"},
	{PhaseInstall, "groups", "InstallAPIGroups: rbac, authorization, authentication, apps and learn.kubewalk.io under /apis"},
	{PhaseInstall, "post-start-hooks", "Post-start hooks registered: bootstrap namespaces and RBAC policy, namespace controller"},
	{PhaseInstall, "aggregator", "kube-aggregator in front of the chain: APIServices, autoregistration, availability"},
}

// Post-start hook names; each shows up under /healthz/poststarthook/<name> and in /readyz.
const (
	hookBootstrapNamespaces = "kubewalk-bootstrap-namespaces"
	hookBootstrapRBAC       = "kubewalk-bootstrap-rbac"
	hookNamespaceController = "kubewalk-namespace-controller"
)

// shutdownTimeout bounds how long the HTTP server waits for connections when it stops.
const shutdownTimeout = 5 * time.Second

// Install runs the install phase: Complete().New() builds the GenericAPIServer (handler chain,
// mux, default routes), then the groups are installed as kube-apiserver's
// pkg/controlplane/apiserver Server.InstallAPIs does — core into InstallLegacyAPIGroup("/api"),
// the rest into InstallAPIGroups — and post-start hooks are added.
func (s *Server) Install(ctx context.Context) error {
	return s.inPhase(ctx, PhaseInstall, func(ctx context.Context, run *phaseRun) error {
		c := s.c
		in := &installState{}
		in.hooksIdle = sync.NewCond(&in.hooksMu)
		s.in = in

		// Without a grace period an open watch holds shutdown for the full request timeout.
		c.generic.ShutdownWatchTerminationGracePeriod = 2 * time.Second
		// One aggregated discovery document for the whole chain, as kube's BuildGenericConfig
		// sets it: each server adds its groups under its own source.
		c.generic.AggregatedDiscoveryGroupManager = aggregated.NewResourceManager("apis")
		// Each server of the chain starts from a copy of the config as it is now, before
		// Complete() changes it (CreateServerChain's configs are all made before any New).
		extBase, aggBase := c.generic.Config, c.generic.Config

		// The back of the chain: the apiextensions server, on a delegate that only answers 404.
		extConfig := s.newAPIExtensionsConfig(extBase)
		in.extensionsCompleted = extConfig.Complete()
		s.observeServedAuthn(in.extensionsCompleted.GenericConfig.Config)
		in.notFound = newNotFoundHandler(&c.generic.Config)
		ext, err := onFreshStack(func() (*apiextensionsapiserver.CustomResourceDefinitions, error) {
			return in.extensionsCompleted.New(genericapiserver.NewEmptyDelegateWithCustomHandler(observe.Handler(s.opts.Recorder, observe.ServerNotFound, in.notFound)))
		})
		if err != nil {
			return fmt.Errorf("apiextensions server New: %w", err)
		}
		in.extensions = ext
		if err := run.reach(ctx, "apiextensions"); err != nil {
			return err
		}

		in.completed = c.generic.Complete()
		s.observeServedAuthn(&c.generic.Config) // recording or holding requests: after Complete, see recording.go
		// With a Recorder, each delegate's handler records that a request reached it
		// (observe.Delegate), so a lane shows which server of the chain answered.
		gs, err := onFreshStack(func() (*genericapiserver.GenericAPIServer, error) {
			return in.completed.New("kubewalk-apiserver", observe.Delegate(s.opts.Recorder, observe.ServerAPIExtensions, ext.GenericAPIServer))
		})
		if err != nil {
			return fmt.Errorf("Complete().New(): %w", err)
		}
		gs.ShutdownTimeout = shutdownTimeout
		in.generic = gs
		if err := run.reach(ctx, "new"); err != nil {
			return err
		}

		core := genericapiserver.NewDefaultAPIGroupInfo("", c.scheme.Scheme, c.scheme.ParameterCodec, c.scheme.Codecs)
		core.VersionedResourcesStorageMap[apis.CoreV1.Version] = s.st.storageMap(apis.CoreV1.Group)
		if err := gs.InstallLegacyAPIGroup(genericapiserver.DefaultLegacyAPIPrefix, &core); err != nil {
			return fmt.Errorf("InstallLegacyAPIGroup: %w", err)
		}
		in.groups = append(in.groups, &core)
		if err := run.reach(ctx, "legacy-group"); err != nil {
			return err
		}

		rbacGroup := genericapiserver.NewDefaultAPIGroupInfo(apis.RBACV1.Group, c.scheme.Scheme, c.scheme.ParameterCodec, c.scheme.Codecs)
		rbacGroup.VersionedResourcesStorageMap[apis.RBACV1.Version] = s.st.storageMap(apis.RBACV1.Group)
		authzGroup := genericapiserver.NewDefaultAPIGroupInfo(apis.AuthorizationV1.Group, c.scheme.Scheme, c.scheme.ParameterCodec, c.scheme.Codecs)
		authzGroup.VersionedResourcesStorageMap[apis.AuthorizationV1.Version] = map[string]rest.Storage{
			"selfsubjectaccessreviews": selfsubjectaccessreview.NewREST(s.az.final),
			"selfsubjectrulesreviews":  selfsubjectrulesreview.NewREST(s.az.resolver),
			"subjectaccessreviews":     subjectaccessreview.NewREST(s.az.final),
		}
		authnGroup := genericapiserver.NewDefaultAPIGroupInfo(apis.AuthenticationV1.Group, c.scheme.Scheme, c.scheme.ParameterCodec, c.scheme.Codecs)
		authnGroup.VersionedResourcesStorageMap[apis.AuthenticationV1.Version] = map[string]rest.Storage{
			"selfsubjectreviews": selfsubjectreview.NewREST(),
		}
		appsGroup := genericapiserver.NewDefaultAPIGroupInfo(apis.AppsV1.Group, c.scheme.Scheme, c.scheme.ParameterCodec, c.scheme.Codecs)
		appsGroup.VersionedResourcesStorageMap[apis.AppsV1.Version] = s.st.storageMap(apis.AppsV1.Group)
		// Our own group: the same stores at both versions, v1 first (the scheme's priority),
		// each version serving the kinds it has (v1 all, v1alpha1 lessons only).
		learnGroup := genericapiserver.NewDefaultAPIGroupInfo(learn.GroupName, c.scheme.Scheme, c.scheme.ParameterCodec, c.scheme.Codecs)
		learnGroup.NegotiatedSerializer = apis.WithoutProtobuf(c.scheme.Codecs) // its types have no protobuf code
		for _, gv := range learnGroup.PrioritizedVersions {
			learnGroup.VersionedResourcesStorageMap[gv.Version] = servedIn(c.scheme.Scheme, gv, s.st.storageMap(learn.GroupName))
		}
		if err := gs.InstallAPIGroups(&rbacGroup, &authzGroup, &authnGroup, &appsGroup, &learnGroup); err != nil {
			return fmt.Errorf("InstallAPIGroups: %w", err)
		}
		in.groups = append(in.groups, &rbacGroup, &authzGroup, &authnGroup, &appsGroup, &learnGroup)
		if err := run.reach(ctx, "groups"); err != nil {
			return err
		}

		client := s.az.client
		namespaces, err := nscontroller.NewForConfig(c.loopback, s.az.httpClient, s.az.informers.Core().V1().Namespaces())
		if err != nil {
			return err
		}
		admissionSynced := s.az.informers.Core().V1().Namespaces().Informer().HasSyncedChecker()
		hooks := []struct {
			name string
			fn   genericapiserver.PostStartHookFunc
		}{
			{hookBootstrapNamespaces, func(hc genericapiserver.PostStartHookContext) error {
				if err := waitDone(hc, admissionSynced); err != nil {
					return err
				}
				return ensureNamespaces(hc, client, metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic)
			}},
			{hookBootstrapRBAC, func(hc genericapiserver.PostStartHookContext) error {
				if err := waitDone(hc, admissionSynced); err != nil {
					return err
				}
				// EnsurePolicy retries until its context ends; kube-apiserver gives its RBAC
				// bootstrap hook 30 s as well.
				ctx, cancel := context.WithTimeout(hc, 30*time.Second)
				defer cancel()
				return rbac.EnsurePolicy(ctx, client, rbac.BootstrapPolicy())
			}},
			// kube-controller-manager's namespace controller, run in-process until shutdown.
			{hookNamespaceController, func(hc genericapiserver.PostStartHookContext) error {
				namespaces.Start(hc, 2)
				return nil
			}},
		}
		for _, h := range hooks {
			h.fn = in.track(h.fn)
			if err := gs.AddPostStartHook(h.name, h.fn); err != nil {
				return fmt.Errorf("post-start hook %s: %w", h.name, err)
			}
			in.hooks = append(in.hooks, h.name)
		}
		// Pre-shutdown hooks run once the hook context has ended: wait for the controller there.
		if err := gs.AddPreShutdownHook(hookNamespaceController, func() error { namespaces.Stop(); return nil }); err != nil {
			return fmt.Errorf("pre-shutdown hook %s: %w", hookNamespaceController, err)
		}
		if err := run.reach(ctx, "post-start-hooks"); err != nil {
			return err
		}

		// The front of the chain: the aggregator, on kubewalk's server.
		aggConfig := s.newAggregatorConfig(aggBase)
		if s.ag, err = s.newAggregated(); err != nil {
			return err
		}
		if err := s.ag.applyTo(&aggConfig.ExtraConfig, s.az.informers, c.loopback.Host); err != nil {
			return err
		}
		in.aggregatorCompleted = aggConfig.Complete()
		s.observeServedAuthn(in.aggregatorCompleted.GenericConfig.Config)
		agg, builtIn, err := s.newAggregator(in.aggregatorCompleted, gs, ext)
		if err != nil {
			return err
		}
		agg.GenericAPIServer.ShutdownTimeout = shutdownTimeout
		in.aggregator, in.apiServices = agg, builtIn
		for _, c := range agg.GenericAPIServer.HealthzChecks() {
			switch c.Name() {
			case "poststarthook/" + hookCRDInformerSynced, "poststarthook/" + hookAPIServiceDiscovery:
				in.settleBeforeStop = append(in.settleBeforeStop, c)
			}
		}
		return run.reach(ctx, "aggregator")
	})
}

// track wraps a post-start hook for shutdown. Close waits for running hooks to return
// (waitHooks), so that none of the run's goroutines outlives it. An error the hook returns
// because the server is stopping (its context is done) is dropped: genericapiserver treats
// every hook error as fatal (runPostStartHook in k8s.io/apiserver/pkg/server/hooks.go calls
// klog.Fatalf), so Close while the hooks still run — Ctrl-C at serve/serving — would
// otherwise end the process.
func (in *installState) track(fn genericapiserver.PostStartHookFunc) genericapiserver.PostStartHookFunc {
	return func(hc genericapiserver.PostStartHookContext) error {
		in.hooksMu.Lock()
		in.hooksRunning++
		in.hooksMu.Unlock()
		defer func() {
			in.hooksMu.Lock()
			in.hooksRunning--
			in.hooksIdle.Broadcast()
			in.hooksMu.Unlock()
		}()
		if err := fn(hc); err != nil && hc.Err() == nil {
			return err
		}
		return nil
	}
}

// waitHooks waits for the post-start hooks that have started to return. Call it once the
// server has stopped: their contexts are done then, so they return promptly.
func (in *installState) waitHooks() {
	in.hooksMu.Lock()
	defer in.hooksMu.Unlock()
	for in.hooksRunning > 0 {
		in.hooksIdle.Wait()
	}
}

// waitDone waits until done's activity has completed (an informer has synced) or ctx ends.
//
// The bootstrap hooks wait for the namespace informer before their first write: the
// NamespaceLifecycle admission plugin holds a write that arrives before that informer has
// synced, and its wait (admission.Handler.WaitForReady in k8s.io/apiserver) looks again only
// every 100 ms, so the first writes of a starting server sat up to 100 ms behind a cache that
// had filled long before. The informer's own signal (HasSyncedChecker) comes without polling.
func waitDone(ctx context.Context, done cache.DoneChecker) error {
	select {
	case <-done.Done():
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s: %w", done.Name(), context.Cause(ctx))
	}
}

// storageMap returns the REST stores of one group keyed by resource path.
func (st *storageState) storageMap(group string) map[string]rest.Storage {
	m := map[string]rest.Storage{}
	for _, r := range st.stores {
		if r.GroupVersion.Group == group {
			m[r.Resource] = r.Storage
		}
	}
	return m
}

// servedIn keeps the stores of m whose kind gv has in scheme: a version serves only the kinds
// it defines (Course and Attempt exist in learn.kubewalk.io/v1, not in v1alpha1).
func servedIn(scheme *runtime.Scheme, gv schema.GroupVersion, m map[string]rest.Storage) map[string]rest.Storage {
	out := map[string]rest.Storage{}
	for resource, storage := range m {
		kinds, _, err := scheme.ObjectKinds(storage.New())
		if err == nil && len(kinds) > 0 && scheme.Recognizes(gv.WithKind(kinds[0].Kind)) {
			out[resource] = storage
		}
	}
	return out
}

// ensureNamespaces creates the namespaces kube-apiserver keeps (its system-namespaces controller
// does this upstream), retrying until the server answers or ctx ends.
func ensureNamespaces(ctx context.Context, client kubernetes.Interface, names ...string) error {
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		for _, name := range names {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
			_, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
			if err != nil && !apierrors.IsAlreadyExists(err) {
				lastErr = err
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && lastErr != nil {
		return fmt.Errorf("create namespaces: %w (last error: %v)", err, lastErr)
	}
	return err
}
