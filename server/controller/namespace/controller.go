// Package namespace is kubewalk's namespace controller: the part of kube-controller-manager
// that empties a namespace being deleted and then lets it go. It is a smaller rewrite of
// kubernetes' pkg/controller/namespace (NamespaceController) and its
// deletion/namespaced_resources_deleter.go, running inside the kubewalk process on the
// server's loopback client.
//
// For each namespace with a deletion timestamp it makes sure the phase is Terminating,
// deletes every namespaced resource the server serves in it (found through discovery, pods
// first, through the metadata client), waits until none remain, then removes the "kubernetes"
// finalizer through namespaces/finalize. The API server removes the namespace when its last
// finalizer goes.
//
// Differences from upstream: no namespace status conditions are written; pods are not given
// a graceful-termination estimate (kubewalk runs no kubelet and deletes pods at once); a
// Terminating namespace whose spec.finalizers are already empty is still emptied and then
// deleted again (upstream leaves it alone), so a namespace created without the finalizer by an
// older kubewalk in a --data-dir never stays Terminating; and the controller waits GracePeriod,
// not 5 s, before it acts, because one API server and one etcd member leave no replica behind.
package namespace

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

const (
	// GracePeriod is how long the controller waits after seeing a namespace deleted before it
	// deletes the contents, so that a create admitted just before the delete has reached etcd.
	// Upstream waits 5 s (namespaceDeletionGracePeriod) to cover other API servers and etcd
	// members too.
	GracePeriod = time.Second

	// finalizerEstimateSeconds is how long to wait for objects that are held by finalizers
	// before looking again (upstream's default estimate).
	finalizerEstimateSeconds = int64(15)
)

// podsGVR is deleted first: other contents may be needed while pods terminate.
var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Controller deletes the contents of namespaces being deleted and then removes their
// "kubernetes" finalizer. Run it once, with Run or Start.
type Controller struct {
	client   kubernetes.Interface
	metadata metadata.Interface
	discover func() ([]*metav1.APIResourceList, error)
	informer cache.SharedIndexInformer
	lister   corelisters.NamespaceLister
	queue    workqueue.TypedRateLimitingInterface[string]
	grace    time.Duration

	mu      sync.Mutex
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
}

// New returns a controller that reads namespaces from informer (its factory must be started
// by the caller), changes them through client, discovers resources through client's discovery
// client, deletes contents through md, and waits grace after a namespace is deleted.
func New(client kubernetes.Interface, md metadata.Interface, informer coreinformers.NamespaceInformer, grace time.Duration) *Controller {
	return &Controller{
		client:   client,
		metadata: md,
		discover: client.Discovery().ServerPreferredNamespacedResources,
		informer: informer.Informer(),
		lister:   informer.Lister(),
		grace:    grace,
	}
}

// NewForConfig is New with clients built on config and httpClient (the server's loopback
// client, whose idle connections its owner closes) and the default GracePeriod.
func NewForConfig(config *rest.Config, httpClient *http.Client, informer coreinformers.NamespaceInformer) (*Controller, error) {
	client, err := kubernetes.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("namespace controller: clientset: %w", err)
	}
	md, err := metadata.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("namespace controller: metadata client: %w", err)
	}
	return New(client, md, informer, GracePeriod), nil
}

// Start runs the controller with workers workers in a new goroutine until ctx ends or Stop is
// called, and returns at once. It does nothing after Stop or a first Start. Its signature fits
// a post-start hook, whose context ends when the server stops.
func (c *Controller) Start(ctx context.Context, workers int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.done != nil {
		return
	}
	ctx, c.cancel = context.WithCancel(ctx)
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		c.Run(ctx, workers)
	}()
}

// Stop stops a started controller and waits until its goroutines have returned; later Starts
// do nothing. It is safe to call more than once, and before or without Start.
func (c *Controller) Stop() {
	c.mu.Lock()
	c.stopped = true
	cancel, done := c.cancel, c.done
	c.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Run watches namespaces and works on those being deleted with workers workers until ctx
// ends; it returns once every worker and its event handler have stopped. Call it once.
func (c *Controller) Run(ctx context.Context, workers int) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.LoggerWithName(klog.FromContext(ctx), "namespace-controller")
	ctx = klog.NewContext(ctx, logger)
	// The queue starts a goroutine when it is made, so it is made here and not in New.
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		// Upstream also caps all retries at 10 qps; one learner's namespaces need no cap.
		workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 60*time.Second),
		workqueue.TypedRateLimitingQueueConfig[string]{})
	defer c.queue.ShutDown()

	reg, err := c.informer.AddEventHandlerWithOptions(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.enqueue(obj) },
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
	}, cache.HandlerOptions{Logger: &logger}) // resyncs as often as the informer factory does

	if err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "namespace controller: cannot watch namespaces")
		return
	}
	defer func() {
		if err := cache.ShutDownEventHandler(c.informer, reg); err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "namespace controller: remove event handler")
		}
	}()

	logger.Info("Starting namespace controller")
	defer logger.Info("Shutting down namespace controller")
	if !cache.WaitForNamedCacheSyncWithContext(ctx, reg.HasSynced) {
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { wait.UntilWithContext(ctx, c.work, time.Second) })
	}
	<-ctx.Done()
	c.queue.ShutDown() // workers waiting in Get return
	wg.Wait()
}

