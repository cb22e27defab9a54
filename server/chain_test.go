package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/server"
	"github.com/kubewalk/kubewalk/server/observe"
)

// widgetsCRD is a CRD with everything the chain lesson shows: a structural schema, a CEL
// validation rule, the status subresource and printer columns.
func widgetsCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.kubewalk.io"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.kubewalk.io",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {
							Type: "object",
							Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"replicas":    {Type: "integer"},
								"maxReplicas": {Type: "integer"},
							},
							XValidations: apiextensionsv1.ValidationRules{{
								Rule:    "self.replicas <= self.maxReplicas",
								Message: "replicas must not exceed maxReplicas",
							}},
						},
						"status": {
							Type:       "object",
							Properties: map[string]apiextensionsv1.JSONSchemaProps{"ready": {Type: "integer"}},
						},
					},
				}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
					{Name: "Ready", Type: "integer", JSONPath: ".status.ready"},
				},
			}},
		},
	}
}

func widget(name string, replicas, maxReplicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.kubewalk.io/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name, "namespace": "default"},
		"spec":       map[string]any{"replicas": replicas, "maxReplicas": maxReplicas},
	}}
}

// TestCustomResourcesThroughTheChain drives a CRD end to end through the three servers: the
// aggregator in front, kubewalk's server, the apiextensions server behind it, and the NotFound
// handler at the end.
func TestCustomResourcesThroughTheChain(t *testing.T) {
	s := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := restConfig(t, s, "admin")
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	establishWidgets(ctx, t, crds)

	// Discovery: the CRD registration controller has made an APIService for the group version,
	// and the aggregator lists it with the resource.
	gv := schema.GroupVersion{Group: "example.kubewalk.io", Version: "v1"}
	err = wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		list, err := disco.ServerResourcesForGroupVersion(gv.String())
		if err != nil {
			return false, nil // not yet
		}
		for _, r := range list.APIResources {
			if r.Name == "widgets" {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("widgets not in discovery of %s: %v", gv, err)
	}
	groups, err := disco.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	if !hasGroup(groups, gv.Group) {
		t.Errorf("/apis lacks %s: %v", gv.Group, groups.Groups)
	}
	apiServices := dyn.Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"})
	if _, err := apiServices.Get(ctx, "v1.example.kubewalk.io", metav1.GetOptions{}); err != nil {
		t.Errorf("APIService v1.example.kubewalk.io: %v", err)
	}

	// A custom resource, served by the CRD handler.
	widgets := dyn.Resource(gv.WithResource("widgets")).Namespace("default")
	if _, err := widgets.Create(ctx, widget("small", 1, 3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create widget: %v", err)
	}
	got, err := widgets.Get(ctx, "small", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get widget: %v", err)
	}
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 1 {
		t.Errorf("widget spec.replicas = %d, want 1", r)
	}
	// The status subresource: spec changes through it are dropped, status is kept.
	got.Object["status"] = map[string]any{"ready": int64(1)}
	if err := unstructured.SetNestedField(got.Object, int64(2), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	updated, err := widgets.UpdateStatus(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update status: %v", err)
	}
	if r, _, _ := unstructured.NestedInt64(updated.Object, "spec", "replicas"); r != 1 {
		t.Errorf("status update changed spec.replicas to %d", r)
	}
	if r, _, _ := unstructured.NestedInt64(updated.Object, "status", "ready"); r != 1 {
		t.Errorf("status.ready = %d after the status update, want 1", r)
	}

	// Printer columns: the Table kubectl get asks for carries them after Name (a CRD that
	// declares its own columns gets no Age unless it declares one).
	table := &metav1.Table{}
	raw, err := disco.RESTClient().Get().AbsPath("/apis/example.kubewalk.io/v1/namespaces/default/widgets").
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").DoRaw(ctx)
	if err != nil {
		t.Fatalf("list widgets as Table: %v", err)
	}
	if err := json.Unmarshal(raw, table); err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if want := "Name Replicas Ready"; strings.Join(cols, " ") != want {
		t.Errorf("Table columns %v, want %s", cols, want)
	}

	// The CEL rule refuses a widget with more replicas than allowed, with its message.
	_, err = widgets.Create(ctx, widget("big", 5, 3), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "replicas must not exceed maxReplicas") {
		t.Errorf("create widget over maxReplicas: got %v, want 422 with the rule's message", err)
	}

	// Stored as JSON under the CRD's own prefix, /registry/<group>/<plural>/<ns>/<name>; the
	// CRD itself under apiextensions.k8s.io's.
	etcd, err := s.Etcd()
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"/registry/example.kubewalk.io/widgets/default/small":                                  `"kind":"Widget"`,
		"/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.kubewalk.io": `"kind":"CustomResourceDefinition"`,
	} {
		resp, err := etcd.Get(ctx, key)
		if err != nil {
			t.Fatalf("etcd get %s: %v", key, err)
		}
		if len(resp.Kvs) != 1 {
			t.Errorf("etcd %s: %d keys, want 1", key, len(resp.Kvs))
			continue
		}
		v := resp.Kvs[0].Value
		if !json.Valid(v) || !strings.Contains(string(v), want) {
			t.Errorf("etcd %s: want JSON with %s, got %.200q", key, want, v)
		}
	}
	if resp, err := etcd.Get(ctx, "/registry/example.kubewalk.io/widgets/default/big"); err != nil || len(resp.Kvs) != 0 {
		t.Errorf("the refused widget reached etcd (%v)", err)
	}

	// A path nobody serves falls through the whole chain to the NotFound handler: a 404 Status.
	var status metav1.Status
	res := disco.RESTClient().Get().AbsPath("/no/such/path").Do(ctx)
	var code int
	res.StatusCode(&code)
	if code != http.StatusNotFound {
		t.Fatalf("GET /no/such/path: %d, want 404", code)
	}
	var se *apierrors.StatusError
	if err := res.Error(); !errors.As(err, &se) {
		t.Fatalf("GET /no/such/path: %v, want a Status", err)
	} else {
		status = se.ErrStatus
	}
	if status.Reason != metav1.StatusReasonNotFound || !strings.Contains(status.Message, "the server could not find the requested resource") {
		t.Errorf("GET /no/such/path: %+v, want the NotFound handler's Status", status)
	}
}

func hasGroup(groups *metav1.APIGroupList, name string) bool {
	for _, g := range groups.Groups {
		if g.Name == name {
			return true
		}
	}
	return false
}

// establishWidgets creates widgetsCRD and waits, within a bound, until the establishing
// controller of the apiextensions server has accepted it.
func establishWidgets(ctx context.Context, t *testing.T, crds apiextensionsclient.Interface) {
	t.Helper()
	if _, err := crds.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, widgetsCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	// Established: the establishing controller of the apiextensions server has accepted it.
	err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		crd, err := crds.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "widgets.example.kubewalk.io", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("CRD not Established: %v", err)
	}
}

// chainRecorder keeps every record by request ID.
type chainRecorder struct {
	mu   sync.Mutex
	byID map[string][]observe.Record
}

func (c *chainRecorder) Record(r observe.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byID == nil {
		c.byID = map[string][]observe.Record{}
	}
	c.byID[r.RequestID()] = append(c.byID[r.RequestID()], r)
}

// count returns how many of id's records match.
func (c *chainRecorder) count(id string, match func(observe.Record) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.byID[id] {
		if match(r) {
			n++
		}
	}
	return n
}

// TestChainFiltersRunOnce: whichever server of the chain answers — the aggregator itself, the
// kube server, the apiextensions server, or the NotFound handler at the end — the request
// passed through one handler chain, the aggregator's: one request record, one authentication
// decision, one authorization decision, one ResponseComplete audit event (kubewalk's audit policy omits
// RequestReceived). Each server built its own
// filters from its copy of the config; the ones behind the front are never run.
func TestChainFiltersRunOnce(t *testing.T) {
	rec := &chainRecorder{}
	s := startServer(t, func(o *server.Options) { o.Recorder = rec })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := restConfig(t, s, "admin")
	crds, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	establishWidgets(ctx, t, crds)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "example.kubewalk.io", Version: "v1", Resource: "widgets"}).Namespace("default")
	if _, err := widgets.Create(ctx, widget("small", 1, 3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create widget: %v", err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		server, path string
		code         int
		storageKey   string // a storage record the request must have made ("" = none)
	}{
		{"kube-aggregator", "/apis/apiregistration.k8s.io/v1/apiservices/v1.", http.StatusOK, "/registry/apiregistration.k8s.io/apiservices/v1."},
		{"kubewalk-apiserver", "/api/v1/namespaces/default", http.StatusOK, "/registry/namespaces/default"},
		{"apiextensions-apiserver", "/apis/example.kubewalk.io/v1/namespaces/default/widgets/small", http.StatusOK, "/registry/example.kubewalk.io/widgets/default/small"},
		{"NotFound handler", "/no/such/path", http.StatusNotFound, ""},
	} {
		t.Run(tc.server, func(t *testing.T) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.code {
				t.Fatalf("GET %s: %d, want %d", tc.path, resp.StatusCode, tc.code)
			}
			id := resp.Header.Get("Audit-Id")
			if id == "" {
				t.Fatalf("GET %s: no Audit-Id header", tc.path)
			}
			// The audit backend gets ResponseComplete once the handler has returned.
			err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
				return rec.count(id, func(r observe.Record) bool {
					a, ok := r.(*observe.Audit)
					return ok && a.Stage == observe.AuditResponseComplete
				}) > 0, nil
			})
			if err != nil {
				t.Fatalf("GET %s: no ResponseComplete audit event: %v", tc.path, err)
			}
			for _, c := range []struct {
				what  string
				match func(observe.Record) bool
			}{
				{"request", func(r observe.Record) bool { _, ok := r.(*observe.Request); return ok }},
				{"authentication decision", func(r observe.Record) bool { a, ok := r.(*observe.Authn); return ok && a.Chain }},
				{"authorization of the request", func(r observe.Record) bool {
					a, ok := r.(*observe.Authz)
					return ok && a.Purpose == observe.PurposeAuthorization && a.Decision == observe.DecisionAllow
				}},
				{"ResponseComplete audit event", func(r observe.Record) bool {
					a, ok := r.(*observe.Audit)
					return ok && a.Stage == observe.AuditResponseComplete
				}},
			} {
				if n := rec.count(id, c.match); n != 1 {
					t.Errorf("GET %s: %d records of the %s, want 1", tc.path, n, c.what)
				}
			}
			stored := rec.count(id, func(r observe.Record) bool {
				st, ok := r.(*observe.Storage)
				return ok && tc.storageKey != "" && strings.HasPrefix(st.Key, tc.storageKey)
			})
			if tc.storageKey != "" && stored == 0 {
				t.Errorf("GET %s: no storage record under %s", tc.path, tc.storageKey)
			}
		})
	}
}
