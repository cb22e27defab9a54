package server_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubewalk/kubewalk/server"
)

// TestEtcdAccessFollowsThePhases asks for etcd access before any phase and at every
// checkpoint: it is refused with ErrEtcdNotReady until the storage phase has built its REST
// stores, works from there on (reading etcd), and fails with ErrClosed once the server is
// closed, also through an access obtained before.
func TestEtcdAccessFollowsThePhases(t *testing.T) {
	got := map[string]error{}
	var order []string
	s := newServer(t, func(o *server.Options) {
		o.Hook = server.HookFunc(func(ctx context.Context, cp server.Checkpoint, s *server.Server) error {
			a, err := s.Etcd()
			if err == nil {
				_, err = a.Get(ctx, a.KeyPrefix(), clientv3.WithPrefix(), clientv3.WithCountOnly())
			}
			got[cp.ID()], order = err, append(order, cp.ID())
			return nil
		})
	})
	if _, err := s.Etcd(); !errors.Is(err, server.ErrEtcdNotReady) {
		t.Fatalf("before any phase: %v, want ErrEtcdNotReady", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ready := slices.Index(order, "storage/rest-stores")
	if ready < 0 {
		t.Fatalf("checkpoints reached: %v", order)
	}
	for i, id := range order {
		err := got[id]
		switch {
		case i < ready && !errors.Is(err, server.ErrEtcdNotReady):
			t.Errorf("at %s: %v, want ErrEtcdNotReady", id, err)
		case i >= ready && err != nil:
			t.Errorf("at %s: %v, want access", id, err)
		}
	}

	a, err := s.Etcd()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Etcd(); !errors.Is(err, server.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
	if _, err := a.Get(context.Background(), a.KeyPrefix(), clientv3.WithPrefix()); !errors.Is(err, server.ErrClosed) {
		t.Errorf("Get through an earlier access after Close: %v, want ErrClosed", err)
	}
}

// TestEtcdAccess reads a configmap created through the API from etcd and decodes it with the
// server's codecs; it checks the layout of the stores and the decoding of JSON and of bytes
// that are no object.
func TestEtcdAccess(t *testing.T) {
	s := startServer(t)
	a, err := s.Etcd()
	if err != nil {
		t.Fatal(err)
	}
	if a.KeyPrefix() != "/registry/" || a.External() || len(a.Endpoints()) == 0 {
		t.Errorf("prefix %q, external %v, endpoints %v", a.KeyPrefix(), a.External(), a.Endpoints())
	}

	t.Run("Resources", func(t *testing.T) {
		byName := map[schema.GroupResource]server.EtcdResource{}
		for _, r := range a.Resources() {
			byName[r.Resource] = r
		}
		for _, want := range []server.EtcdResource{
			{Resource: schema.GroupResource{Resource: "configmaps"}, KeyPrefix: "/registry/configmaps/", Namespaced: true},
			{Resource: schema.GroupResource{Resource: "namespaces"}, KeyPrefix: "/registry/namespaces/"},
			{Resource: schema.GroupResource{Resource: "events"}, KeyPrefix: "/registry/events/", Namespaced: true},
			{Resource: schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, KeyPrefix: "/registry/clusterroles/"},
			{Resource: schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"}, KeyPrefix: "/registry/roles/", Namespaced: true},
		} {
			if got := byName[want.Resource]; got != want {
				t.Errorf("%s: %+v, want %+v", want.Resource, got, want)
			}
		}
	})

	t.Run("Protobuf", func(t *testing.T) {
		cm, err := clientFor(t, s, "admin").CoreV1().ConfigMaps("default").Create(context.Background(),
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "stored"}, Data: map[string]string{"greeting": "hello"}},
			metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := a.Get(context.Background(), "/registry/configmaps/default/stored")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("get: %v, %v", resp, err)
		}
		if rv := strconv.FormatInt(resp.Kvs[0].ModRevision, 10); rv != cm.ResourceVersion {
			t.Errorf("mod revision %s, resourceVersion %s", rv, cm.ResourceVersion)
		}
		got, err := a.Decode(resp.Kvs[0].Value)
		if err != nil {
			t.Fatal(err)
		}
		obj, ok := got.Object.(*corev1.ConfigMap)
		if got.MediaType != "application/vnd.kubernetes.protobuf" || !ok ||
			got.GVK != corev1.SchemeGroupVersion.WithKind("ConfigMap") ||
			obj.APIVersion != "v1" || obj.Kind != "ConfigMap" || obj.Data["greeting"] != "hello" || obj.Name != "stored" {
			t.Errorf("decoded %s %v: %#v", got.MediaType, got.GVK, got.Object)
		}
	})

	for _, tc := range []struct {
		name, value, mediaType string
		kind                   string // "" when decoding must fail
	}{
		{"JSON", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"j"},"data":{"k":"dg=="}}`, "application/json", "Secret"},
		{"JSONNoKind", `{"a":1}`, "application/json", ""},
		{"BrokenProtobuf", "k8s\x00garbage", "application/vnd.kubernetes.protobuf", ""},
		{"Number", "12345", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := a.Decode([]byte(tc.value))
			if got.MediaType != tc.mediaType || (err == nil) != (tc.kind != "") || got.GVK.Kind != tc.kind {
				t.Errorf("Decode(%q) = %s %v, %v; want %q kind %q", tc.value, got.MediaType, got.GVK, err, tc.mediaType, tc.kind)
			}
		})
	}
}
