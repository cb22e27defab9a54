package server

// This file runs kubewalk's aggregated API: the extension server (server/extension) that
// serves extension.learn.kubewalk.io beside kubewalk's own chain, the APIService that makes the
// aggregator proxy that group to it, and what the aggregator needs to reach it and to prove
// itself to it — the front-proxy client certificate, and a service resolver with a Service and
// an EndpointSlice to resolve.
//
// kube-apiserver resolves an APIService's spec.service through the Services and
// EndpointSlices it stores; kubewalk stores neither. What stands in for them is described at
// extensionEndpoints.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"

	"github.com/kubewalk/kubewalk/server/extension"
	extensionv1alpha1 "github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1"
)

// Names of the aggregated API's objects.
const (
	// ExtensionAPIService is the APIService kubewalk registers for the extension server.
	ExtensionAPIService = "v1alpha1." + extensionv1alpha1.GroupName
	// ExtensionNamespace and ExtensionService name the Service the APIService points at.
	ExtensionNamespace = metav1.NamespaceSystem
	ExtensionService   = "kubewalk-extension"
	// ExtensionUser is the extension server's own identity towards kubewalk, the user its
	// SubjectAccessReviews are sent as (a client certificate from the run's CA).
	ExtensionUser = "kubewalk-extension"
	// extensionRBAC names the ClusterRole and ClusterRoleBinding that let ExtensionUser create
	// SubjectAccessReviews: what a real extension gets from kube's system:auth-delegator role.
	extensionRBAC = "kubewalk-extension:auth-delegator"
	// FrontProxyClientName is the common name of the aggregator's front-proxy client
	// certificate, the one name the extension server trusts to set X-Remote-User.
	FrontProxyClientName = "front-proxy-client"
	// extensionPortName is the port name of the Service and the EndpointSlice.
	extensionPortName = "https"
)

// aggregatedState is the aggregated API: built in the install phase, run from serve on.
type aggregatedState struct {
	frontProxyCA        *keyPair
	frontProxyCAFile    string // --requestheader-client-ca-file of the extension
	proxyCertFile       string // the aggregator's --proxy-client-cert-file
	proxyKeyFile        string // and --proxy-client-key-file
	endpoints           *extensionEndpoints
	extension           *extension.Server
	resolver            aggregatorapiserver.ServiceResolver
	mu                  sync.Mutex
	background          sync.WaitGroup // the serve phase's start of the extension
	registered          bool           // the APIService has been created
	startErr            error          // why the serve phase's start of the extension failed
	listenErr           error          // why no port could be reserved for the extension at install
	registrationChanged chan struct{}  // closed and replaced when registered or startErr change
}

// newAggregated runs at install, before the aggregator's config is made: it generates the
// front-proxy CA and the aggregator's client certificate (files in the work dir, mode 0600:
// the aggregator reads them from files), the extension server's serving certificate (for
// 127.0.0.1 and the Service's DNS name, as the aggregator dials the address it resolved and
// checks the certificate against <service>.<namespace>.svc) and its identity, and the
// Service and EndpointSlice stand-ins, on the port the extension server will serve on.
func (s *Server) newAggregated() (*aggregatedState, error) {
	ag := &aggregatedState{registrationChanged: make(chan struct{})}
	ca, err := newCA("kubewalk-front-proxy-ca")
	if err != nil {
		return nil, fmt.Errorf("front-proxy CA: %w", err)
	}
	client, err := ca.newClientCert(FrontProxyClientName, nil)
	if err != nil {
		return nil, fmt.Errorf("front-proxy client certificate: %w", err)
	}
	ag.frontProxyCA = ca
	ag.frontProxyCAFile = filepath.Join(s.workDir, "front-proxy-ca.crt")
	ag.proxyCertFile = filepath.Join(s.workDir, "front-proxy-client.crt")
	ag.proxyKeyFile = filepath.Join(s.workDir, "front-proxy-client.key")
	for path, data := range map[string][]byte{ag.frontProxyCAFile: ca.CertPEM, ag.proxyCertFile: client.CertPEM, ag.proxyKeyFile: client.KeyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, fmt.Errorf("front-proxy: %w", err)
		}
	}

	svcDNS := ExtensionService + "." + ExtensionNamespace + ".svc"
	serving, err := s.c.ca.newServingCert([]net.IP{net.IPv4(127, 0, 0, 1)}, []string{svcDNS})
	if err != nil {
		return nil, fmt.Errorf("extension serving certificate: %w", err)
	}
	id, err := s.c.ca.newClientCert(ExtensionUser, nil)
	if err != nil {
		return nil, fmt.Errorf("extension identity: %w", err)
	}
	ag.extension, err = extension.New(extension.Config{
		Host:                "127.0.0.1",
		ServingCertPEM:      serving.CertPEM,
		ServingKeyPEM:       serving.KeyPEM,
		ServingCAPEM:        s.c.ca.CertPEM,
		RequestHeaderCAFile: ag.frontProxyCAFile,
		AllowedNames:        []string{FrontProxyClientName},
		Authorization: &rest.Config{
			Host:            s.c.loopback.Host,
			TLSClientConfig: rest.TLSClientConfig{CAData: s.c.ca.CertPEM, CertData: id.CertPEM, KeyData: id.KeyPEM},
			UserAgent:       "kubewalk-extension",
		},
		Version: KubernetesVersion,
	})
	if err != nil {
		return nil, err
	}
	// A process confined to known ports (class ssh's sandbox) may bind no other: the run goes
	// on without the extension, and the serve phase logs why (startAggregated).
	port, err := ag.extension.Listen()
	if err != nil {
		ag.listenErr = err
	}
	ag.endpoints = newExtensionEndpoints(int32(port))
	return ag, nil
}

