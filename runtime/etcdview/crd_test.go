package etcdview_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"

	"github.com/kubewalk/kubewalk/runtime/etcdview"
)

// TestDecodeChainValues writes values straight into etcd — custom resources with and without
// a CRD, a CRD, an APIService, values that are not objects — and decodes each: the kinds the
// apiextensions server and the aggregator store decode typed, a kind no scheme registers
// decodes as an unstructured object (naming its CRD when one is stored at its key's
// prefix), and the rest stay "not an object".
func TestDecodeChainValues(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	ctx := context.Background()
	ec := etcdClient(t, x)
	group := uniqueName("decode") + ".example.com"
	dir := "/registry/" + uniqueName("kubewalk-test") + "/"
	crdKey := "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets." + group
	t.Cleanup(func() {
		ec.Delete(context.Background(), dir, clientv3.WithPrefix())
		ec.Delete(context.Background(), "/registry/"+group+"/", clientv3.WithPrefix())
		ec.Delete(context.Background(), crdKey)
	})
	// A v1beta1 CRD, as the apiextensions server stores CRDs, with two versions: v2 stores.
	crd := `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"CustomResourceDefinition",` +
		`"metadata":{"name":"widgets.` + group + `"},"spec":{"group":"` + group + `","scope":"Namespaced",` +
		`"names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},` +
		`"versions":[{"name":"v1","served":true,"storage":false},{"name":"v2","served":true,"storage":true}]}}`
	widget := func(v string) string {
		return `{"apiVersion":"` + group + `/` + v + `","kind":"Widget","metadata":{"name":"w1","namespace":"default"},"spec":{"size":3}}`
	}
	puts := map[string]string{
		crdKey: crd,
		"/registry/" + group + "/widgets/default/w1": widget("v2"),
		"/registry/" + group + "/gadgets/default/g1": `{"apiVersion":"` + group + `/v1","kind":"Gadget","metadata":{"name":"g1"}}`,
		dir + "apiservice": `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.` + group + `"},` +
			`"spec":{"group":"` + group + `","version":"v1","groupPriorityMinimum":1000,"versionPriority":15}}`,
		dir + "v1crd":     strings.Replace(crd, "apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1", 1),
		dir + "cr":        widget("v1"),
		dir + "number":    "42",
		dir + "malformed": `{"apiVersion":"v1","kind":"ConfigMap","metadata":`,
		dir + "nokind":    `{"metadata":{"name":"x"}}`,
	}
	for k, v := range puts {
		if _, err := ec.Put(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, key    string
		object       bool
		unstructured bool
		gvk          schema.GroupVersionKind
		crd          *etcdview.CRD
		yaml         []string // lines the YAML holds
		notObject    string   // part of the reason
		raw          string
	}{
		{name: "custom resource under its CRD's prefix", key: "/registry/" + group + "/widgets/default/w1", object: true, unstructured: true,
			gvk:  schema.GroupVersionKind{Group: group, Version: "v2", Kind: "Widget"},
			crd:  &etcdview.CRD{Name: "widgets." + group, Key: crdKey, StorageVersion: "v2"},
			yaml: []string{"kind: Widget", "  size: 3", "  namespace: default"}},
		{name: "custom resource no stored CRD defines", key: "/registry/" + group + "/gadgets/default/g1", object: true, unstructured: true,
			gvk: schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Gadget"}, yaml: []string{"kind: Gadget"}},
		{name: "unregistered kind outside a CR's key shape", key: dir + "cr", object: true, unstructured: true,
			gvk: schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}, yaml: []string{"  size: 3"}},
		{name: "CRD stored as v1beta1", key: crdKey, object: true,
			gvk:  schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1beta1", Kind: "CustomResourceDefinition"},
			yaml: []string{"    plural: widgets", "  - name: v2"}},
		{name: "CRD as v1", key: dir + "v1crd", object: true,
			gvk:  schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"},
			yaml: []string{"    kind: Widget"}},
		{name: "APIService", key: dir + "apiservice", object: true,
			gvk:  schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"},
			yaml: []string{"  groupPriorityMinimum: 1000"}},
		{name: "a number", key: dir + "number", notObject: "not protobuf, not JSON", raw: "42"},
		{name: "malformed JSON", key: dir + "malformed", notObject: "decode application/json value", raw: `"metadata":`},
		{name: "JSON without a kind", key: dir + "nokind", notObject: "Kind", raw: `{"metadata"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := x.Decode(ctx, tc.key, etcdview.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if v.Object() != tc.object || v.Unstructured != tc.unstructured || v.GVK != tc.gvk {
				t.Fatalf("object %v unstructured %v GVK %v, want %v %v %v (not object: %q)",
					v.Object(), v.Unstructured, v.GVK, tc.object, tc.unstructured, tc.gvk, v.NotObject)
			}
			switch {
			case tc.crd == nil && v.CRD != nil:
				t.Errorf("CRD %+v, want none", *v.CRD)
			case tc.crd != nil && (v.CRD == nil || *v.CRD != *tc.crd):
				t.Errorf("CRD %+v, want %+v", v.CRD, *tc.crd)
			}
			for _, l := range tc.yaml {
				if !strings.Contains("\n"+v.YAML, "\n"+l+"\n") {
					t.Errorf("YAML has no line %q:\n%s", l, v.YAML)
				}
			}
			if tc.object {
				if v.MediaType != "application/json" || v.Raw != "" || v.NotObject != "" {
					t.Errorf("object: media type %q, raw %q, not object %q", v.MediaType, v.Raw, v.NotObject)
				}
				return
			}
			if !strings.Contains(v.NotObject, tc.notObject) || !strings.Contains(v.Raw, tc.raw) || v.YAML != "" {
				t.Errorf("not object %q (want %q), raw %q (want %q), YAML %q", v.NotObject, tc.notObject, v.Raw, tc.raw, v.YAML)
			}
		})
	}
}

// TestDecodeCustomResourceThroughAPI creates a CRD with the apiextensions clientset and a
// custom resource with the dynamic client, as a learner's kubectl would, and finds both in etcd
// with the explorer: the CR decoded as an unstructured object naming its CRD and the CRD's
// storage version, the CRD as the apiextensions server stores it (v1beta1 JSON), and the
// APIService the aggregator registered for the CRD's group.
func TestDecodeCustomResourceThroughAPI(t *testing.T) {
	s := liveServer(t)
	x := explorer(t, s)
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	ext, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	group := uniqueName("api") + ".example.com"
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}}},
					},
				}},
			}},
		},
	}
	if _, err := ext.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ext.ApiextensionsV1().CustomResourceDefinitions().Delete(context.Background(), crd.Name, metav1.DeleteOptions{})
	})
	gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: "widgets"}
	cr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "default"},
		"spec":     map[string]any{"size": int64(3)},
	}}
	// The CRD is served once established and its handler has seen it: until then, 404.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(gvr).Namespace("default").Create(ctx, cr, metav1.CreateOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("creating the custom resource: %v", err)
	}

	v, err := x.Decode(ctx, "/registry/"+group+"/widgets/default/w1", etcdview.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := etcdview.CRD{Name: crd.Name, Key: "/registry/apiextensions.k8s.io/customresourcedefinitions/" + crd.Name, StorageVersion: "v1"}
	if !v.Unstructured || v.CRD == nil || *v.CRD != want || v.MediaType != "application/json" ||
		v.GVK != (schema.GroupVersionKind{Group: group, Version: "v1", Kind: "Widget"}) {
		t.Fatalf("custom resource: unstructured %v CRD %+v media type %q GVK %v (not object %q)", v.Unstructured, v.CRD, v.MediaType, v.GVK, v.NotObject)
	}
	for _, l := range []string{"  size: 3", "  name: w1", "kind: Widget"} {
		if !strings.Contains("\n"+v.YAML, "\n"+l+"\n") {
			t.Errorf("custom resource YAML has no line %q:\n%s", l, v.YAML)
		}
	}

	v, err = x.Decode(ctx, want.Key, etcdview.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Unstructured || v.StorageVersion() != "apiextensions.k8s.io/v1beta1" || v.GVK.Kind != "CustomResourceDefinition" || !strings.Contains(v.YAML, "group: "+group) {
		t.Errorf("CRD: unstructured %v, stored as %s %s:\n%s", v.Unstructured, v.StorageVersion(), v.GVK.Kind, v.YAML)
	}

	// The CRD registration controller gives the group an APIService (asynchronously).
	apiService := "/registry/apiregistration.k8s.io/apiservices/v1." + group
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		v, err = x.Decode(ctx, apiService, etcdview.DecodeOptions{})
		if errors.Is(err, etcdview.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		t.Fatalf("APIService %s: %v", apiService, err)
	}
	if v.Unstructured || v.StorageVersion() != "apiregistration.k8s.io/v1" || v.GVK.Kind != "APIService" || !strings.Contains(v.YAML, "group: "+group) {
		t.Errorf("APIService: unstructured %v, stored as %s %s:\n%s", v.Unstructured, v.StorageVersion(), v.GVK.Kind, v.YAML)
	}
}
