package live_test

import (
	"context"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/kubewalk/kubewalk/runtime/live"
	"github.com/kubewalk/kubewalk/server"
)

func TestMain(m *testing.M) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	klog.SetOutput(io.Discard)
	os.Exit(m.Run())
}

// startServer runs a real server (embedded etcd in a temp dir) through every phase.
func startServer(t *testing.T) *server.Server {
	t.Helper()
	logFile, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	s, err := server.New(server.Options{LogOutput: logFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	return s
}

// probe runs one probe and returns its tree as text.
func probe(t *testing.T, s *server.Server, id string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n, err := live.Run(ctx, s, id, nil)
	if err != nil {
		t.Fatalf("Run(%s): %v", id, err)
	}
	if len(n.Children) != 1 || n.Children[0].Label != id {
		t.Fatalf("Run(%s) root = %s", id, n)
	}
	return n.String()
}

// wantLines fails unless text has each line (trimmed, as a whole line).
func wantLines(t *testing.T, id, text string, want ...string) {
	t.Helper()
	var got []string
	for _, l := range strings.Split(text, "\n") {
		got = append(got, strings.TrimSpace(l))
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s lacks line %q; tree:\n%s", id, w, text)
		}
	}
}

// TestProbes runs every probe against a real server: first before the learner has created
// anything (each says what to create), then after creating the objects the lessons ask for
// with client-go, checking what each probe reads from the server.
func TestProbes(t *testing.T) {
	s := startServer(t)
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(cfg)
	dc := dynamic.NewForConfigOrDie(cfg)
	ctx := context.Background()

	for _, id := range []string{"object-meta", "etcd-bytes", "learn-storage", "pod-status", "pod-subresources", "deployments"} {
		if got := probe(t, s, id); !strings.Contains(got, "not created yet — kubectl ") {
			t.Errorf("%s before the object exists:\n%s", id, got)
		}
	}
	if _, err := live.Run(ctx, s, "object-mta", nil); err == nil || !strings.Contains(err.Error(), "unknown probe") {
		t.Errorf("unknown probe: %v", err)
	}

	if _, err := kc.CoreV1().ConfigMaps(live.Namespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: live.ConfigMapName}, Data: map[string]string{"greeting": "hello"},
	}, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
	lesson := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "learn.kubewalk.io/v1alpha1", "kind": "Lesson",
		"metadata": map[string]any{"name": live.LessonName},
		"spec":     map[string]any{"title": "Hello", "owner": "ada", "steps": []any{map[string]any{"name": "one"}}},
	}}
	gvr := schema.GroupVersionResource{Group: "learn.kubewalk.io", Version: "v1alpha1", Resource: "lessons"}
	if _, err := dc.Resource(gvr).Namespace(live.Namespace).Create(ctx, lesson, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.CoreV1().Pods(live.Namespace).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: live.PodName},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	one := int32(1)
	if _, err := kc.AppsV1().Deployments(live.Namespace).Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: live.DeploymentName},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sc, err := kc.AppsV1().Deployments(live.Namespace).GetScale(ctx, live.DeploymentName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Spec.Replicas = 3
	if _, err := kc.AppsV1().Deployments(live.Namespace).UpdateScale(ctx, live.DeploymentName, sc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		id   string
		want []string
	}{
		{"object-meta", []string{"apiVersion: v1", "kind: ConfigMap", `apiVersion: ""`, `kind: ""`, "name: demo", "greeting: hello", "kubectl-create: Update v1"}},
		{"scheme-gvks", []string{`learn.kubewalk.io: priority: v1, v1alpha1`, "Lesson", `""/v1, Kind=ConfigMap`}},
		{"restmapper", []string{
			`cm: ""/v1/configmaps`, "path: /api/v1/namespaces/default/configmaps", `GVK: ""/v1, Kind=ConfigMap`,
			"deploy: apps/v1/deployments", "path: /apis/apps/v1/namespaces/default/deployments",
			"lessons: learn.kubewalk.io/v1/lessons", "lessons.v1alpha1.learn.kubewalk.io: learn.kubewalk.io/v1alpha1/lessons",
			"learn.kubewalk.io/v1, Kind=Lesson: learn.kubewalk.io/v1/lessons",
		}},
		{"etcd-bytes", []string{`first bytes: k8s\x00\x0a\x0f\x0a\x02v1\x12\x09…`, "recognised as: application/vnd.kubernetes.protobuf", `stored as (storage version): ""/v1, Kind=ConfigMap`}},
		{"learn-group", []string{"/apis/learn.kubewalk.io: preferred v1", "GET as v1alpha1: learn.kubewalk.io/v1alpha1", "spec.owner: ada", "GET as v1: learn.kubewalk.io/v1", "spec.author: ada", "lessons/status: kind Lesson"}},
		{"learn-storage", []string{"recognised as: application/json", "stored as (storage version): learn.kubewalk.io/v1, Kind=Lesson", "apiVersion: learn.kubewalk.io/v1", "spec.author: ada"}},
		{"pod-status", []string{"phase: Pending", `nodeName: ""`, "containers[web].image: nginx:1.27"}},
		{"pod-subresources", []string{"pods/exec: create, get", "pods/status: get, patch, update", "GET /api/v1/namespaces/default/pods/web/log: 404 NotFound", "message: pods/log is not served here: kubewalk runs no kubelet, so no container runs; kube-apiserver serves pods/log by proxying it to the kubelet on the pod's node (k8s.io/kubernetes v1.37.2 pkg/registry/core/pod/rest/log.go, LogREST.Get)"}},
		{"deployments", []string{"replicas: 3", "status.replicas: 0", "pods matching the selector: 0 (no controller creates them)", "selector: app=web"}},
		{"versions", []string{"GET /version: v" + server.KubernetesVersion + "+kubewalk", "learn.kubewalk.io: v1, v1alpha1; preferred v1", "lessons.learn.kubewalk.io: learn.kubewalk.io/v1 (JSON)", "configmaps: v1 (protobuf)"}},
	}
	for _, tt := range tests {
		wantLines(t, tt.id, probe(t, s, tt.id), tt.want...)
	}
	if got, want := len(tests), len(live.IDs()); got != want {
		t.Errorf("tested %d probes, there are %d", got, want)
	}
}