// applyTo gives the aggregator's config what it needs for the extension: the front-proxy
// client certificate, the remote availability controller, and the service resolver, which
// kube-apiserver builds in buildServiceResolver (cmd/kube-apiserver/app/server.go) and kubewalk
// builds the same way with --enable-aggregator-routing: NewEndpointServiceResolver over the
// Service lister and the EndpointSlices, wrapped in NewLoopbackServiceResolver for
// default/kubernetes:443. The Services and EndpointSlices are the stand-ins of
// extensionEndpoints, put into the shared informer factory in place of the informers that
// would LIST and WATCH them from kubewalk.
func (ag *aggregatedState) applyTo(extra *aggregatorapiserver.ExtraConfig, factory informers.SharedInformerFactory, self string) error {
	ag.endpoints.register(factory)
	slices, err := proxy.NewEndpointSliceIndexerGetter(factory.Discovery().V1().EndpointSlices())
	if err != nil {
		return fmt.Errorf("aggregator service resolver: %w", err)
	}
	host, err := url.Parse(self)
	if err != nil {
		return fmt.Errorf("aggregator service resolver: %w", err)
	}
	ag.resolver = aggregatorapiserver.NewLoopbackServiceResolver(
		aggregatorapiserver.NewEndpointServiceResolver(factory.Core().V1().Services().Lister(), slices), host)
	extra.ServiceResolver = ag.resolver
	extra.ProxyClientCertFile, extra.ProxyClientKeyFile = ag.proxyCertFile, ag.proxyKeyFile
	extra.DisableRemoteAvailableConditionController = false
	return nil
}

// extensionAPIService is the APIService for the extension server: its group version, served
// by the Service ExtensionNamespace/ExtensionService on port 443, its serving certificate
// checked against the run's CA.
func (s *Server) extensionAPIService() *apiregistrationv1.APIService {
	port := int32(443)
	return &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: ExtensionAPIService},
		Spec: apiregistrationv1.APIServiceSpec{
			Group:                extensionv1alpha1.GroupName,
			Version:              extensionv1alpha1.SchemeGroupVersion.Version,
			Service:              &apiregistrationv1.ServiceReference{Namespace: ExtensionNamespace, Name: ExtensionService, Port: &port},
			CABundle:             s.c.ca.CertPEM,
			GroupPriorityMinimum: 1000,
			VersionPriority:      15,
		},
	}
}

// startAggregated runs once the server is ready, in the background so that /readyz does not
// wait for it: it starts the extension server, then applies what the extension's install
// manifests would — the RBAC that lets the extension delegate authorization, and the
// APIService. Close waits for it.
func (s *Server) startAggregated(ctx context.Context) {
	ag := s.ag
	ag.background.Add(1)
	go func() {
		defer ag.background.Done()
		err := ag.listenErr
		if err == nil {
			err = s.applyExtension(ctx)
		}
		if err != nil && ctx.Err() == nil {
			klog.ErrorS(err, "The aggregated API is not available: the extension server did not start or its APIService was not registered")
		}
		ag.mu.Lock()
		ag.startErr = err
		if err == nil {
			ag.registered = true
		}
		close(ag.registrationChanged)
		ag.registrationChanged = make(chan struct{})
		ag.mu.Unlock()
	}()
}

