package server

// This file lets a chain that was built but never run stop cleanly. kube-apiserver builds its
// three servers and runs them at once, and a process that fails in between simply exits; the
// libraries count on that. kubewalk pauses between install and serve and may be closed there,
// in a process that goes on (tests, and the tour's own shutdown, which must leave nothing
// running). Two things of the chain live from the moment it is built:
//
//   - REST stores with watch caches and etcd clients (the CRD and APIService stores, and the
//     custom resources' ones in the CRD handler). GenericAPIServer.Destroy releases them; Run
//     calls it when it ends, so before serve kubewalk calls it itself.
//   - The work queues of the controllers New built (naming, establishing, discovery, finalizer,
//     APIService registration, availability, discovery aggregation, autoregistration…). A
//     queue runs goroutines from the moment it is made and stops only when its controller's
//     Run returns, and only the post-start hooks call Run. The libraries give no other handle
//     on these controllers: the hooks hold them. So stopUnserved calls those hooks, as Run
//     would but with a context that is already done: each controller starts, finds its stop
//     channel closed, shuts its queue down and returns.
//
// The hooks are read from GenericAPIServer.PostStartHooks, whose entries are of an unexported
// type; hookFunc reads the function out of one by reflection. RunPostStartHooks cannot be used
// instead: it runs every hook, and the apiextensions server's crd-informer-synced hook fails
// on a done context, which genericapiserver turns into klog.Fatalf — the end of the process.

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
)

// unservedHooks are the post-start hooks of the chain's servers that start a controller whose
// queue New or PrepareRun made; each returns at once on a done context. The others start
// informers (which run nothing until started), wait for something, or are kubewalk's own and
// make their controllers on start.
var unservedHooks = []string{
	"start-apiextensions-controllers",               // apiextensions: naming, establishing, non-structural schema, API approval, finalizer, discovery
	"apiservice-registration-controller",            // kube-aggregator
	"apiservice-status-local-available-controller",  // kube-aggregator
	"apiservice-status-remote-available-controller", // kube-aggregator, for the extension's APIService (aggregated.go)
	"aggregator-reload-proxy-client-cert",           // kube-aggregator: the front-proxy certificate's file watcher
	"apiservice-openapiv3-controller",               // kube-aggregator, from PrepareRun on
	"apiservice-openapi-controller",                 // kube-aggregator, if its v2 aggregation were on
	hookAutoregistration,                            // kubewalk, as kube-apiserver: autoregister and CRD registration
}

// unservedStopTimeout bounds how long stopUnserved waits for the hooks it calls to return.
const unservedStopTimeout = 10 * time.Second

// stopUnserved releases what the chain's servers hold when the server closes before serve ran
// them: see the top of this file. Call it only if the aggregator's Run never started.
func (in *installState) stopUnserved() {
	front := in.front()
	if front == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	hc := genericapiserver.PostStartHookContext{LoopbackClientConfig: front.LoopbackClientConfig, Context: ctx}
	done := make(chan struct{}, len(unservedHooks)+1)
	n := 0
	for _, name := range unservedHooks {
		hook, err := hookFunc(front, name)
		if err != nil {
			klog.ErrorS(err, "stopping a chain that never ran: a controller's queue stays")
			continue
		}
		if hook == nil {
			continue // not added: that server or that checkpoint was not reached
		}
		n++
		go func() {
			defer func() { done <- struct{}{} }()
			_ = hook(hc) // on a done context these return nil, or the context's error
		}()
	}
	if in.aggregator != nil {
		// The aggregator's discovery hook returns on a done context before it runs the
		// discovery manager, whose queue New made; run the manager itself, stopped.
		if dm, err := discoveryManager(in.aggregator); err != nil {
			klog.ErrorS(err, "stopping a chain that never ran: the aggregator's discovery queue stays")
		} else {
			n++
			go func() {
				defer func() { done <- struct{}{} }()
				dm.Run(ctx.Done(), make(chan struct{}, 1))
			}()
		}
	}
	deadline := time.After(unservedStopTimeout)
	for range n {
		select {
		case <-done:
		case <-deadline:
			klog.ErrorS(nil, "stopping a chain that never ran: a post-start hook did not return", "after", unservedStopTimeout)
			front.Destroy()
			return
		}
	}
	front.Destroy()
}

// front returns the front of the chain built so far: the aggregator, kubewalk's server or the
// apiextensions server. Its hooks include its delegates' (New copies them), and its Destroy
// destroys its delegates too.
func (in *installState) front() *genericapiserver.GenericAPIServer {
	switch {
	case in.aggregator != nil:
		return in.aggregator.GenericAPIServer
	case in.generic != nil:
		return in.generic
	case in.extensions != nil:
		return in.extensions.GenericAPIServer
	}
	return nil
}

// hookFunc returns the function of the post-start hook name of srv, nil if srv has no such
// hook, and an error if the library's hook entry no longer holds the function where this
// version (k8s.io/apiserver v0.37.2, server/hooks.go postStartHookEntry.hook) does.
func hookFunc(srv *genericapiserver.GenericAPIServer, name string) (genericapiserver.PostStartHookFunc, error) {
	entry := reflect.ValueOf(srv.PostStartHooks()).MapIndex(reflect.ValueOf(name))
	if !entry.IsValid() {
		return nil, nil
	}
	e := reflect.New(entry.Type()).Elem() // addressable copy
	e.Set(entry)
	f := e.FieldByName("hook")
	want := reflect.TypeFor[genericapiserver.PostStartHookFunc]()
	if !f.IsValid() || f.Type() != want {
		return nil, fmt.Errorf("post-start hook %s: %s has no field hook of type %s", name, entry.Type(), want)
	}
	return reflect.NewAt(want, unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(genericapiserver.PostStartHookFunc), nil
}

// discoveryManager returns the aggregator's discovery manager (the unexported field
// APIAggregator.discoveryAggregationController of kube-aggregator v0.37.2).
func discoveryManager(agg *aggregatorapiserver.APIAggregator) (aggregatorapiserver.DiscoveryAggregationController, error) {
	f := reflect.ValueOf(agg).Elem().FieldByName("discoveryAggregationController")
	want := reflect.TypeFor[aggregatorapiserver.DiscoveryAggregationController]()
	if !f.IsValid() || f.Type() != want {
		return nil, fmt.Errorf("kube-aggregator APIAggregator has no field discoveryAggregationController of type %s", want)
	}
	dm, _ := reflect.NewAt(want, unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(aggregatorapiserver.DiscoveryAggregationController)
	if dm == nil {
		return nil, fmt.Errorf("kube-aggregator APIAggregator.discoveryAggregationController is nil")
	}
	return dm, nil
}
