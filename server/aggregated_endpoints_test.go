package server

import (
	"context"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
)

// TestExtensionEndpoints runs the stand-in Service and EndpointSlice through a shared informer
// factory and kube-aggregator's endpoint resolver, as the aggregator uses them: the resolver
// finds no ready endpoint until the extension is marked ready, then its loopback port, and
// none again once it is marked not ready.
func TestExtensionEndpoints(t *testing.T) {
	e := newExtensionEndpoints(4321)
	// The factory's client is never called: both informers it is asked for are the stand-ins.
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	e.register(factory)
	slices, err := proxy.NewEndpointSliceIndexerGetter(factory.Discovery().V1().EndpointSlices())
	if err != nil {
		t.Fatal(err)
	}
	resolver := aggregatorapiserver.NewEndpointServiceResolver(factory.Core().V1().Services().Lister(), slices)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		factory.Shutdown()
		e.stop()
	}()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), factory.Core().V1().Services().Informer().HasSynced, factory.Discovery().V1().EndpointSlices().Informer().HasSynced) {
		t.Fatal("stand-in informers did not sync")
	}

	resolve := func() (string, error) {
		u, err := resolver.ResolveEndpoint(ExtensionNamespace, ExtensionService, 443)
		if err != nil {
			return "", err
		}
		return u.String(), nil
	}
	waitFor := func(what string, ok func(string, error) bool) {
		t.Helper()
		var got string
		var gotErr error
		err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			got, gotErr = resolve()
			return ok(got, gotErr), nil
		})
		if err != nil {
			t.Fatalf("%s: resolved %q, %v", what, got, gotErr)
		}
	}
	for _, step := range []struct {
		name  string
		ready bool
		ok    func(string, error) bool
	}{
		{"not ready", false, func(_ string, err error) bool { return apierrors.IsServiceUnavailable(err) }},
		{"ready", true, func(u string, err error) bool { return err == nil && u == "https://127.0.0.1:4321" }},
		{"not ready again", false, func(_ string, err error) bool { return apierrors.IsServiceUnavailable(err) }},
		{"ready again", true, func(u string, err error) bool { return err == nil && u == "https://127.0.0.1:4321" }},
	} {
		e.setReady(step.ready)
		if e.ready() != step.ready {
			t.Errorf("%s: ready() = %v", step.name, e.ready())
		}
		waitFor(step.name, step.ok)
	}
	if _, err := resolver.ResolveEndpoint(ExtensionNamespace, "other", 443); !apierrors.IsNotFound(err) {
		t.Errorf("resolve another Service: %v, want not found", err)
	}
	if _, err := resolver.ResolveEndpoint(ExtensionNamespace, ExtensionService, 8443); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("resolve another port: %v, want 503", err)
	}
}

// TestMemoryListWatch checks the list and watch the stand-in informers run on: a watch from
// the listed version sees the next update, a watch from any other is refused as expired.
func TestMemoryListWatch(t *testing.T) {
	e := newExtensionEndpoints(1)
	defer e.stop()
	list, err := e.slices.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sl := list.(*discoveryv1.EndpointSliceList)
	if len(sl.Items) != 1 || sl.ResourceVersion != "1" || sl.Items[0].Name != ExtensionService {
		t.Fatalf("list %+v", sl)
	}
	if _, err := e.slices.Watch(metav1.ListOptions{ResourceVersion: "0"}); !apierrors.IsResourceExpired(err) {
		t.Errorf("watch from version 0: %v, want expired", err)
	}
	w, err := e.slices.Watch(metav1.ListOptions{ResourceVersion: "1"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e.setReady(true)
	select {
	case ev := <-w.ResultChan():
		s := ev.Object.(*discoveryv1.EndpointSlice)
		if s.ResourceVersion != "2" || !*s.Endpoints[0].Conditions.Ready {
			t.Errorf("event %s %+v", ev.Type, s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event after setReady")
	}
	if _, err := e.slices.Watch(metav1.ListOptions{ResourceVersion: "1"}); !apierrors.IsResourceExpired(err) {
		t.Errorf("watch from the old version: %v, want expired", err)
	}
}