// enqueue queues a namespace being deleted, after the grace period.
func (c *Controller) enqueue(obj any) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok || ns.DeletionTimestamp.IsZero() {
		return
	}
	c.queue.AddAfter(ns.Name, c.grace)
}

// work processes queued namespaces until the queue shuts down. A namespace is in the queue at
// most once and never handled by two workers at the same time.
func (c *Controller) work(ctx context.Context) {
	for c.processNext(ctx) {
	}
}

func (c *Controller) processNext(ctx context.Context) bool {
	name, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(name)
	err := c.syncFromCache(ctx, name)
	var remaining *ResourcesRemainingError
	switch {
	case err == nil:
		c.queue.Forget(name)
	case errors.As(err, &remaining):
		wait := time.Duration(remaining.Estimate/2+1) * time.Second
		klog.FromContext(ctx).V(4).Info("Content remaining in namespace", "namespace", name, "wait", wait)
		c.queue.AddAfter(name, wait)
	default:
		c.queue.AddRateLimited(name)
		if ctx.Err() == nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Deletion of namespace failed", "namespace", name)
		}
	}
	return true
}

// syncFromCache looks the namespace up in the informer cache and, unless it is gone, syncs it.
func (c *Controller) syncFromCache(ctx context.Context, name string) error {
	if _, err := c.lister.Get(name); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	return c.sync(ctx, name)
}

// ResourcesRemainingError reports that content remains in a namespace, held by finalizers,
// and estimates in seconds how long it will take to go.
type ResourcesRemainingError struct {
	Estimate int64
}

func (e *ResourcesRemainingError) Error() string {
	return fmt.Sprintf("some content remains in the namespace, estimate %d seconds before it is removed", e.Estimate)
}

// sync brings one namespace being deleted to its end: phase Terminating, contents deleted,
// the "kubernetes" finalizer removed, and a last DELETE when no finalizer is left. It reads
// the live namespace, since other clients edit it during termination, and returns
// ResourcesRemainingError while content waits on finalizers.
func (c *Controller) sync(ctx context.Context, name string) error {
	namespaces := c.client.CoreV1().Namespaces()
	ns, err := namespaces.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if ns.DeletionTimestamp.IsZero() {
		return nil
	}
	uid := ns.UID

	ns, err = c.updateOnConflict(ctx, ns, func(ns *corev1.Namespace) (*corev1.Namespace, error) {
		if ns.Status.Phase == corev1.NamespaceTerminating {
			return ns, nil
		}
		ns = ns.DeepCopy()
		ns.Status.Phase = corev1.NamespaceTerminating
		return namespaces.UpdateStatus(ctx, ns, metav1.UpdateOptions{})
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}

	estimate, err := c.deleteAllContent(ctx, ns.Name)
	if err != nil {
		return err
	}
	if estimate > 0 {
		return &ResourcesRemainingError{Estimate: estimate}
	}

	if slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
		ns, err = c.updateOnConflict(ctx, ns, func(ns *corev1.Namespace) (*corev1.Namespace, error) {
			ns = ns.DeepCopy()
			ns.Spec.Finalizers = withoutKubernetes(ns.Spec.Finalizers)
			return namespaces.Finalize(ctx, ns, metav1.UpdateOptions{})
		})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
	}
	// Removing the last finalizer through namespaces/finalize removes the namespace; one that
	// never had ours, or whose finalizers someone else emptied, needs a DELETE again.
	if len(ns.Spec.Finalizers) != 0 || len(ns.Finalizers) != 0 {
		return nil
	}
	err = namespaces.Delete(ctx, ns.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return nil // gone, or a new namespace of the same name
	}
	return err
}

// withoutKubernetes returns finalizers without "kubernetes", sorted and without duplicates, as
// upstream's finalizeNamespace writes them.
func withoutKubernetes(finalizers []corev1.FinalizerName) []corev1.FinalizerName {
	set := sets.New(finalizers...)
	set.Delete(corev1.FinalizerKubernetes)
	return sets.List(set)
}

