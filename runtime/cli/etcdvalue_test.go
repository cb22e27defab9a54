package cli

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubewalk/kubewalk/runtime/etcdview"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestEtcdValueNotes checks the note etcdValue puts above a decoded value, in both languages:
// a custom resource names its CRD and storage version and says JSON, an unregistered kind with
// no CRD says so, a value that is not an object says why, and a built-in object has no note.
func TestEtcdValueNotes(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "demo.example.com", Version: "v1", Kind: "Widget"}
	cr := etcdview.Value{MediaType: "application/json", GVK: gvk, YAML: "kind: Widget\n", Unstructured: true,
		CRD: &etcdview.CRD{Name: "widgets.demo.example.com", StorageVersion: "v1"}}
	orphan := cr
	orphan.CRD = nil
	notObject := etcdview.Value{NotObject: "decode: no serializer of the server recognises the value", Raw: "42"}
	cm := etcdview.Value{MediaType: "application/vnd.kubernetes.protobuf", GVK: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, YAML: "kind: ConfigMap\n"}
	for _, tc := range []struct {
		name, lang string
		v          etcdview.Value
		first      []string // parts of the first line
		encoding   string
		rest       string // what follows the first line
	}{
		{"custom resource", i18n.English, cr, []string{"# a custom resource: CRD widgets.demo.example.com", "storage version v1", "JSON, never protobuf"},
			"JSON, stored as demo.example.com/v1 Widget", "kind: Widget\n"},
		{"custom resource", i18n.SimplifiedChinese, cr, []string{"# 定制资源：由 CRD widgets.demo.example.com 定义", "存储版本 v1", "JSON"},
			"JSON，存储为 demo.example.com/v1 Widget", "kind: Widget\n"},
		{"no CRD", i18n.English, orphan, []string{"# demo.example.com/v1 Widget is in no scheme", "unstructured"}, "JSON, stored as demo.example.com/v1 Widget", "kind: Widget\n"},
		{"no CRD", i18n.SimplifiedChinese, orphan, []string{"demo.example.com/v1 Widget", "非结构化"}, "JSON，存储为 demo.example.com/v1 Widget", "kind: Widget\n"},
		{"not an object", i18n.English, notObject, []string{"# not a Kubernetes object: decode: no serializer"}, "raw bytes", "42"},
		{"not an object", i18n.SimplifiedChinese, notObject, []string{"# 不是 Kubernetes 对象：decode: no serializer"}, "原始字节", "42"},
		{"built-in object", i18n.SimplifiedChinese, cm, []string{"kind: ConfigMap"}, `protobuf ("k8s\x00" envelope)，存储为 v1 ConfigMap`, ""},
	} {
		t.Run(tc.name+"/"+tc.lang, func(t *testing.T) {
			out := etcdValue(tc.v, i18n.For(tc.lang))
			first, rest, _ := strings.Cut(out.YAML, "\n")
			for _, p := range tc.first {
				if !strings.Contains(first, p) {
					t.Errorf("first line %q has no %q", first, p)
				}
			}
			if rest != tc.rest || out.Encoding != tc.encoding {
				t.Errorf("encoding %q, then %q; want %q, then %q", out.Encoding, rest, tc.encoding, tc.rest)
			}
		})
	}
}
