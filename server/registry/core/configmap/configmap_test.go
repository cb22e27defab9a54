package configmap

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/ptr"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func configMap(data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cfg", Namespace: "default", ResourceVersion: "7",
			Labels: map[string]string{"app": "x"}},
		Data: data,
	}
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "configmap", Namespaced: true, ShortNames: []string{"cm"},
		New: &corev1.ConfigMap{}, NewList: &corev1.ConfigMapList{},
	})
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		want []string
	}{
		{"valid", configMap(map[string]string{"a.conf": "x", "B_2": "y"}), []string{}},
		{"bad key", configMap(map[string]string{"bad key": "x"}), []string{"data[bad key]: Invalid value"}},
		{"key in both", func() *corev1.ConfigMap {
			cm := configMap(map[string]string{"k": "x"})
			cm.BinaryData = map[string][]byte{"k": []byte("y"), "b@d": nil}
			return cm
		}(), []string{"binaryData[b@d]: Invalid value", "data[k]: Invalid value"}},
		{"too large", configMap(map[string]string{"k": strings.Repeat("x", 1<<20+1)}), []string{"[]: Too long"}},
		{"bad name", func() *corev1.ConfigMap { cm := configMap(nil); cm.Name = "Bad_Name"; return cm }(),
			[]string{"metadata.name: Invalid value"}},
		{"no namespace", func() *corev1.ConfigMap { cm := configMap(nil); cm.Namespace = ""; return cm }(),
			[]string{"metadata.namespace: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(s.Validate(context.Background(), tc.cm))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	immutable := func(cm *corev1.ConfigMap) *corev1.ConfigMap { cm.Immutable = ptr.To(true); return cm }
	tests := []struct {
		name     string
		old, new *corev1.ConfigMap
		want     []string
	}{
		{"mutable data change", configMap(map[string]string{"a": "1"}), configMap(map[string]string{"a": "2"}), []string{}},
		{"immutable keeps data", immutable(configMap(map[string]string{"a": "1"})),
			func() *corev1.ConfigMap {
				cm := immutable(configMap(map[string]string{"a": "1"}))
				cm.Labels = map[string]string{"changed": "yes"}
				return cm
			}(), []string{}},
		{"immutable empty vs nil data", immutable(configMap(nil)), immutable(configMap(map[string]string{})), []string{}},
		{"immutable data change", immutable(configMap(map[string]string{"a": "1"})),
			immutable(configMap(map[string]string{"a": "2"})), []string{"data: Forbidden"}},
		{"immutable unset", immutable(configMap(nil)), configMap(nil), []string{"immutable: Forbidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(s.ValidateUpdate(context.Background(), tc.new, tc.old))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, configMap(nil), "ConfigMap", true,
		fields.Set{"metadata.name": "cfg", "metadata.namespace": "default"})
}

func TestTable(t *testing.T) {
	cm := configMap(map[string]string{"a": "1", "b": "2"})
	cm.BinaryData = map[string][]byte{"c": nil}
	cm.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.ConfigMap{*cm}}
	testutil.CheckTable(t, tableConvertor, cm, list, []string{"Name", "Data", "Age"}, []any{"cfg", int64(3), "10d"})
}