// updateOnConflict applies fn to ns and, on a conflict, to the namespace read again, as long as
// its UID stays the same.
func (c *Controller) updateOnConflict(ctx context.Context, ns *corev1.Namespace, fn func(*corev1.Namespace) (*corev1.Namespace, error)) (*corev1.Namespace, error) {
	latest := ns
	var result *corev1.Namespace
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		result, err = fn(latest)
		if !apierrors.IsConflict(err) {
			return err
		}
		fresh, getErr := c.client.CoreV1().Namespaces().Get(ctx, latest.Name, metav1.GetOptions{})
		if getErr != nil {
			return getErr
		}
		if fresh.UID != latest.UID {
			return fmt.Errorf("namespace %s: uid changed across retries", latest.Name)
		}
		latest = fresh
		return err
	})
	return result, err
}

// deleteAllContent deletes every namespaced resource that supports delete in ns, pods first,
// and returns how many seconds to wait when some content is held by finalizers. Discovery
// errors are reported but do not stop it: the groups that answered are still emptied.
func (c *Controller) deleteAllContent(ctx context.Context, ns string) (int64, error) {
	var errs []error
	lists, err := c.discover()
	if err != nil {
		errs = append(errs, fmt.Errorf("discover resources: %w", err))
	}
	verbs := map[schema.GroupVersionResource]sets.Set[string]{}
	for _, list := range discovery.FilteredBy(discovery.SupportsAllVerbs{Verbs: []string{"delete"}}, lists) {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, r := range list.APIResources {
			verbs[gv.WithResource(r.Name)] = sets.New(r.Verbs...)
		}
	}

	var estimate int64
	if v, ok := verbs[podsGVR]; ok {
		remaining, est, err := c.deleteResource(ctx, podsGVR, v, ns)
		if err != nil {
			errs = append(errs, fmt.Errorf("delete pods in %s: %w", ns, err))
		}
		if remaining > 0 {
			return est, errors.Join(errs...)
		}
		delete(verbs, podsGVR)
	}
	gvrs := make([]schema.GroupVersionResource, 0, len(verbs))
	for gvr := range verbs {
		gvrs = append(gvrs, gvr)
	}
	slices.SortFunc(gvrs, func(a, b schema.GroupVersionResource) int { return cmp.Compare(a.String(), b.String()) })
	for _, gvr := range gvrs {
		_, est, err := c.deleteResource(ctx, gvr, verbs[gvr], ns)
		if err != nil {
			errs = append(errs, err)
		}
		estimate = max(estimate, est)
	}
	return estimate, errors.Join(errs...)
}

// deleteResource deletes every object of gvr in ns, with one deletecollection when the
// resource offers it and one delete per listed object otherwise, then lists again. It returns
// how many objects remain and, when finalizers hold them, how long to wait; objects that
// remain without a finalizer are an error.
func (c *Controller) deleteResource(ctx context.Context, gvr schema.GroupVersionResource, verbs sets.Set[string], ns string) (int, int64, error) {
	res := c.metadata.Resource(gvr).Namespace(ns)
	// No garbage collector must add the orphan finalizer to what is deleted here.
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{PropagationPolicy: &background}
	unsupported := func(err error) bool { return apierrors.IsMethodNotSupported(err) || apierrors.IsNotFound(err) }

	deletedAll := false
	if verbs.Has("deletecollection") {
		err := res.DeleteCollection(ctx, opts, metav1.ListOptions{})
		if err != nil && !unsupported(err) {
			return 0, 0, fmt.Errorf("deletecollection %s in %s: %w", gvr, ns, err)
		}
		deletedAll = err == nil
	}
	if !verbs.Has("list") {
		return 0, 0, nil // nothing to delete by name, nothing to check with
	}
	if !deletedAll {
		list, err := res.List(ctx, metav1.ListOptions{})
		if err != nil && !unsupported(err) {
			return 0, 0, fmt.Errorf("list %s in %s: %w", gvr, ns, err)
		}
		if list != nil {
			for _, item := range list.Items {
				if err := res.Delete(ctx, item.Name, opts); err != nil && !unsupported(err) {
					return 0, 0, fmt.Errorf("delete %s %s/%s: %w", gvr, ns, item.Name, err)
				}
			}
		}
	}

	list, err := res.List(ctx, metav1.ListOptions{})
	if unsupported(err) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("list %s in %s: %w", gvr, ns, err)
	}
	if len(list.Items) == 0 {
		return 0, 0, nil
	}
	for _, item := range list.Items {
		if len(item.Finalizers) > 0 {
			return len(list.Items), finalizerEstimateSeconds, nil
		}
	}
	return len(list.Items), 0, fmt.Errorf("unexpected items still remain in namespace %s for %s", ns, gvr)
}
