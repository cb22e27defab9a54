package namespace

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	clienttesting "k8s.io/client-go/testing"
)

var (
	configmapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	eventsGVR     = schema.GroupVersionResource{Version: "v1", Resource: "events"}
	rolesGVR      = schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}
)

// discovered is what discovery reports: pods and configmaps with deletecollection, roles
// without it, and a resource that cannot be deleted at all.
func discovered() ([]*metav1.APIResourceList, error) {
	all := []string{"create", "delete", "deletecollection", "get", "list", "update", "watch"}
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Namespaced: true, Verbs: all},
			{Name: "configmaps", Namespaced: true, Verbs: all},
			{Name: "events", Namespaced: true, Verbs: []string{"create", "get", "list"}},
		}},
		{GroupVersion: "rbac.authorization.k8s.io/v1", APIResources: []metav1.APIResource{
			{Name: "roles", Namespaced: true, Verbs: []string{"create", "delete", "get", "list"}},
		}},
	}, nil
}

// fakeMetadata holds object metadata per resource and records the calls made to it. An
// object with finalizers survives deletion (nothing here removes finalizers); one named
// "stuck" survives it too, without a finalizer.
type fakeMetadata struct {
	metadata.Interface
	mu      sync.Mutex
	objects map[schema.GroupVersionResource][]metav1.PartialObjectMetadata
	calls   []string
}

func (f *fakeMetadata) Resource(gvr schema.GroupVersionResource) metadata.Getter {
	return fakeGetter{f: f, gvr: gvr}
}

func (f *fakeMetadata) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeMetadata) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// fakeGetter serves namespaced calls only; a cluster-scoped call panics on the nil interface.
type fakeGetter struct {
	metadata.ResourceInterface
	f   *fakeMetadata
	gvr schema.GroupVersionResource
}

func (g fakeGetter) Namespace(string) metadata.ResourceInterface {
	return fakeResource{f: g.f, gvr: g.gvr}
}

type fakeResource struct {
	metadata.ResourceInterface
	f   *fakeMetadata
	gvr schema.GroupVersionResource
}

func (r fakeResource) deleteWhere(match func(metav1.PartialObjectMetadata) bool) {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.objects[r.gvr] = slices.DeleteFunc(r.f.objects[r.gvr], func(o metav1.PartialObjectMetadata) bool {
		return match(o) && len(o.Finalizers) == 0 && o.Name != "stuck"
	})
}

func (r fakeResource) DeleteCollection(_ context.Context, opts metav1.DeleteOptions, _ metav1.ListOptions) error {
	r.f.record("deletecollection " + r.gvr.Resource)
	if opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationBackground {
		return errors.New("want background propagation")
	}
	r.deleteWhere(func(metav1.PartialObjectMetadata) bool { return true })
	return nil
}

func (r fakeResource) Delete(_ context.Context, name string, _ metav1.DeleteOptions, _ ...string) error {
	r.f.record("delete " + r.gvr.Resource + "/" + name)
	r.deleteWhere(func(o metav1.PartialObjectMetadata) bool { return o.Name == name })
	return nil
}

func (r fakeResource) List(context.Context, metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	r.f.record("list " + r.gvr.Resource)
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	return &metav1.PartialObjectMetadataList{Items: slices.Clone(r.f.objects[r.gvr])}, nil
}

func object(name string, finalizers ...string) metav1.PartialObjectMetadata {
	return metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "x", Finalizers: finalizers}}
}

