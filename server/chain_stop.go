package server

// This file lets a chain that was built but never run stop cleanly. kube-apiserver builds its
// three servers and runs them at once, and a process that fails in between simply exits; the
// libraries count on that. kubewalk pauses between install and serve and may be closed there,
// in a process that goes on (tests, class ssh's many tours, the tour's own shutdown, which must
// leave nothing running). Two things of the chain live from the moment it is built:
//
//   - REST stores with watch caches and etcd clients (the CRD and APIService stores, and the
//     custom resources' ones in the CRD handler). GenericAPIServer.Destroy releases them; Run
//     calls it when it ends, so before serve kubewalk calls it itself.
//   - The work queues of the controllers the libraries' New built (naming, establishing,
//     discovery, finalizer, APIService registration, availability, autoregistration…). A
//     queue runs goroutines from the moment it is made and stops only when its controller's
//     Run returns, and only the post-start hooks call Run: the libraries give no other handle.
//     So stopUnserved runs the front server's post-start hooks through the library
//     (GenericAPIServer.RunPostStartHooks, which runs its delegates' too: New copied them) on
//     a context that is already done, as Run would at a stop right after it started: each
//     controller starts, finds its stop channel closed, shuts its queue down and returns.
//     Then it runs the pre-shutdown hooks (RunPreShutdownHooks), as Run does on its way out.
//
// One hook must not run so: the apiextensions server's crd-informer-synced returns its
// context's error when the context ends before the CRD informer has synced, and
// runPostStartHook (k8s.io/apiserver/pkg/server/hooks.go) turns any hook error into
// klog.Fatalf, the end of the process. That hook starts nothing (it only waits for the
// informer and then closes a signal), so stopUnserved takes it out of the front server's set
// (PostStartHooks returns the server's own map) before it runs the rest. The server is never
// run after that: Close is its end.
//
// The aggregator's discovery manager stays: kube-aggregator makes its queue in
// NewWithDelegate, and its hook (apiservice-discovery-controller) runs it only after the
// APIService registration controller has synced its informer through the loopback client,
// which needs a serving server; on a done context the hook returns without running it. Its
// queue's goroutine (one, waiting on a channel) is the one thing a chain closed between
// install/aggregator and serve/serving leaves; see TestUnservedChainStops.

import (
	"context"
	"strings"
	"time"

	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/klog/v2"
)

// unservedStopTimeout bounds how long stopUnserved waits for the hooks it runs to return.
const unservedStopTimeout = 10 * time.Second

// stopUnserved releases what the chain's servers hold when the server closes before serve ran
// them: see the top of this file. Call it only if the aggregator's Run never started.
func (in *installState) stopUnserved() {
	front := in.front()
	if front == nil {
		return
	}
	defer front.Destroy()
	delete(front.PostStartHooks(), hookCRDInformerSynced)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	front.RunPostStartHooks(ctx)
	// Each hook's poststarthook/<name> health check passes once the hook has returned
	// (postStartHookHealthz in hooks.go).
	deadline := time.Now().Add(unservedStopTimeout)
	for _, c := range front.HealthzChecks() {
		name, ok := strings.CutPrefix(c.Name(), "poststarthook/")
		if !ok || name == hookCRDInformerSynced {
			continue
		}
		for c.Check(nil) != nil {
			if time.Now().After(deadline) {
				klog.ErrorS(nil, "stopping a chain that never ran: a post-start hook did not return", "hook", name, "after", unservedStopTimeout)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := front.RunPreShutdownHooks(); err != nil {
		klog.ErrorS(err, "stopping a chain that never ran")
	}
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
