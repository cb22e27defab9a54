// Package crdregistration keeps one APIService per served CRD group version, so that the
// aggregator lists custom resources in discovery and routes their requests to the delegate
// (the kube server, which passes them on to the apiextensions server).
//
// It is kube-apiserver's pkg/controlplane/controller/crdregistration
// (NewCRDRegistrationController, k8s.io/kubernetes v1.37.2) carried over nearly line for line:
// kube-apiserver's own module cannot be imported, and the library modules
// (apiextensions-apiserver, kube-aggregator) do not hold it. It watches CRDs through the
// apiextensions server's informer and tells the aggregator's autoregister controller which
// APIServices to keep (group priority 1000, version priority 100, as upstream).
package crdregistration

import (
	"fmt"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdinformers "k8s.io/apiextensions-apiserver/pkg/client/informers/externalversions/apiextensions/v1"
	crdlisters "k8s.io/apiextensions-apiserver/pkg/client/listers/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// AutoAPIServiceRegistration is what the controller tells about the APIServices to keep:
// kube-aggregator's autoregister controller (autoregister.AutoAPIServiceRegistration).
type AutoAPIServiceRegistration interface {
	// AddAPIServiceToSync adds an API service to auto-register.
	AddAPIServiceToSync(in *apiregistrationv1.APIService)
	// RemoveAPIServiceToSync removes an API service to auto-register.
	RemoveAPIServiceToSync(name string)
}

// CRD APIServices' priorities, as upstream: below every built-in group.
const (
	GroupPriorityMinimum = 1000
	VersionPriority      = 100
)

// Controller registers CRD group versions with the autoregister controller.
type Controller struct {
	crdLister crdlisters.CustomResourceDefinitionLister
	crdSynced cache.DoneChecker

	apiServiceRegistration AutoAPIServiceRegistration

	syncedInitialSet chan struct{}

	// queue is keyed by group version.
	queue workqueue.TypedRateLimitingInterface[schema.GroupVersion]
}

// New returns a controller that keeps the autoregister controller's APIServices in step with
// the CRDs the informer sees.
func New(crdinformer crdinformers.CustomResourceDefinitionInformer, reg AutoAPIServiceRegistration) (*Controller, error) {
	c := &Controller{
		crdLister:              crdinformer.Lister(),
		crdSynced:              crdinformer.Informer().HasSyncedChecker(),
		apiServiceRegistration: reg,
		syncedInitialSet:       make(chan struct{}),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[schema.GroupVersion](),
			workqueue.TypedRateLimitingQueueConfig[schema.GroupVersion]{Name: "crd_autoregistration_controller"},
		),
	}
	_, err := crdinformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { c.enqueueCRD(obj.(*apiextensionsv1.CustomResourceDefinition)) },
		UpdateFunc: func(oldObj, newObj any) {
			// Both: a version that left is removed, one that came is added.
			c.enqueueCRD(oldObj.(*apiextensionsv1.CustomResourceDefinition))
			c.enqueueCRD(newObj.(*apiextensionsv1.CustomResourceDefinition))
		},
		DeleteFunc: func(obj any) {
			crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
			if !ok {
				tombstone, ok := obj.(cache.DeletedFinalStateUnknown)
				if !ok {
					return
				}
				if crd, ok = tombstone.Obj.(*apiextensionsv1.CustomResourceDefinition); !ok {
					return
				}
			}
			c.enqueueCRD(crd)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("crd-autoregister: %w", err)
	}
	return c, nil
}

// Run processes the CRDs present once the informer has synced, closes the initial-sync signal,
// then runs workers until stopCh closes.
func (c *Controller) Run(workers int, stopCh <-chan struct{}) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	// Upstream waits with cache.WaitForNamedCacheSync, which looks every 100 ms; this
	// controller is on the readiness path (autoregistration waits for its initial sync, and
	// autoregister-completion for the APIServices autoregistration creates), so it waits for
	// the informer's own signal instead, which comes as soon as the informer has synced.
	if !cache.WaitFor(wait.ContextForChannel(stopCh), "crd-autoregister", c.crdSynced) {
		return
	}
	if crds, err := c.crdLister.List(labels.Everything()); err != nil {
		utilruntime.HandleError(err)
	} else {
		for _, crd := range crds {
			for _, version := range crd.Spec.Versions {
				if err := c.sync(schema.GroupVersion{Group: crd.Spec.Group, Version: version.Name}); err != nil {
					utilruntime.HandleError(err)
				}
			}
		}
	}
	close(c.syncedInitialSet)
	for range workers {
		go wait.Until(c.runWorker, time.Second, stopCh)
	}
	<-stopCh
}

// WaitForInitialSync blocks until the CRDs present at start have been processed.
func (c *Controller) WaitForInitialSync() { <-c.syncedInitialSet }

// InitialSyncDone is closed once the CRDs present at start have been processed.
func (c *Controller) InitialSyncDone() <-chan struct{} { return c.syncedInitialSet }

func (c *Controller) runWorker() {
	for c.processNextWorkItem() {
	}
}

func (c *Controller) processNextWorkItem() bool {
	key, quit := c.queue.Get()
	if quit {
		return false
	}
	defer c.queue.Done(key)
	if err := c.sync(key); err != nil {
		utilruntime.HandleError(fmt.Errorf("crd-autoregister %v: %w", key, err))
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

func (c *Controller) enqueueCRD(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, version := range crd.Spec.Versions {
		c.queue.Add(schema.GroupVersion{Group: crd.Spec.Group, Version: version.Name})
	}
}

// sync adds the APIService of gv if a CRD serves it, and removes it otherwise.
func (c *Controller) sync(gv schema.GroupVersion) error {
	name := gv.Version + "." + gv.Group
	crds, err := c.crdLister.List(labels.Everything())
	if err != nil {
		return err
	}
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group {
			continue
		}
		for _, version := range crd.Spec.Versions {
			if version.Name != gv.Version || !version.Served {
				continue
			}
			klog.V(4).InfoS("crd-autoregister: keeping APIService", "name", name)
			c.apiServiceRegistration.AddAPIServiceToSync(&apiregistrationv1.APIService{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec: apiregistrationv1.APIServiceSpec{
					Group:                gv.Group,
					Version:              gv.Version,
					GroupPriorityMinimum: GroupPriorityMinimum,
					VersionPriority:      VersionPriority,
				},
			})
			return nil
		}
	}
	c.apiServiceRegistration.RemoveAPIServiceToSync(name)
	return nil
}
