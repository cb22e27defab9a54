package etcdview_test

import (
	"context"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/runtime/etcdview"
)

// BenchmarkList10000Keys lists the shared server's keyspace with 10,000 extra keys in it: what
// `:etcd` costs on a large store (keys only, PageSize keys per request, one snapshot).
func BenchmarkList10000Keys(b *testing.B) {
	s := liveServer(b)
	x := explorer(b, s)
	ec := etcdClient(b, x)
	dir := "/registry/" + uniqueName("kubewalk-bench") + "/"
	b.Cleanup(func() { ec.Delete(context.Background(), dir, clientv3.WithPrefix()) })
	putKeys(b, ec, dir, 10_000)
	ctx := context.Background()
	var keys int
	b.ResetTimer()
	for b.Loop() {
		tree, err := x.List(ctx)
		if err != nil {
			b.Fatal(err)
		}
		keys = tree.Len()
	}
	b.ReportMetric(float64(keys), "keys")
}

// BenchmarkDecode reads one configmap's value and renders it as YAML.
func BenchmarkDecode(b *testing.B) {
	s := liveServer(b)
	x := explorer(b, s)
	ctx := context.Background()
	name := uniqueName("bench")
	if _, err := client(b).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"a": "1", "b": "2", "c": "3"},
	}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	key := "/registry/configmaps/default/" + name
	for b.Loop() {
		if _, err := x.Decode(ctx, key, etcdview.DecodeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