func (s *Server) applyExtension(ctx context.Context) error {
	if err := s.ag.extension.Start(ctx); err != nil {
		return err
	}
	s.ag.endpoints.setReady(true)
	client, err := kubernetes.NewForConfigAndClient(s.c.loopback, s.az.httpClient)
	if err != nil {
		return fmt.Errorf("extension manifests: %w", err)
	}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: extensionRBAC},
		Rules: []rbacv1.PolicyRule{
			{Verbs: []string{"create"}, APIGroups: []string{"authorization.k8s.io"}, Resources: []string{"subjectaccessreviews"}},
		},
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: extensionRBAC},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: extensionRBAC},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: ExtensionUser}},
	}
	if _, err := client.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("extension manifests: ClusterRole %s: %w", role.Name, err)
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("extension manifests: ClusterRoleBinding %s: %w", binding.Name, err)
	}
	apiServices, err := apiregistrationclient.NewForConfigAndClient(s.c.loopback, s.az.httpClient)
	if err != nil {
		return fmt.Errorf("extension manifests: %w", err)
	}
	want := s.extensionAPIService()
	_, err = apiServices.APIServices().Create(ctx, want, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// From an earlier run on the same etcd: the CA bundle is this run's.
		var cur *apiregistrationv1.APIService
		if cur, err = apiServices.APIServices().Get(ctx, want.Name, metav1.GetOptions{}); err == nil {
			cur.Spec = want.Spec
			_, err = apiServices.APIServices().Update(ctx, cur, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("extension manifests: APIService %s: %w", want.Name, err)
	}
	return nil
}

// WaitExtensionRegistered waits until the serve phase has started the extension server and
// registered its APIService, and returns why that failed if it did.
func (s *Server) WaitExtensionRegistered(ctx context.Context) error {
	if s.ag == nil {
		return errors.New("extension: the install phase has not run")
	}
	for {
		s.ag.mu.Lock()
		registered, err, changed := s.ag.registered, s.ag.startErr, s.ag.registrationChanged
		s.ag.mu.Unlock()
		if registered || err != nil {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("extension: waiting for the APIService: %w", context.Cause(ctx))
		}
	}
}

// StopExtension stops the extension server, as if its pod went away: its endpoint stops being
// ready first, as the EndpointSlice controller would mark it, then the server stops. The
// APIService stays; the availability controller marks it unavailable.
func (s *Server) StopExtension() error {
	if s.ag == nil {
		return errors.New("extension: the install phase has not run")
	}
	s.ag.endpoints.setReady(false)
	return s.ag.extension.Stop()
}

// StartExtension starts the extension server again (a new GenericAPIServer on the same port),
// and marks its endpoint ready once it serves.
func (s *Server) StartExtension(ctx context.Context) error {
	if s.ag == nil {
		return errors.New("extension: the install phase has not run")
	}
	if s.ServeStatus() != Serving {
		return errors.New("extension: kubewalk is not serving")
	}
	// Close cancels the start too.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.base, cancel)()
	if err := s.ag.extension.Start(ctx); err != nil {
		return err
	}
	s.ag.endpoints.setReady(true)
	return nil
}

// ExtensionRunning reports whether the extension server runs.
func (s *Server) ExtensionRunning() bool {
	return s.ag != nil && s.ag.extension.Running()
}

// ExtensionAddress returns the extension server's https URL, "" before install.
func (s *Server) ExtensionAddress() string {
	if s.ag == nil {
		return ""
	}
	return fmt.Sprintf("https://127.0.0.1:%d", s.ag.extension.Port())
}

// stop stops the extension server, once the serve phase's start of it has finished.
func (ag *aggregatedState) stop() error {
	ag.background.Wait()
	ag.endpoints.stop()
	return ag.extension.Stop()
}

// extensionEndpoints stands in for the Service and the EndpointSlice a cluster would have for
// the extension server. kube-aggregator's service resolver and its remote availability
// controller read Services and EndpointSlices from the shared informer factory; kubewalk
// serves neither (and has no kube-proxy or EndpointSlice controller), so their informers in
// that factory are replaced (SharedInformerFactory.InformerFor, before anything asks for
// them) by informers whose list and watch come from here instead of from kubewalk's API:
//
//   - Service kube-system/kubewalk-extension: clusterIP None (headless: no virtual IP, as
//     there is no kube-proxy to route one), port 443 named https, target port the extension
//     server's loopback port;
//   - EndpointSlice kube-system/kubewalk-extension for that Service: one endpoint, 127.0.0.1,
//     port https = the extension server's port, ready while the extension server serves —
//     what the EndpointSlice controller would write from its pod's readiness.
//
// Everything that reads them is kube-aggregator's own code (NewEndpointServiceResolver,
// remoteavailability). They are not in etcd and not served: kubectl get services finds none.
type extensionEndpoints struct {
	mu       sync.Mutex
	rv       uint64
	service  *corev1.Service
	slice    *discoveryv1.EndpointSlice
	services *memoryListWatch
	slices   *memoryListWatch
}

func newExtensionEndpoints(port int32) *extensionEndpoints {
	e := &extensionEndpoints{rv: 1}
	e.service = &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ExtensionNamespace, Name: ExtensionService, ResourceVersion: "1", CreationTimestamp: metav1.Now()},
		Spec: corev1.ServiceSpec{
			Type:      corev1.ServiceTypeClusterIP,
			ClusterIP: corev1.ClusterIPNone,
			Ports:     []corev1.ServicePort{{Name: extensionPortName, Protocol: corev1.ProtocolTCP, Port: 443, TargetPort: intstr.FromInt32(port)}},
		},
	}
	ready := false
	e.slice = &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ExtensionNamespace, Name: ExtensionService, ResourceVersion: "1", CreationTimestamp: metav1.Now(),
			Labels: map[string]string{discoveryv1.LabelServiceName: ExtensionService},
		},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"127.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr(extensionPortName), Protocol: ptr(corev1.ProtocolTCP), Port: &port}},
	}
	e.services = newMemoryListWatch(&corev1.ServiceList{}, e.service)
	e.slices = newMemoryListWatch(&discoveryv1.EndpointSliceList{}, e.slice)
	return e
}

