package server

// This file builds the two servers kube-apiserver puts around its own in CreateServerChain
// (cmd/kube-apiserver/app/server.go): the apiextensions server behind kubewalk's server, and
// the aggregator in front of it. Each gets a shallow copy of the generic config the earlier
// phases built, as kube's CreateAPIExtensionsConfig and CreateAggregatorConfig
// (pkg/controlplane/apiserver/apiextensions.go and aggregator.go) do: the same authentication,
// authorization, admission, serving and loopback settings, with its own post-start hooks, its
// own storage and its own resource config. Every server builds a handler chain from its copy,
// but only the front one's runs: a server hands a request it does not serve to its delegate's
// UnprotectedHandler, which is the delegate's mux without the filters. So authentication,
// authorization, audit and the trace recording run once, in the aggregator.

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	apiextensionsoptions "k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	apiextensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/generic"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	"k8s.io/apiserver/pkg/server/options"
	"k8s.io/apiserver/pkg/util/notfoundhandler"
	"k8s.io/client-go/tools/cache"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"
	apiserviceinformers "k8s.io/kube-aggregator/pkg/client/informers/externalversions/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/controllers/autoregister"
	aggregatoropenapi "k8s.io/kube-aggregator/pkg/generated/openapi"
	"k8s.io/kube-openapi/pkg/common"

	"github.com/kubewalk/kubewalk/server/apis"
	"github.com/kubewalk/kubewalk/server/apis/learn"
	"github.com/kubewalk/kubewalk/server/controller/crdregistration"
	"github.com/kubewalk/kubewalk/server/observe"
)

// Post-start hook and health check names the chain adds, as kube-apiserver names them.
const (
	hookAutoregistration      = "kube-apiserver-autoregistration"
	checkAutoregisterComplete = "autoregister-completion"
	// hookCRDInformerSynced is the apiextensions server's hook that waits for its CRD informer.
	// It returns its context's error when the server stops first, and genericapiserver ends the
	// process on any hook error (runPostStartHook calls klog.Fatalf): see serveState.stop.
	hookCRDInformerSynced = "crd-informer-synced"
	// hookAPIServiceDiscovery is the aggregator's hook that runs its discovery manager.
	hookAPIServiceDiscovery = "apiservice-discovery-controller"
)

// derivedConfig returns the shallow copy of the generic config a server of the chain starts
// from, as CreateAPIExtensionsConfig and CreateAggregatorConfig make it: no post-start hooks
// (each server adds its own; a name added twice fails) and no RESTOptionsGetter (each server
// stores its own kinds with its own codec). Everything else — serving, authentication,
// authorization, admission, loopback, audit, tracing, health checks — is shared.
func derivedConfig(base *genericapiserver.Config) genericapiserver.Config {
	c := *base
	c.PostStartHooks = map[string]genericapiserver.PostStartHookConfigEntry{}
	c.RESTOptionsGetter = nil
	c.HealthzChecks = append([]healthz.HealthChecker(nil), base.HealthzChecks...)
	c.LivezChecks = append([]healthz.HealthChecker(nil), base.LivezChecks...)
	c.ReadyzChecks = append([]healthz.HealthChecker(nil), base.ReadyzChecks...)
	return c
}

// withServerOpenAPI gives a derived config OpenAPI configs for one server of the chain: the
// generated definitions of that server's own types (apiextensions' or the aggregator's, each
// with the meta types they use), named as kube-apiserver names them (openapinamer over the
// three schemes). The server needs them for its own group only: installing it builds the
// managed-fields type converter from the definitions of its kinds, and the aggregator
// publishes the OpenAPI v3 document of apiregistration.k8s.io. kube-apiserver hands all three
// servers its one generated set (every kind of the three); kubewalk's holds only its own
// kinds, and the standalone apiextensions-apiserver and kube-aggregator use their own sets, as
// here. The v3 config keeps the definitions DefaultOpenAPIV3Config builds at once, as in
// kube-apiserver: every v3 build reads them from there instead of calling GetDefinitions again
// (k8s.io/kube-openapi builder3/openapi.go:231, newOpenAPI) — the server's type models at
// install, then in PrepareRun one document per group version and the aggregator's own —
// until the serve phase lets them go once PrepareRun has run (releaseOpenAPIDefinitions), so
// that the servers do not keep ~2 MB each for as long as they run.
func withServerOpenAPI(c *genericapiserver.Config, kubewalk *runtime.Scheme, defs common.GetOpenAPIDefinitions) {
	namer := openapinamer.NewDefinitionNamer(kubewalk, apiextensionsapiserver.Scheme, aggregatorscheme.Scheme)
	v2 := genericapiserver.DefaultOpenAPIConfig(defs, namer)
	v2.Info = c.OpenAPIConfig.Info
	v3 := genericapiserver.DefaultOpenAPIV3Config(defs, namer)
	v3.Info = c.OpenAPIV3Config.Info
	c.OpenAPIConfig, c.OpenAPIV3Config = v2, v3
}