func TestDeleteAllContent(t *testing.T) {
	tests := []struct {
		name         string
		objects      map[schema.GroupVersionResource][]metav1.PartialObjectMetadata
		wantCalls    []string
		wantEstimate int64
		wantErr      string
	}{
		{
			name: "everything deletable",
			objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				podsGVR: {object("p")}, configmapsGVR: {object("c")}, rolesGVR: {object("r1"), object("r2")}, eventsGVR: {object("e")},
			},
			wantCalls: []string{
				"deletecollection pods", "list pods",
				"deletecollection configmaps", "list configmaps",
				"list roles", "delete roles/r1", "delete roles/r2", "list roles",
			},
		},
		{
			name: "pods held by a finalizer come first and hold the rest",
			objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				podsGVR: {object("p", "example.com/x")}, configmapsGVR: {object("c")},
			},
			wantCalls:    []string{"deletecollection pods", "list pods"},
			wantEstimate: finalizerEstimateSeconds,
		},
		{
			name: "a configmap held by a finalizer",
			objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				configmapsGVR: {object("c", "example.com/x")},
			},
			wantCalls:    []string{"deletecollection pods", "list pods", "deletecollection configmaps", "list configmaps", "list roles", "list roles"},
			wantEstimate: finalizerEstimateSeconds,
		},
		{
			name: "an object that stays without a finalizer is an error",
			objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{
				rolesGVR: {object("stuck")},
			},
			wantCalls: []string{"deletecollection pods", "list pods", "deletecollection configmaps", "list configmaps", "list roles", "delete roles/stuck", "list roles"},
			wantErr:   "unexpected items still remain in namespace x for rbac.authorization.k8s.io/v1, Resource=roles",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := &fakeMetadata{objects: tc.objects}
			c := &Controller{metadata: md, discover: discovered}
			estimate, err := c.deleteAllContent(context.Background(), "x")
			if got := md.Calls(); !slices.Equal(got, tc.wantCalls) {
				t.Errorf("calls:\n got %q\nwant %q", got, tc.wantCalls)
			}
			if estimate != tc.wantEstimate {
				t.Errorf("estimate = %d, want %d", estimate, tc.wantEstimate)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if len(md.objects[eventsGVR]) != len(tc.objects[eventsGVR]) {
				t.Errorf("events, which cannot be deleted, were deleted")
			}
		})
	}
}

func TestDeleteAllContentDiscoveryError(t *testing.T) {
	md := &fakeMetadata{objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{configmapsGVR: {object("c")}}}
	c := &Controller{metadata: md, discover: func() ([]*metav1.APIResourceList, error) {
		lists, _ := discovered()
		return lists[:1], errors.New("rbac group unavailable")
	}}
	_, err := c.deleteAllContent(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "rbac group unavailable") {
		t.Fatalf("err = %v, want the discovery error", err)
	}
	if len(md.objects[configmapsGVR]) != 0 {
		t.Errorf("the groups that answered discovery were not emptied")
	}
}

// terminating returns namespace x as DELETE leaves it, before the controller ran.
func terminating(finalizers ...corev1.FinalizerName) *corev1.Namespace {
	now := metav1.Now()
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: "x", UID: types.UID("uid-x"), DeletionTimestamp: &now},
		Spec:       corev1.NamespaceSpec{Finalizers: finalizers},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
	}
}

// newFakeClient returns a clientset holding objs whose namespaces/finalize updates the
// namespace (the fake records finalize as a create) and that records each write.
func newFakeClient(objs ...runtime.Object) *fake.Clientset {
	client := fake.NewClientset(objs...)
	client.PrependReactor("create", "namespaces", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "finalize" {
			return false, nil, nil
		}
		ns := action.(clienttesting.CreateAction).GetObject().(*corev1.Namespace)
		err := client.Tracker().Update(corev1.SchemeGroupVersion.WithResource("namespaces"), ns, "")
		return true, ns, err
	})
	return client
}

// writes lists the namespace writes a fake client saw, as "verb[/subresource]".
func writes(client *fake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		w := a.GetVerb()
		if a.GetSubresource() != "" {
			w += "/" + a.GetSubresource()
		}
		out = append(out, w)
	}
	return out
}

