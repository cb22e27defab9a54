package openapi

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	learnv1 "github.com/kubewalk/kubewalk/server/apis/learn/v1"
)

// definitions calls GetOpenAPIDefinitions with a ref callback that records
// every name it is asked to reference, so tests can check that each
// reference resolves to a definition in the same map.
func definitions(t *testing.T) (map[string]common.OpenAPIDefinition, map[string]bool) {
	t.Helper()
	refs := map[string]bool{}
	ref := func(name string) spec.Ref {
		refs[name] = true
		return spec.MustCreateRef("#/definitions/" + common.EscapeJsonPointer(name))
	}
	defs := GetOpenAPIDefinitions(ref)
	if len(defs) == 0 {
		t.Fatal("GetOpenAPIDefinitions returned no definitions")
	}
	return defs, refs
}

func TestDefinitions(t *testing.T) {
	defs, _ := definitions(t)

	tests := []struct {
		key        string
		properties []string
		// required lists fields the schema must mark as required.
		required []string
		// extensions maps a property name to vendor extensions that
		// property must carry (server-side apply list markers).
		extensions map[string]map[string]any
	}{
		{
			key:        "io.k8s.api.core.v1.ConfigMap",
			properties: []string{"apiVersion", "kind", "metadata", "data", "binaryData", "immutable"},
		},
		{
			key:        "io.k8s.api.core.v1.Pod",
			properties: []string{"apiVersion", "kind", "metadata", "spec", "status"},
		},
		{
			key:        "io.k8s.api.core.v1.PodSpec",
			properties: []string{"containers", "initContainers", "volumes"},
			required:   []string{"containers"},
			extensions: map[string]map[string]any{
				"containers": {
					"x-kubernetes-list-type":       "map",
					"x-kubernetes-list-map-keys":   []any{"name"},
					"x-kubernetes-patch-merge-key": "name",
					"x-kubernetes-patch-strategy":  "merge",
				},
			},
		},
		{
			key:        "io.k8s.api.rbac.v1.ClusterRole",
			properties: []string{"metadata", "rules", "aggregationRule"},
			extensions: map[string]map[string]any{
				"rules": {"x-kubernetes-list-type": "atomic"},
			},
		},
		{
			key:        "io.k8s.api.authorization.v1.SelfSubjectAccessReview",
			properties: []string{"apiVersion", "kind", "metadata", "spec", "status"},
			required:   []string{"spec"},
		},
		{
			key:        "io.k8s.api.authentication.v1.SelfSubjectReview",
			properties: []string{"apiVersion", "kind", "metadata", "status"},
		},
		{
			key:        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
			properties: []string{"name", "namespace", "labels", "annotations", "resourceVersion", "uid", "managedFields"},
			extensions: map[string]map[string]any{
				"managedFields": {"x-kubernetes-list-type": "atomic"},
			},
		},
		{
			key:        "io.k8s.apimachinery.pkg.version.Info",
			properties: []string{"major", "minor", "gitVersion"},
		},
		{
			key:        "io.k8s.api.apps.v1.DeploymentSpec",
			properties: []string{"replicas", "selector", "template", "strategy"},
			required:   []string{"selector", "template"},
		},
		{
			key:        "io.k8s.api.autoscaling.v1.Scale",
			properties: []string{"apiVersion", "kind", "metadata", "spec", "status"},
		},
		// kubewalk's own group: the field renamed between the versions is in each version's
		// schema under its own name, and steps is a list map keyed by name (server-side apply
		// merges steps by name).
		{
			key:        "io.kubewalk.learn.v1.LessonSpec",
			properties: []string{"title", "author", "level", "steps"},
			required:   []string{"title", "steps"},
			extensions: map[string]map[string]any{
				"steps": {"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}},
			},
		},
		{
			key:        "io.kubewalk.learn.v1alpha1.LessonSpec",
			properties: []string{"title", "owner", "level", "steps"},
			required:   []string{"title", "steps"},
		},
		{
			key:        "io.kubewalk.learn.v1.Lesson",
			properties: []string{"apiVersion", "kind", "metadata", "spec", "status"},
		},
		// Custom-schema types: no properties, but they must be present so
		// references to them resolve.
		{key: "io.k8s.apimachinery.pkg.api.resource.Quantity"},
		{key: "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
		{key: "io.k8s.apimachinery.pkg.runtime.RawExtension"},
	}

	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			def, ok := defs[tt.key]
			if !ok {
				t.Fatalf("no definition for %q", tt.key)
			}
			for _, p := range tt.properties {
				if _, ok := def.Schema.Properties[p]; !ok {
					t.Errorf("%s: missing property %q", tt.key, p)
				}
			}
			for _, r := range tt.required {
				found := false
				for _, got := range def.Schema.Required {
					if got == r {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: %q not required (required = %v)", tt.key, r, def.Schema.Required)
				}
			}
			for prop, want := range tt.extensions {
				p, ok := def.Schema.Properties[prop]
				if !ok {
					t.Errorf("%s: missing property %q", tt.key, prop)
					continue
				}
				for ext, wantVal := range want {
					gotVal, ok := p.Extensions[ext]
					if !ok {
						t.Errorf("%s.%s: missing extension %q (have %v)", tt.key, prop, ext, p.Extensions)
						continue
					}
					if !reflect.DeepEqual(gotVal, wantVal) {
						t.Errorf("%s.%s: extension %q = %#v, want %#v", tt.key, prop, ext, gotVal, wantVal)
					}
				}
			}
		})
	}
}

// TestKeyFormat pins the key format: OpenAPI model names
// ("io.k8s.api.core.v1.ConfigMap", "io.kubewalk.learn.v1.Lesson"), not Go
// import paths ("k8s.io/api/core/v1.ConfigMap").
func TestKeyFormat(t *testing.T) {
	defs, _ := definitions(t)
	for key := range defs {
		if !(strings.HasPrefix(key, "io.k8s.") || strings.HasPrefix(key, "io.kubewalk.learn.")) || strings.Contains(key, "/") {
			t.Errorf("key %q is not an io.k8s.* or io.kubewalk.learn.* OpenAPI model name", key)
		}
	}
	if got, want := (learnv1.Lesson{}).OpenAPIModelName(), "io.kubewalk.learn.v1.Lesson"; got != want {
		t.Errorf("learn v1 Lesson model name = %q, want %q", got, want)
	}
	if got, want := (corev1.ConfigMap{}).OpenAPIModelName(), "io.k8s.api.core.v1.ConfigMap"; got != want {
		t.Errorf("corev1.ConfigMap model name = %q, want %q", got, want)
	}
	if _, ok := defs["k8s.io/api/core/v1.ConfigMap"]; ok {
		t.Error("found a Go import path key; expected only model-name keys")
	}
}

// TestReferencesResolve checks that every schema reference and dependency
// names a definition in the map, i.e. the generated set is closed.
func TestReferencesResolve(t *testing.T) {
	defs, refs := definitions(t)
	for name := range refs {
		if _, ok := defs[name]; !ok {
			t.Errorf("schema references %q, which has no definition", name)
		}
	}
	for key, def := range defs {
		for _, dep := range def.Dependencies {
			if _, ok := defs[dep]; !ok {
				t.Errorf("%s depends on %q, which has no definition", key, dep)
			}
		}
	}
}