// releaseOpenAPIDefinitions lets go of the v3 definitions withServerOpenAPI kept for the
// apiextensions server and the aggregator. Call it after PrepareRun, before Run: from then on
// no build reads them (the documents of both servers are built; a CRD's are built from its
// schema by the apiextensions OpenAPI controllers), and no goroutine of the servers runs yet.
func (in *installState) releaseOpenAPIDefinitions() {
	for _, c := range []*genericapiserver.Config{in.extensionsCompleted.GenericConfig.Config, in.aggregatorCompleted.GenericConfig.Config} {
		if c != nil && c.OpenAPIV3Config != nil {
			c.OpenAPIV3Config.Definitions = nil
		}
	}
}

// newAPIExtensionsConfig is kube's CreateAPIExtensionsConfig for kubewalk: the derived config,
// the CRDs stored as v1beta1 JSON under the same prefix, custom resources stored through
// NewCRDRESTOptionsGetter, and apiextensions' default resource config.
func (s *Server) newAPIExtensionsConfig(base genericapiserver.Config) *apiextensionsapiserver.Config {
	c := derivedConfig(&base)
	withServerOpenAPI(&c, s.c.scheme.Scheme, apiextensionsopenapi.GetOpenAPIDefinitions)
	// kubewalk's server installs its OpenAPI documents itself, lazily (openapi_serve.go); the
	// apiextensions server installs its own in PrepareRun, as in kube-apiserver: its
	// start-apiextensions-controllers hook runs the CRD OpenAPI controllers only then, and
	// they publish each CRD's schema into those documents, /openapi/v3/apis/<group>/<version>
	// of each CRD group included, which the aggregator's v3 aggregation finds there.
	c.SkipOpenAPIInstallation = false
	etcd := *s.st.etcd
	// As kube: decodes v1 and v1beta1, stores the more compact v1beta1 (issue 82292).
	etcd.StorageConfig.Codec = apiextensionsapiserver.Codecs.LegacyCodec(apiextensionsv1beta1.SchemeGroupVersion, apiextensionsv1.SchemeGroupVersion)
	etcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(apiextensionsv1beta1.SchemeGroupVersion, schema.GroupKind{Group: apiextensionsv1beta1.GroupName})
	etcd.StorageConfig.StorageObjectCountTracker = c.StorageObjectCountTracker
	// kube calls etcdOptions.ApplyTo; that would also replace the storage factory the
	// library's storage metrics read (a process-wide setter), so only its getter is built.
	c.RESTOptionsGetter = s.chainGetter(etcd.CreateRESTOptionsGetter(&options.SimpleStorageFactory{StorageConfig: etcd.StorageConfig}, c.ResourceTransformers))
	c.MergedResourceConfig = apiextensionsapiserver.DefaultAPIResourceConfigSource()
	return &apiextensionsapiserver.Config{
		GenericConfig: &genericapiserver.RecommendedConfig{Config: c, SharedInformerFactory: s.az.informers, ClientConfig: s.c.loopback},
		ExtraConfig: apiextensionsapiserver.ExtraConfig{
			CRDRESTOptionsGetter: s.chainGetter(apiextensionsoptions.NewCRDRESTOptionsGetter(*s.st.etcd, c.ResourceTransformers, c.StorageObjectCountTracker)),
			MasterCount:          1,
			// Conversion webhooks need a service resolver; kubewalk serves no Services.
			ServiceResolver: noServices{},
		},
	}
}

