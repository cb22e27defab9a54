package tracing_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	v1helper "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
	extensionv1alpha1 "github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1"
)

var (
	gadgets   = schema.GroupVersionResource{Group: "lanes.kubewalk.io", Version: "v1", Resource: "gadgets"}
	callersGV = extensionv1alpha1.SchemeGroupVersion.WithResource("callers")
)

// restConfig returns the rest.Config of a kubeconfig context that notes each response's
// Audit-Id.
func restConfig(t testing.TB, s *server.Server, context string) (*rest.Config, *auditIDs) {
	t.Helper()
	cfg, err := s.RESTConfig(context)
	if err != nil {
		t.Fatal(err)
	}
	ids := &auditIDs{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return captureTransport{rt: rt, ids: ids} })
	return cfg, ids
}

// establishGadgets creates a small CRD (lanes.kubewalk.io/v1 gadgets) and waits, bounded, until
// its custom resources are served.
func establishGadgets(ctx context.Context, t testing.TB, cfg *rest.Config) dynamic.NamespaceableResourceInterface {
	t.Helper()
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.lanes.kubewalk.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gadgets.Group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type:       "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", XPreserveUnknownFields: &preserve}},
				}},
			}},
		},
	}
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res := dyn.Resource(gadgets)
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, waitBound, true, func(ctx context.Context) (bool, error) {
		_, err := res.Namespace("default").List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
	if err != nil {
		t.Fatalf("gadgets not served: %v", err)
	}
	return res
}

func gadget(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gadgets.GroupVersion().String(),
		"kind":       "Gadget",
		"metadata":   map[string]any{"name": name, "namespace": "default"},
		"spec":       map[string]any{"size": int64(3)},
	}}
}

// waitExtension waits, bounded, until the extension's APIService has Available == want.
func waitExtension(ctx context.Context, t testing.TB, cfg *rest.Config, want apiregistrationv1.ConditionStatus) {
	t.Helper()
	agg, err := aggregatorclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, waitBound, true, func(ctx context.Context) (bool, error) {
		svc, err := agg.ApiregistrationV1().APIServices().Get(ctx, server.ExtensionAPIService, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		c := v1helper.GetAPIServiceConditionByType(svc, apiregistrationv1.Available)
		return c != nil && c.Status == want, nil
	})
	if err != nil {
		t.Fatalf("APIService %s not Available=%s: %v", server.ExtensionAPIService, want, err)
	}
}

// chainStages are the stages of the delegation chain in a lane, in order.
func chainStages(tr tracing.Trace) []string {
	var out []string
	for _, st := range tr.Stages {
		switch st.Name {
		case tracing.StageAggregator, tracing.StageKube, tracing.StageAPIExtensions, tracing.StageNotFound, tracing.StageProxy:
			out = append(out, st.Name)
		}
	}
	return out
}