func TestSync(t *testing.T) {
	tests := []struct {
		name           string
		ns             *corev1.Namespace
		wantWrites     []string
		wantFinalizers []corev1.FinalizerName // nil: the namespace is gone
	}{
		{"ours and another", terminating("kubernetes", "example.com/x"),
			[]string{"update/status", "create/finalize"}, []corev1.FinalizerName{"example.com/x"}},
		{"ours only: finalized, then deleted", terminating("kubernetes"),
			[]string{"update/status", "create/finalize", "delete"}, nil},
		{"none left: emptied and deleted again", terminating(),
			[]string{"update/status", "delete"}, nil},
		{"not being deleted", func() *corev1.Namespace {
			ns := terminating("kubernetes")
			ns.DeletionTimestamp = nil
			return ns
		}(), nil, []corev1.FinalizerName{"kubernetes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := newFakeClient(tc.ns)
			md := &fakeMetadata{objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{configmapsGVR: {object("c")}}}
			c := &Controller{client: client, metadata: md, discover: discovered}
			if err := c.sync(context.Background(), "x"); err != nil {
				t.Fatalf("sync: %v", err)
			}
			if got := writes(client); !slices.Equal(got, tc.wantWrites) {
				t.Errorf("writes = %q, want %q", got, tc.wantWrites)
			}
			ns, err := client.CoreV1().Namespaces().Get(context.Background(), "x", metav1.GetOptions{})
			switch {
			case tc.wantFinalizers == nil && !apierrors.IsNotFound(err):
				t.Errorf("namespace still there (%v), want it deleted", err)
			case tc.wantFinalizers != nil && err != nil:
				t.Errorf("get: %v", err)
			case tc.wantFinalizers != nil && !slices.Equal(ns.Spec.Finalizers, tc.wantFinalizers):
				t.Errorf("spec.finalizers = %v, want %v", ns.Spec.Finalizers, tc.wantFinalizers)
			}
			if tc.ns.DeletionTimestamp != nil && len(md.objects[configmapsGVR]) != 0 {
				t.Errorf("contents not deleted")
			}
			if tc.ns.DeletionTimestamp == nil && len(md.Calls()) != 0 {
				t.Errorf("a namespace not being deleted had its contents touched: %q", md.Calls())
			}
		})
	}
}

func TestSyncWaitsOnFinalizers(t *testing.T) {
	client := newFakeClient(terminating("kubernetes"))
	md := &fakeMetadata{objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{configmapsGVR: {object("c", "example.com/x")}}}
	c := &Controller{client: client, metadata: md, discover: discovered}
	err := c.sync(context.Background(), "x")
	var remaining *ResourcesRemainingError
	if !errors.As(err, &remaining) || remaining.Estimate != finalizerEstimateSeconds {
		t.Fatalf("sync = %v, want ResourcesRemainingError of %ds", err, finalizerEstimateSeconds)
	}
	if got := writes(client); !slices.Equal(got, []string{"update/status"}) {
		t.Errorf("writes = %q, want only the status: no finalize while content remains", got)
	}
}

// TestRunStartStop runs the controller on an informer: a namespace being deleted is
// finalized and deleted, Stop returns once the controller has stopped, and Start after Stop
// does nothing.
func TestRunStartStop(t *testing.T) {
	client := newFakeClient(terminating("kubernetes"))
	factory := informers.NewSharedInformerFactory(client, 0)
	c := New(client, &fakeMetadata{objects: map[schema.GroupVersionResource][]metav1.PartialObjectMetadata{}}, factory.Core().V1().Namespaces(), 0)
	c.discover = discovered
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	defer func() {
		cancel()
		factory.Shutdown()
	}()

	c.Start(ctx, 2)
	err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().Namespaces().Get(ctx, "x", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("namespace never deleted: writes %q", writes(client))
	}
	c.Stop()
	select {
	case <-c.done:
	default:
		t.Fatal("Stop returned before the controller stopped")
	}
	c.Stop() // idempotent

	again := New(client, &fakeMetadata{}, factory.Core().V1().Namespaces(), 0)
	again.Stop()
	again.Start(ctx, 1)
	if again.done != nil {
		t.Errorf("Start after Stop started the controller")
	}
}