// newAggregatorConfig is kube's CreateAggregatorConfig for kubewalk: the derived config,
// APIServices stored as v1 JSON, the aggregator's default resource config. The settings for
// APIServices served by another server — the remote availability controller, the service
// resolver and the front-proxy client certificate — are set by aggregatedState.applyTo
// (aggregated.go) with the stand-ins for the Services and EndpointSlices kubewalk does not
// serve. The aggregator serves /openapi/v2 and /openapi/v3 itself, as in kube-apiserver: v3
// proxies each group's document to the server of the chain that serves it (a CRD group's to the
// apiextensions server); v2 merges its own spec with each delegate's, which it downloads on the
// first request for the merged document, not before (kube-aggregator's CacheableDownloader and
// NewOpenAPIServiceLazy), so kubewalk's own v2 document is still built only when asked for.
func (s *Server) newAggregatorConfig(base genericapiserver.Config) *aggregatorapiserver.Config {
	c := derivedConfig(&base)
	c.SkipOpenAPIInstallation = true // as kube's CreateAggregatorConfig: it has its own handlers
	withServerOpenAPI(&c, s.c.scheme.Scheme, aggregatoropenapi.GetOpenAPIDefinitions)
	etcd := *s.st.etcd
	etcd.StorageConfig.Codec = aggregatorscheme.Codecs.LegacyCodec(apiregistrationv1.SchemeGroupVersion, apiregistrationv1beta1.SchemeGroupVersion)
	etcd.StorageConfig.EncodeVersioner = runtime.NewMultiGroupVersioner(apiregistrationv1.SchemeGroupVersion, schema.GroupKind{Group: apiregistrationv1beta1.GroupName})
	etcd.StorageConfig.StorageObjectCountTracker = c.StorageObjectCountTracker
	c.RESTOptionsGetter = s.chainGetter(etcd.CreateRESTOptionsGetter(&options.SimpleStorageFactory{StorageConfig: etcd.StorageConfig}, c.ResourceTransformers))
	c.MergedResourceConfig = aggregatorapiserver.DefaultAPIResourceConfigSource()
	if rec := s.opts.Recorder; rec != nil {
		// The aggregator's filters are the only ones that run: record, inside them, that a
		// request reached its director, and which remote APIService (if any) it is for.
		build, in := c.BuildHandlerChainFunc, s.in
		c.BuildHandlerChainFunc = func(h http.Handler, c *genericapiserver.Config) http.Handler {
			return build(observe.FrontHandler(rec, in.remoteAPIService, h), c)
		}
	}
	return &aggregatorapiserver.Config{
		GenericConfig: &genericapiserver.RecommendedConfig{Config: c, SharedInformerFactory: s.az.informers, ClientConfig: s.c.loopback},
		ExtraConfig: aggregatorapiserver.ExtraConfig{
			ServiceResolver: noServices{},
			DisableRemoteAvailableConditionController: true,
		},
	}
}

// chainGetter wraps a server's RESTOptionsGetter as the storage phase wraps kubewalk's: with a
// Recorder or a Gate, each storage call is recorded and may be held.
func (s *Server) chainGetter(inner generic.RESTOptionsGetter) generic.RESTOptionsGetter {
	if s.opts.Recorder == nil && s.opts.Gate == nil {
		return inner
	}
	return &recordingGetter{inner: inner, seen: map[schema.GroupResource]generic.RESTOptions{}, record: s.opts.Recorder, gate: s.opts.Gate}
}

// noServices is the aggregator's and apiextensions' service resolver while kubewalk serves no
// Services or Endpoints: an APIService or conversion webhook that names a Service cannot be
// reached, and the request that needs it gets this error (a 503 from the aggregator's proxy).
type noServices struct{}

// ResolveEndpoint implements aggregatorapiserver.ServiceResolver and webhook.ServiceResolver.
func (noServices) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return nil, fmt.Errorf("service %s/%s:%d: kubewalk serves no Services or Endpoints, so no APIService or webhook can name one", namespace, name, port)
}

