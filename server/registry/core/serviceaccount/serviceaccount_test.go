package serviceaccount

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubewalk/kubewalk/server/registry/internal/testutil"
)

func serviceAccount(secrets ...string) *corev1.ServiceAccount {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder", Namespace: "ci", ResourceVersion: "2"}}
	for _, s := range secrets {
		sa.Secrets = append(sa.Secrets, corev1.ObjectReference{Name: s})
	}
	return sa
}

func TestNewREST(t *testing.T) {
	g := &testutil.RESTOptionsGetter{}
	r, err := NewREST(testutil.Scheme(t), g)
	if err != nil {
		t.Fatal(err)
	}
	testutil.CheckStore(t, r, r.Store, g, testutil.StoreWant{
		Resource: resource, Singular: "serviceaccount", Namespaced: true, ShortNames: []string{"sa"},
		New: &corev1.ServiceAccount{}, NewList: &corev1.ServiceAccountList{},
	})
}

func TestPrepareForCreateCleansSecretReferences(t *testing.T) {
	sa := serviceAccount()
	sa.Secrets = []corev1.ObjectReference{{Name: "tok", Namespace: "other", Kind: "Secret", UID: "u"}}
	newStrategy(testutil.Scheme(t)).PrepareForCreate(context.Background(), sa)
	if sa.Secrets[0] != (corev1.ObjectReference{Name: "tok"}) {
		t.Errorf("secret ref = %+v, want name only", sa.Secrets[0])
	}
}

func TestValidate(t *testing.T) {
	s := newStrategy(testutil.Scheme(t))
	tests := []struct {
		name string
		sa   *corev1.ServiceAccount
		want []string
	}{
		{"valid", serviceAccount("tok"), []string{}},
		{"bad name", func() *corev1.ServiceAccount { sa := serviceAccount(); sa.Name = "Builder"; return sa }(),
			[]string{"metadata.name: Invalid value"}},
		{"empty secret name", serviceAccount(""), []string{"secrets[0].name: Required value"}},
		{"bad pull secret", func() *corev1.ServiceAccount {
			sa := serviceAccount()
			sa.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "a b"}}
			return sa
		}(), []string{"imagePullSecrets[0].name: Invalid value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := testutil.ErrorFields(s.Validate(context.Background(), tc.sa))
			if !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGetAttrs(t *testing.T) {
	testutil.CheckAttrs(t, GetAttrs, serviceAccount(), "ServiceAccount", true,
		fields.Set{"metadata.name": "builder", "metadata.namespace": "ci"})
}

func TestTable(t *testing.T) {
	sa := serviceAccount("a", "b")
	sa.CreationTimestamp = metav1.NewTime(time.Now().Add(-10 * 24 * time.Hour))
	list := &corev1.ServiceAccountList{ListMeta: metav1.ListMeta{ResourceVersion: "8"}, Items: []corev1.ServiceAccount{*sa}}
	testutil.CheckTable(t, tableConvertor, sa, list, []string{"Name", "Secrets", "Age"}, []any{"builder", int64(2), "10d"})
}