func ptr[T any](v T) *T { return &v }

// register puts the stand-in informers into factory.
func (e *extensionEndpoints) register(factory informers.SharedInformerFactory) {
	factory.InformerFor(&corev1.Service{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
		return cache.NewSharedIndexInformer(e.services, &corev1.Service{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	})
	factory.InformerFor(&discoveryv1.EndpointSlice{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
		return cache.NewSharedIndexInformer(e.slices, &discoveryv1.EndpointSlice{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	})
}

// setReady sets the endpoint's ready condition, as the EndpointSlice controller would from the
// pod's readiness.
func (e *extensionEndpoints) setReady(ready bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if *e.slice.Endpoints[0].Conditions.Ready == ready {
		return
	}
	e.rv++
	s := e.slice.DeepCopy()
	s.Endpoints[0].Conditions.Ready = &ready
	s.ResourceVersion = fmt.Sprint(e.rv)
	e.slice = s
	e.slices.update(s)
}

// ready reports the endpoint's ready condition.
func (e *extensionEndpoints) ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return *e.slice.Endpoints[0].Conditions.Ready
}

func (e *extensionEndpoints) stop() {
	e.services.stop()
	e.slices.stop()
}

// memoryListWatch is the list and watch of one object held in memory: a cache.ListerWatcher
// for an informer. A watch from any resource version but the current one is refused as
// expired, so the reflector lists again and misses no update.
type memoryListWatch struct {
	mu          sync.Mutex
	list        runtime.Object // an empty list of the object's kind
	obj         runtime.Object
	broadcaster *watch.Broadcaster
}

func newMemoryListWatch(list, obj runtime.Object) *memoryListWatch {
	return &memoryListWatch{list: list, obj: obj, broadcaster: watch.NewBroadcaster(16, watch.WaitIfChannelFull)}
}

func resourceVersion(obj runtime.Object) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}

// List implements cache.Lister.
func (m *memoryListWatch) List(metav1.ListOptions) (runtime.Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.list.DeepCopyObject()
	if err := meta.SetList(list, []runtime.Object{m.obj.DeepCopyObject()}); err != nil {
		return nil, err
	}
	la, err := meta.ListAccessor(list)
	if err != nil {
		return nil, err
	}
	la.SetResourceVersion(resourceVersion(m.obj))
	return list, nil
}

// Watch implements cache.Watcher.
func (m *memoryListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if opts.ResourceVersion != resourceVersion(m.obj) {
		return nil, apierrors.NewResourceExpired(fmt.Sprintf("resource version %q is not the current %q", opts.ResourceVersion, resourceVersion(m.obj)))
	}
	return m.broadcaster.Watch()
}

// IsWatchListSemanticsUnSupported tells the reflector to list and then watch: this source
// sends no initial events on a watch.
func (m *memoryListWatch) IsWatchListSemanticsUnSupported() bool { return true }

func (m *memoryListWatch) update(obj runtime.Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.obj = obj
	m.broadcaster.Action(watch.Modified, obj.DeepCopyObject()) //nolint:errcheck // fails only once shut down
}

func (m *memoryListWatch) stop() { m.broadcaster.Shutdown() }