// apiServicePriorities are the discovery priorities of the groups kubewalk serves, kube's
// values (DefaultGenericAPIServicePriorities and cmd/kube-apiserver/app/aggregator.go) for the
// groups kube serves too. A group version missing here gets no APIService and so no discovery.
var apiServicePriorities = map[schema.GroupVersion]struct{ group, version int32 }{
	apis.CoreV1:                                   {18000, 1},
	apis.AppsV1:                                   {17800, 15},
	apis.AuthenticationV1:                         {17700, 15},
	apis.AuthorizationV1:                          {17600, 15},
	apis.RBACV1:                                   {17000, 15},
	apiextensionsv1.SchemeGroupVersion:            {16700, 15},
	{Group: learn.GroupName, Version: "v1"}:       {15000, 15},
	{Group: learn.GroupName, Version: "v1alpha1"}: {15000, 9},
}

// apiServicesToRegister is kube's apiServicesToRegister (aggregator.go): one local APIService
// (no Service: the aggregator hands its requests to the delegate) for each group version the
// delegate lists, each added to the autoregister controller to create on start.
func apiServicesToRegister(delegate genericapiserver.DelegationTarget, reg autoregister.AutoAPIServiceRegistration) []*apiregistrationv1.APIService {
	var out []*apiregistrationv1.APIService
	for _, p := range delegate.ListedPaths() {
		var gv schema.GroupVersion
		switch {
		case p == "/api/v1":
			gv = apis.CoreV1
		case strings.HasPrefix(p, "/apis/"):
			tokens := strings.Split(p, "/")
			if len(tokens) != 4 {
				continue
			}
			gv = schema.GroupVersion{Group: tokens[2], Version: tokens[3]}
		default:
			continue
		}
		prio, ok := apiServicePriorities[gv]
		if !ok {
			continue
		}
		svc := &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: gv.Version + "." + gv.Group},
			Spec: apiregistrationv1.APIServiceSpec{
				Group:                gv.Group,
				Version:              gv.Version,
				GroupPriorityMinimum: prio.group,
				VersionPriority:      prio.version,
			},
		}
		reg.AddAPIServiceToSyncOnStart(svc)
		out = append(out, svc)
	}
	return out
}

// newAggregator is kube's CreateAggregatorServer: the aggregator on the delegate, the
// autoregister controller fed by the delegate's groups and by the CRD registration controller,
// their post-start hook, and the autoregister-completion check that holds /readyz until every
// built-in APIService has been seen Available.
func (s *Server) newAggregator(cfg aggregatorapiserver.CompletedConfig, delegate genericapiserver.DelegationTarget, crds *apiextensionsapiserver.CustomResourceDefinitions) (*aggregatorapiserver.APIAggregator, []*apiregistrationv1.APIService, error) {
	// With a Recorder, the kube server's handler records that a request reached it.
	delegate = observe.Delegate(s.opts.Recorder, observe.ServerKube, delegate)
	agg, err := onFreshStack(func() (*aggregatorapiserver.APIAggregator, error) { return cfg.NewWithDelegate(delegate) })
	if err != nil {
		return nil, nil, fmt.Errorf("aggregator NewWithDelegate: %w", err)
	}
	lister := agg.APIRegistrationInformers.Apiregistration().V1().APIServices().Lister()
	s.in.apiServiceLister.Store(&lister)
	client, err := apiregistrationclient.NewForConfigAndClient(cfg.GenericConfig.LoopbackClientConfig, s.az.httpClient)
	if err != nil {
		return nil, nil, fmt.Errorf("aggregator: apiregistration client: %w", err)
	}
	apiServiceInformer := agg.APIRegistrationInformers.Apiregistration().V1().APIServices()
	autoRegistration := autoregister.NewAutoRegisterController(apiServiceInformer, client)
	builtIn := apiServicesToRegister(delegate, autoRegistration)
	crdRegistration, err := crdregistration.New(crds.Informers.Apiextensions().V1().CustomResourceDefinitions(), autoRegistration)
	if err != nil {
		return nil, nil, err
	}
	if mgr := cfg.GenericConfig.AggregatedDiscoveryGroupManager; mgr != nil {
		for gv, p := range apiServicePriorities {
			mgr.SetGroupVersionPriority(metav1.GroupVersion(gv), int(p.group), int(p.version))
		}
	}
	apiServicesSynced := apiServiceInformer.Informer().HasSyncedChecker()
	err = agg.GenericAPIServer.AddPostStartHook(hookAutoregistration, s.in.track(func(hc genericapiserver.PostStartHookContext) error {
		go crdRegistration.Run(5, hc.Done())
		go func() {
			// As kube: the CRDs present first, so the first sync deletes no CRD's APIService.
			// After a stop, Run returns at once and shuts its queue down, which New started.
			select {
			case <-crdRegistration.InitialSyncDone():
			case <-hc.Done():
			}
			// The autoregister controller's Run waits for the APIService informer with
			// WaitForCacheSync, which looks first at once and then only every 100 ms
			// (client-go v0.37.2 tools/cache/shared_informer.go:491 and :539): when the
			// CRD informer synced before the APIService informer, the built-in APIServices
			// were created a poll later, and autoregister-completion, which holds /readyz,
			// passed that much later. Waiting here for the informer's own signal makes
			// that first look pass.
			select {
			case <-apiServicesSynced.Done():
			case <-hc.Done():
			}
			autoRegistration.Run(5, hc.Done())
		}()
		return nil
	}))
	if err != nil {
		return nil, nil, fmt.Errorf("post-start hook %s: %w", hookAutoregistration, err)
	}
	if err := agg.GenericAPIServer.AddBootSequenceHealthChecks(apiServicesAvailableCheck(checkAutoregisterComplete, builtIn, apiServiceInformer)); err != nil {
		return nil, nil, fmt.Errorf("health check %s: %w", checkAutoregisterComplete, err)
	}
	return agg, builtIn, nil
}