// TestChainLanes: each lane says which server of the chain answered, from what the real
// handlers recorded: a pod GET falls through the aggregator to the kube server, a custom
// resource GET on to the apiextensions server, /apis/nope through all of them to the NotFound
// handler (a 404, where it fell through), and a callers list is proxied to the extension
// server (the hop with its time and status), or, with the extension stopped and its APIService
// unavailable, answered 503 by the aggregator with no hop. The filters ran once, in the
// aggregator.
func TestChainLanes(t *testing.T) {
	store := tracing.NewStore(0)
	s := startServer(t, store, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitBound)
	defer cancel()
	cfg, ids := restConfig(t, s, "admin")
	res := establishGadgets(ctx, t, cfg)
	if _, err := res.Namespace("default").Create(ctx, gadget("g1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.WaitExtensionRegistered(ctx); err != nil {
		t.Fatal(err)
	}
	waitExtension(ctx, t, cfg, apiregistrationv1.ConditionTrue)
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(t *testing.T, path string, want int) tracing.Trace {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
		tr := waitDone(t, store, resp.Header.Get("Audit-Id"))
		checkLane(t, tr)
		checkWorded(t, tr, map[string]bool{})
		return tr
	}

	for _, tc := range []struct {
		name, path string
		code       int
		chain      []string
		server     string
		last       tracing.Outcome
	}{
		{"pods GET: kube", "/api/v1/namespaces/default/pods", 200,
			[]string{tracing.StageAggregator, tracing.StageKube}, tracing.StageKube, tracing.OutcomeServed},
		{"custom resource GET: apiextensions", "/apis/lanes.kubewalk.io/v1/namespaces/default/gadgets/g1", 200,
			[]string{tracing.StageAggregator, tracing.StageKube, tracing.StageAPIExtensions}, tracing.StageAPIExtensions, tracing.OutcomeServed},
		{"APIServices: the aggregator itself", "/apis/apiregistration.k8s.io/v1/apiservices", 200,
			[]string{tracing.StageAggregator}, tracing.StageAggregator, tracing.OutcomeServed},
		{"/apis/nope: the NotFound handler", "/apis/nope", 404,
			[]string{tracing.StageAggregator, tracing.StageKube, tracing.StageAPIExtensions, tracing.StageNotFound}, tracing.StageNotFound, tracing.OutcomeNotFound},
		{"callers list: proxied", "/apis/extension.learn.kubewalk.io/v1alpha1/callers", 200,
			[]string{tracing.StageAggregator, tracing.StageProxy}, tracing.StageProxy, tracing.OutcomeOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := get(t, tc.path, tc.code)
			if got := chainStages(tr); !slices.Equal(got, tc.chain) {
				t.Fatalf("chain = %v, want %v (all: %v)", got, tc.chain, stageNames(tr))
			}
			if tr.Server != tc.server {
				t.Errorf("Server = %q, want %q", tr.Server, tc.server)
			}
			// The filters ran once, at the front: they come before the aggregator's box, which
			// says so; nothing of the kind follows it.
			agg := stage(t, tr, tracing.StageAggregator)
			if !strings.Contains(field(agg, "filters"), "once for the whole chain") || field(agg, "server") != "kube-aggregator" {
				t.Errorf("aggregator box = %+v", agg)
			}
			names := stageNames(tr)
			if i := slices.Index(names, tracing.StageAggregator); i < 0 || slices.Index(names, tracing.StageAuthorization) != i-1 ||
				slices.Contains(names[i:], tracing.StageAuthentication) {
				t.Errorf("filters not once in front of the chain: %v", names)
			}
			last := stage(t, tr, tc.chain[len(tc.chain)-1])
			if last.Outcome != tc.last {
				t.Errorf("%s = %+v, want outcome %s", last.Name, last, tc.last)
			}
			for _, name := range tc.chain[:len(tc.chain)-1] {
				if st := stage(t, tr, name); name != tracing.StageAggregator || tc.server != tracing.StageProxy {
					if st.Outcome != tracing.OutcomeDelegated {
						t.Errorf("%s = %+v, want handed on", name, st)
					}
				}
			}
			switch tc.server {
			case tracing.StageNotFound:
				if !last.Stopped || !strings.Contains(last.Detail, "404: no server of the chain serves /apis/nope") ||
					field(last, "went through") != "aggregator → kube → apiextensions → notfound" {
					t.Errorf("notfound = %+v", last)
				}
			case tracing.StageProxy:
				agg := stage(t, tr, tracing.StageAggregator)
				if agg.Outcome != tracing.OutcomeProxied || field(agg, "APIService") != server.ExtensionAPIService ||
					field(agg, "service") != "kube-system/kubewalk-extension:443" {
					t.Errorf("aggregator = %+v", agg)
				}
				if last.Duration <= 0 || !strings.Contains(last.Detail, "answered 200 OK") ||
					field(last, "address") != s.ExtensionAddress() ||
					!strings.Contains(field(last, "as"), "X-Remote-User kubewalk-admin") {
					t.Errorf("proxy = %+v (extension at %s)", last, s.ExtensionAddress())
				}
			}
		})
	}

	t.Run("client-go list of callers: proxied", func(t *testing.T) {
		if _, err := dyn.Resource(callersGV).List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		tr := waitDone(t, store, ids.last(t))
		if got := chainStages(tr); !slices.Equal(got, []string{tracing.StageAggregator, tracing.StageProxy}) {
			t.Fatalf("chain = %v", got)
		}
	})

	t.Run("extension stopped: 503 from the aggregator, no hop", func(t *testing.T) {
		if err := s.StopExtension(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.StartExtension(ctx); err != nil {
				t.Errorf("start extension: %v", err)
			}
		})
		waitExtension(ctx, t, cfg, apiregistrationv1.ConditionFalse)
		// The proxy handler learns of the condition from the same informer, a moment later.
		var tr tracing.Trace
		err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, waitBound, true, func(ctx context.Context) (bool, error) {
			tr = get(t, "/apis/extension.learn.kubewalk.io/v1alpha1/callers", 503)
			st := stage(t, tr, tracing.StageProxy)
			return !strings.Contains(st.Detail, "answered"), nil
		})
		if err != nil {
			t.Fatalf("no lane without a hop: %+v", tr)
		}
		if got := chainStages(tr); !slices.Equal(got, []string{tracing.StageAggregator, tracing.StageProxy}) {
			t.Fatalf("chain = %v", got)
		}
		p := stage(t, tr, tracing.StageProxy)
		if p.Outcome != tracing.OutcomeFailed || !p.Stopped ||
			p.Detail != "503 from the aggregator: APIService "+server.ExtensionAPIService+" is not Available, so no request went to its server" {
			t.Errorf("proxy = %+v", p)
		}
		if zh := p.DetailIn(zhStrings); !strings.Contains(zh, "聚合器返回 503") {
			t.Errorf("proxy in zh-CN = %q", zh)
		}
		if agg := stage(t, tr, tracing.StageAggregator); !strings.HasPrefix(field(agg, "Available"), "False") {
			t.Errorf("aggregator = %+v", agg)
		}
	})
}

