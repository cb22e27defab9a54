package secret

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

func secret(typ corev1.SecretType, data map[string]string) *corev1.Secret {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "3"},
		Type:       typ,
	}
	if data != nil {
		s.Data = map[string][]byte{}
		for k, v := range data {
			s.Data[k] = []byte(v)
		}
	}
	return s
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "secret", Namespaced: true,
		New: &corev1.Secret{}, NewList: &corev1.SecretList{},
	})
}

func TestPrepareForCreateFoldsStringData(t *testing.T) {
	s := secret("", map[string]string{"a": "old", "b": "kept"})
	s.StringData = map[string]string{"a": "new", "c": "added"}
	newStrategy(testutil.Scheme(t)).PrepareForCreate(context.Background(), s)
	got := map[string]string{}
	for k, v := range s.Data {
		got[k] = string(v)
	}
	want := map[string]string{"a": "new", "b": "kept", "c": "added"}
	if !slices.Equal(sortedPairs(got), sortedPairs(want)) || s.StringData != nil || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("after PrepareForCreate data=%v stringData=%v type=%q", got, s.StringData, s.Type)
	}
}

func sortedPairs(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func TestValidate(t *testing.T) {
	st := newStrategy(testutil.Scheme(t))
	tests := []struct {
		name string
		s    *corev1.Secret
		want []string
	}{
		{"valid opaque", secret(corev1.SecretTypeOpaque, map[string]string{"password": "x"}), []string{}},
		{"bad key", secret(corev1.SecretTypeOpaque, map[string]string{"bad key": "x"}), []string{"data[bad key]: Invalid value"}},
		{"too large", secret(corev1.SecretTypeOpaque, map[string]string{"a": strings.Repeat("x", 1<<20), "b": "y"}),
			[]string{"data: Too long"}},
		{"exactly 1 MiB", secret(corev1.SecretTypeOpaque, map[string]string{"a": strings.Repeat("x", 1<<20)}), []string{}},
		{"tls without key", secret(corev1.SecretTypeTLS, map[string]string{"tls.crt": "c"}), []string{"data[tls.key]: Required value"}},
		{"dockerconfigjson not json", secret(corev1.SecretTypeDockerConfigJson, map[string]string{".dockerconfigjson": "{"}),
			[]string{"data[.dockerconfigjson]: Invalid value"}},
		{"basic auth empty", secret(corev1.SecretTypeBasicAuth, nil),
			[]string{"data[username]: Required value", "data[password]: Required value"}},
		{"basic auth password only", secret(corev1.SecretTypeBasicAuth, map[string]string{"password": "p"}), []string{}},
		{"sa token without annotation", secret(corev1.SecretTypeServiceAccountToken, nil),
			[]string{"metadata.annotations[kubernetes.io/service-account.name]: Required value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(st.Validate(context.Background(), tc.s))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestValidateUpdate(t *testing.T) {
	st := newStrategy(testutil.Scheme(t))
	immutable := func(s *corev1.Secret) *corev1.Secret { s.Immutable = ptr.To(true); return s }
	tests := []struct {
		name     string
		old, new *corev1.Secret
		want     []string
	}{
		{"data change", secret("Opaque", map[string]string{"a": "1"}), secret("Opaque", map[string]string{"a": "2"}), []string{}},
		{"type change", secret("Opaque", nil), secret("example.com/other", nil), []string{"type: Invalid value"}},
		{"immutable data change", immutable(secret("Opaque", map[string]string{"a": "1"})),
			immutable(secret("Opaque", map[string]string{"a": "2"})), []string{"data: Forbidden"}},
		{"immutable unchanged", immutable(secret("Opaque", map[string]string{"a": "1"})),
			immutable(secret("Opaque", map[string]string{"a": "1"})), []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(st.ValidateUpdate(context.Background(), tc.new, tc.old))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	st := newStrategy(testutil.Scheme(t))
	bad := secret(corev1.SecretTypeTLS, map[string]string{"tls.crt": "x", "tls.key": "y"})
	if w := st.WarningsOnCreate(context.Background(), bad); len(w) != 1 {
		t.Errorf("warnings for a broken TLS pair = %q, want one", w)
	}
	if w := st.WarningsOnCreate(context.Background(), secret(corev1.SecretTypeOpaque, nil)); len(w) != 0 {
		t.Errorf("warnings for opaque = %q, want none", w)
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, secret(corev1.SecretTypeTLS, nil), "Secret", true,
		fields.Set{"metadata.name": "s", "metadata.namespace": "ns", "type": "kubernetes.io/tls"})
}

func TestTable(t *testing.T) {
	s := secret(corev1.SecretTypeOpaque, map[string]string{"a": "1", "b": "2"})
	s.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	list := &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: "4"}, Items: []corev1.Secret{*s}}
	testutil.CheckTable(t, tableConvertor, s, list, []string{"Name", "Type", "Data", "Age"},
		[]any{"s", "Opaque", int64(2), "10d"})
}