// apiServicesAvailableCheck is kube's makeAPIServiceAvailableHealthCheck: healthy once each of
// the APIServices has been seen Available at least once.
func apiServicesAvailableCheck(name string, services []*apiregistrationv1.APIService, informer apiserviceinformers.APIServiceInformer) healthz.HealthChecker {
	var mu sync.RWMutex
	pending := sets.New[string]()
	for _, svc := range services {
		pending.Insert(svc.Name)
	}
	seen := func(svc *apiregistrationv1.APIService) {
		mu.Lock()
		defer mu.Unlock()
		if pending.Has(svc.Name) && v1helper.IsAPIServiceConditionTrue(svc, apiregistrationv1.Available) {
			pending.Delete(svc.Name)
		}
	}
	informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{ //nolint:errcheck // as upstream: nothing to do with the registration
		AddFunc:    func(obj any) { seen(obj.(*apiregistrationv1.APIService)) },
		UpdateFunc: func(_, obj any) { seen(obj.(*apiregistrationv1.APIService)) },
	})
	return healthz.NamedCheck(name, func(*http.Request) error {
		mu.RLock()
		defer mu.RUnlock()
		if pending.Len() > 0 {
			return fmt.Errorf("missing APIService: %v", sets.List(pending))
		}
		return nil
	})
}

// remoteAPIService is the APIService that serves group/version when it names a Service, as
// the aggregator's lister has it: what its proxy handler will do with a request for it. nil
// for a local APIService, none, or before the aggregator is built.
func (in *installState) remoteAPIService(group, version string) *observe.RemoteAPIService {
	lister := in.apiServiceLister.Load()
	if lister == nil {
		return nil
	}
	svc, err := (*lister).Get(version + "." + group)
	if err != nil || svc.Spec.Service == nil {
		return nil
	}
	r := &observe.RemoteAPIService{Name: svc.Name, Service: svc.Spec.Service.Namespace + "/" + svc.Spec.Service.Name}
	if p := svc.Spec.Service.Port; p != nil {
		r.Service += ":" + strconv.Itoa(int(*p))
	}
	if c := v1helper.GetAPIServiceConditionByType(svc, apiregistrationv1.Available); c != nil {
		r.Available = c.Status == apiregistrationv1.ConditionTrue
		r.Reason, r.Message = c.Reason, c.Message
	}
	return r
}

// newNotFoundHandler is the handler at the end of the chain, as CreateServerChain makes it: a
// 404 Status in the client's format, or a 503 while a server's routes are still being installed
// (the mux-and-discovery-complete signals, e.g. the CRD informer not yet synced).
func newNotFoundHandler(c *genericapiserver.Config) http.Handler {
	return notfoundhandler.New(c.Serializer, genericapifilters.NoMuxAndDiscoveryIncompleteKey)
}