// TestBreakpointsOnCustomResources: a breakpoint on a custom resource holds its create at each
// breakpoint stage — authorization in the aggregator, admission and storage in the
// apiextensions server — the held request shows in its lane (behind the chain's boxes once it
// has fallen through to the apiextensions server), and continue lets it through to be stored.
func TestBreakpointsOnCustomResources(t *testing.T) {
	store := tracing.NewStore(0)
	bp := tracing.NewBreakpoints(store)
	s := startServer(t, store, bp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitBound)
	defer cancel()
	cfg, _ := restConfig(t, s, "admin")
	res := establishGadgets(ctx, t, cfg).Namespace("default")

	for _, tc := range []struct {
		spec, stage string
		chain       []string // the chain's boxes in the lane while held
		object      bool     // the held request carries the object
	}{
		{"authorization:resource=gadgets", tracing.StageAuthorization, nil, false},
		{"admission:verb=create,resource=gadgets", tracing.StageMutatingAdmission,
			[]string{tracing.StageAggregator, tracing.StageKube, tracing.StageAPIExtensions}, true},
		{"storage:verb=create,resource=gadgets", tracing.StageStorage,
			[]string{tracing.StageAggregator, tracing.StageKube, tracing.StageAPIExtensions}, true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			b, err := bp.Add(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = bp.Remove(b.ID) }()
			name := "held-" + strings.NewReplacer(":", "-", ",", "-", "=", "-").Replace(tc.spec)
			done := make(chan error, 1)
			go func() {
				_, err := res.Create(ctx, gadget(name), metav1.CreateOptions{})
				done <- err
			}()
			h := waitHeld(t, store, bp, "the gadget create held at "+tc.spec, func(h tracing.Held) bool { return h.Resource == "gadgets" })
			if h.Breakpoint != tc.spec || h.Verb != "create" || h.APIGroup != gadgets.Group {
				t.Errorf("held = %+v", h)
			}
			if tc.object != strings.Contains(h.Object, `"size":3`) {
				t.Errorf("held object = %q, want it: %v", h.Object, tc.object)
			}
			tr, _ := store.Get(h.ID)
			checkLane(t, tr)
			if st := stage(t, tr, tc.stage); st.Outcome != tracing.OutcomeHeld {
				t.Errorf("%s while held = %+v", tc.stage, st)
			}
			if got := chainStages(tr); !slices.Equal(got, tc.chain) {
				t.Errorf("chain while held = %v, want %v", got, tc.chain)
			}
			blocked(t, done, "the gadget create")
			if err := bp.Continue(h.ID); err != nil {
				t.Fatal(err)
			}
			_ = bp.Remove(b.ID) // the GET below is a request of its own
			if err := result(t, done, "the gadget create"); err != nil {
				t.Fatalf("create after continue: %v", err)
			}
			if _, err := res.Get(ctx, name, metav1.GetOptions{}); err != nil {
				t.Errorf("the gadget was not stored: %v", err)
			}
			tr = waitDone(t, store, h.ID)
			checkLane(t, tr)
			if tr.Server != tracing.StageAPIExtensions || tr.Code != http.StatusCreated {
				t.Errorf("after continue: server %q code %d: %v", tr.Server, tr.Code, stageNames(tr))
			}
			if st := stage(t, tr, tc.stage); !strings.Contains(field(st, "breakpoint"), "continued to the end") {
				t.Errorf("%s after continue = %+v", tc.stage, st)
			}
		})
	}
}
