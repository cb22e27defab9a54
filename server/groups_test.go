package server_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubewalk/kubewalk/server"
	"github.com/kubewalk/kubewalk/server/admit"
)

var (
	lessonsV1      = schema.GroupVersionResource{Group: "learn.kubewalk.io", Version: "v1", Resource: "lessons"}
	lessonsV1alpha = schema.GroupVersionResource{Group: "learn.kubewalk.io", Version: "v1alpha1", Resource: "lessons"}
)

// wantInvalid checks that err is a 422 Invalid whose causes name field.
func wantInvalid(t *testing.T, err error, field string) {
	t.Helper()
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Code != http.StatusUnprocessableEntity {
		t.Fatalf("want 422 Invalid naming %s, got %v", field, err)
	}
	var fields []string
	for _, c := range status.Status().Details.Causes {
		fields = append(fields, c.Field)
	}
	if !contains(fields, field) {
		t.Fatalf("causes %v do not name %s (%v)", fields, field, err)
	}
}

func nested(t *testing.T, obj *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(obj.Object, path...)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(path, "."), err)
	}
	return v
}

// TestOwnGroup drives learn.kubewalk.io through the real server: a lesson created in
// v1alpha1 reads back in v1 with owner converted to author, is stored in etcd as v1, gets its
// defaults, keeps spec and status apart, and is refused with field paths when invalid.
func TestOwnGroup(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(restConfig(t, s, "admin"))
	if err != nil {
		t.Fatal(err)
	}
	alpha, stable := dyn.Resource(lessonsV1alpha).Namespace("default"), dyn.Resource(lessonsV1).Namespace("default")

	created, err := alpha.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "learn.kubewalk.io/v1alpha1", "kind": "Lesson",
		"metadata": map[string]any{"name": "hello"},
		"spec": map[string]any{"title": "Hello, API group", "owner": "alice",
			"steps": []any{map[string]any{"name": "types"}, map[string]any{"name": "register"}}},
		"status": map[string]any{"completedSteps": int64(2)},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("CreatedInV1alpha1ReadInV1", func(t *testing.T) {
		if got := nested(t, created, "spec", "owner"); got != "alice" {
			t.Errorf("v1alpha1 response owner = %v", got)
		}
		got, err := stable.Get(ctx, "hello", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.GetAPIVersion() != "learn.kubewalk.io/v1" || nested(t, got, "spec", "author") != "alice" || nested(t, got, "spec", "owner") != nil {
			t.Errorf("v1 read: apiVersion %s spec %v", got.GetAPIVersion(), got.Object["spec"])
		}
	})

	t.Run("DefaultsAndCreate", func(t *testing.T) {
		if got := nested(t, created, "spec", "level"); got != "Beginner" {
			t.Errorf("level = %v, want the default Beginner", got)
		}
		if got := nested(t, created, "status", "completedSteps"); got != nil {
			t.Errorf("create kept the client's status: completedSteps = %v", got)
		}
		if created.GetGeneration() != 1 || created.GetAnnotations()[admit.CreatedByAnnotation] != server.AdminUser {
			t.Errorf("generation %d annotations %v", created.GetGeneration(), created.GetAnnotations())
		}
	})

	t.Run("StoredAsV1", func(t *testing.T) {
		a, err := s.Etcd()
		if err != nil {
			t.Fatal(err)
		}
		var prefix string
		for _, r := range a.Resources() {
			if r.Resource == (schema.GroupResource{Group: "learn.kubewalk.io", Resource: "lessons"}) {
				prefix = r.KeyPrefix
			}
		}
		if prefix == "" {
			t.Fatalf("no lessons store among %v", a.Resources())
		}
		resp, err := a.Get(ctx, prefix+"default/hello")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get %sdefault/hello: %v %v", prefix, resp, err)
		}
		raw := string(resp.Kvs[0].Value)
		stored, err := a.Decode(resp.Kvs[0].Value)
		if err != nil {
			t.Fatal(err)
		}
		if stored.GVK != (schema.GroupVersionKind{Group: "learn.kubewalk.io", Version: "v1", Kind: "Lesson"}) || stored.MediaType != "application/json" {
			t.Errorf("stored as %v in %s, want learn.kubewalk.io/v1 Lesson in JSON", stored.GVK, stored.MediaType)
		}
		if !strings.Contains(raw, `"author":"alice"`) || strings.Contains(raw, `"owner"`) {
			t.Errorf("stored bytes are not v1's: %s", raw)
		}
	})

	t.Run("StatusSubresource", func(t *testing.T) {
		l, err := stable.Get(ctx, "hello", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Through lessons/status the status changes and the spec does not.
		_ = unstructured.SetNestedField(l.Object, "changed through status", "spec", "title")
		_ = unstructured.SetNestedField(l.Object, int64(1), "status", "completedSteps")
		l, err = stable.UpdateStatus(ctx, l, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if nested(t, l, "spec", "title") != "Hello, API group" || nested(t, l, "status", "completedSteps") != int64(1) {
			t.Errorf("status update: spec %v status %v", l.Object["spec"], l.Object["status"])
		}
		// Through the lesson the spec changes (and the generation with it) and the status does not.
		_ = unstructured.SetNestedField(l.Object, "Hello again", "spec", "title")
		_ = unstructured.SetNestedField(l.Object, int64(0), "status", "completedSteps")
		l, err = stable.Update(ctx, l, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if nested(t, l, "spec", "title") != "Hello again" || nested(t, l, "status", "completedSteps") != int64(1) || l.GetGeneration() != 2 {
			t.Errorf("main update: spec %v status %v generation %d", l.Object["spec"], l.Object["status"], l.GetGeneration())
		}
		// A status patch in v1alpha1 works the same.
		l, err = alpha.Patch(ctx, "hello", types.MergePatchType, []byte(`{"status":{"completedSteps":2}}`), metav1.PatchOptions{}, "status")
		if err != nil || nested(t, l, "status", "completedSteps") != int64(2) {
			t.Fatalf("v1alpha1 status patch: %v %v", l, err)
		}
		_, err = stable.Patch(ctx, "hello", types.MergePatchType, []byte(`{"status":{"completedSteps":3}}`), metav1.PatchOptions{}, "status")
		wantInvalid(t, err, "status.completedSteps")
	})

	t.Run("Validation422", func(t *testing.T) {
		tests := []struct {
			name, field string
			obj         map[string]any
		}{
			{"no steps", "spec.steps", map[string]any{"name": "empty"}},
			{"name rules", "metadata.name", map[string]any{"name": "Not.A.Label"}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				steps := []any{}
				if tt.field != "spec.steps" {
					steps = []any{map[string]any{"name": "one"}}
				}
				_, err := stable.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "learn.kubewalk.io/v1", "kind": "Lesson", "metadata": tt.obj,
					"spec": map[string]any{"title": "T", "steps": steps},
				}}, metav1.CreateOptions{})
				wantInvalid(t, err, tt.field)
			})
		}
	})

	t.Run("ServerSideFieldValidation", func(t *testing.T) {
		body := []byte(`{"apiVersion":"learn.kubewalk.io/v1","kind":"Lesson","metadata":{"name":"strict"},` +
			`"spec":{"title":"T","colour":"red","steps":[{"name":"one"}]}}`)
		_, err := stable.Patch(ctx, "strict", types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "test", FieldValidation: "Strict"})
		if err == nil || !strings.Contains(err.Error(), "colour") {
			t.Fatalf("apply with an unknown field: %v, want an error naming it", err)
		}
		body = []byte(strings.Replace(string(body), `"colour":"red",`, "", 1))
		l, err := stable.Patch(ctx, "strict", types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "test", FieldValidation: "Strict"})
		if err != nil || len(l.GetManagedFields()) == 0 {
			t.Fatalf("apply: %v, managed fields %v", err, l)
		}
	})

	t.Run("NoProtobuf", func(t *testing.T) {
		// The group's types have no protobuf code: a client that accepts only protobuf is
		// told so (406), one that also accepts JSON gets JSON.
		for _, tt := range []struct {
			accept string
			want   int
		}{
			{runtime.ContentTypeProtobuf, http.StatusNotAcceptable},
			{runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON, http.StatusOK},
		} {
			var code int
			res := clientFor(t, s, "admin").CoreV1().RESTClient().Get().AbsPath("/apis/learn.kubewalk.io/v1/namespaces/default/lessons/hello").
				SetHeader("Accept", tt.accept).Do(ctx).StatusCode(&code)
			if code != tt.want {
				t.Errorf("Accept %s: %d (%v), want %d", tt.accept, code, res.Error(), tt.want)
			}
		}
	})

	t.Run("Discovery", func(t *testing.T) {
		admin := clientFor(t, s, "admin")
		groups, err := admin.Discovery().ServerGroups()
		if err != nil {
			t.Fatal(err)
		}
		var learn *metav1.APIGroup
		for i := range groups.Groups {
			if groups.Groups[i].Name == "learn.kubewalk.io" {
				learn = &groups.Groups[i]
			}
		}
		if learn == nil || learn.PreferredVersion.Version != "v1" || len(learn.Versions) != 2 || learn.Versions[1].Version != "v1alpha1" {
			t.Fatalf("learn.kubewalk.io discovered as %+v", learn)
		}
		rl, err := admin.Discovery().ServerResourcesForGroupVersion("learn.kubewalk.io/v1alpha1")
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]metav1.APIResource{}
		for _, r := range rl.APIResources {
			found[r.Name] = r
		}
		if r := found["lessons"]; !r.Namespaced || !contains(r.ShortNames, "lsn") || !contains(r.Categories, "learn") || r.Kind != "Lesson" {
			t.Errorf("lessons = %+v", r)
		}
		if _, ok := found["lessons/status"]; !ok {
			t.Errorf("lessons/status not discovered in v1alpha1")
		}
	})
}

// TestDeployments: apps/v1 deployments are stored with upstream's defaults, validated (422
// with field paths), scaled through deployments/scale (an autoscaling/v1 Scale) and keep
// spec and status apart. Nothing acts on them: no ReplicaSet, no pod.
func TestDeployments(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin := clientFor(t, s, "admin")
	deployments := admin.AppsV1().Deployments("default")
	labels := map[string]string{"app": "web"}
	newDeployment := func(name string) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27"}}},
				},
			},
		}
	}
	d, err := deployments.Create(ctx, newDeployment("web"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("Defaults", func(t *testing.T) {
		ru := d.Spec.Strategy.RollingUpdate
		if *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil ||
			ru.MaxSurge.String() != "25%" || ru.MaxUnavailable.String() != "25%" ||
			*d.Spec.RevisionHistoryLimit != 10 || *d.Spec.ProgressDeadlineSeconds != 600 {
			t.Errorf("spec = %+v", d.Spec)
		}
		if d.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || d.Generation != 1 ||
			d.Annotations[admit.CreatedByAnnotation] != server.AdminUser {
			t.Errorf("template %+v generation %d annotations %v", d.Spec.Template.Spec, d.Generation, d.Annotations)
		}
	})

	t.Run("Scale", func(t *testing.T) {
		scale, err := deployments.GetScale(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if scale.Spec.Replicas != 1 || scale.Status.Selector != "app=web" {
			t.Errorf("scale = %+v", scale)
		}
		scale.Spec.Replicas = 3
		if _, err := deployments.UpdateScale(ctx, "web", scale, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *got.Spec.Replicas != 3 || got.Generation != 2 || got.Status.Replicas != 0 {
			t.Errorf("after scaling: replicas %d generation %d status %+v", *got.Spec.Replicas, got.Generation, got.Status)
		}
		// kubectl scale sends a merge patch to the scale subresource.
		if _, err := deployments.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}, "scale"); err != nil {
			t.Fatal(err)
		}
		_, err = deployments.UpdateScale(ctx, "web", &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: autoscalingv1.ScaleSpec{Replicas: -1}}, metav1.UpdateOptions{})
		wantInvalid(t, err, "spec.replicas")
		_, err = deployments.GetScale(ctx, "missing", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("scale of a missing deployment: %v", err)
		}
	})

	t.Run("StatusSubresource", func(t *testing.T) {
		got, err := deployments.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got.Status = appsv1.DeploymentStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, UpdatedReplicas: 2}
		got.Spec.Replicas = ptr.To[int32](9)
		got, err = deployments.UpdateStatus(ctx, got, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if *got.Spec.Replicas != 2 || got.Status.ReadyReplicas != 1 {
			t.Errorf("status update: replicas %d status %+v", *got.Spec.Replicas, got.Status)
		}
		got.Status.AvailableReplicas = 5
		_, err = deployments.UpdateStatus(ctx, got, metav1.UpdateOptions{})
		wantInvalid(t, err, "status.availableReplicas")
	})

	t.Run("Validation422", func(t *testing.T) {
		mismatch := newDeployment("mismatch")
		mismatch.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}
		_, err := deployments.Create(ctx, mismatch, metav1.CreateOptions{})
		wantInvalid(t, err, "spec.template.metadata.labels")

		negative := newDeployment("negative")
		negative.Spec.Replicas = ptr.To[int32](-1)
		_, err = deployments.Create(ctx, negative, metav1.CreateOptions{})
		wantInvalid(t, err, "spec.replicas")

		noImage := newDeployment("noimage")
		noImage.Spec.Template.Spec.Containers[0].Image = ""
		_, err = deployments.Create(ctx, noImage, metav1.CreateOptions{})
		wantInvalid(t, err, "spec.template.spec.containers[0].image")
	})

	t.Run("NothingRuns", func(t *testing.T) {
		pods, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil || len(pods.Items) != 0 {
			t.Errorf("pods for the deployment: %v %v; no controller should have made any", pods, err)
		}
	})

	t.Run("StoredAsAppsV1Protobuf", func(t *testing.T) {
		a, err := s.Etcd()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := a.Get(ctx, "/registry/deployments/default/web")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd get: %v %v", resp, err)
		}
		got, err := a.Decode(resp.Kvs[0].Value)
		if err != nil {
			t.Fatal(err)
		}
		if got.GVK != appsv1.SchemeGroupVersion.WithKind("Deployment") || got.MediaType != "application/vnd.kubernetes.protobuf" {
			t.Errorf("stored as %v in %s", got.GVK, got.MediaType)
		}
	})

	t.Run("Discovery", func(t *testing.T) {
		rl, err := admin.Discovery().ServerResourcesForGroupVersion("apps/v1")
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]metav1.APIResource{}
		for _, r := range rl.APIResources {
			found[r.Name] = r
		}
		if r := found["deployments"]; !contains(r.ShortNames, "deploy") || !contains(r.Categories, "all") {
			t.Errorf("deployments = %+v", r)
		}
		if r, ok := found["deployments/scale"]; !ok || r.Group != "autoscaling" || r.Version != "v1" || r.Kind != "Scale" {
			t.Errorf("deployments/scale = %+v, want autoscaling/v1 Scale", r)
		}
		if _, ok := found["deployments/status"]; !ok {
			t.Errorf("deployments/status not discovered")
		}
	})
}

// TestKubeletSubresources: pods/exec, attach, portforward and log are discovered and
// authorized as in kube, then answered with 404 saying they are not served here and why; a
// missing pod is the plain 404 of the pods storage.
func TestKubeletSubresources(t *testing.T) {
	s := startServer(t)
	ctx := context.Background()
	admin, bob := clientFor(t, s, "admin"), clientFor(t, s, "bob")
	_, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	request := func(c kubernetes.Interface, method, pod, sub string) error {
		return c.CoreV1().RESTClient().Verb(method).Namespace("default").Resource("pods").Name(pod).SubResource(sub).
			Param("command", "ls").Do(ctx).Error()
	}

	t.Run("Admin", func(t *testing.T) {
		for _, tt := range []struct{ method, sub, upstream string }{
			{"POST", "exec", "subresources.go, ExecREST.Connect"},
			{"GET", "exec", "subresources.go, ExecREST.Connect"},
			{"POST", "attach", "subresources.go, AttachREST.Connect"},
			{"POST", "portforward", "subresources.go, PortForwardREST.Connect"},
			{"GET", "log", "log.go, LogREST.Get"},
		} {
			err := request(admin, tt.method, "web", tt.sub)
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != http.StatusNotFound ||
				status.Status().Reason != metav1.StatusReasonNotFound || status.Status().Details != nil ||
				!strings.Contains(err.Error(), "pods/"+tt.sub+" is not served here: kubewalk runs no kubelet") ||
				!strings.Contains(err.Error(), "k8s.io/kubernetes v1.37.2") || !strings.Contains(err.Error(), tt.upstream) {
				t.Errorf("%s pods/%s: %v, want 404 saying pods/%s is not served, naming %s", tt.method, tt.sub, err, tt.sub, tt.upstream)
			}
		}
		for _, tt := range []struct{ method, sub string }{{"POST", "exec"}, {"GET", "log"}} {
			err := request(admin, tt.method, "missing", tt.sub)
			var status apierrors.APIStatus
			if !apierrors.IsNotFound(err) || !errors.As(err, &status) || status.Status().Details == nil ||
				status.Status().Details.Name != "missing" || strings.Contains(err.Error(), "kubelet") {
				t.Errorf("%s of a missing pod: %v, want the plain NotFound of pod missing", tt.sub, err)
			}
		}
	})

	t.Run("RBACNamesThem", func(t *testing.T) {
		if err := request(bob, "POST", "web", "exec"); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `cannot create resource "pods/exec"`) {
			t.Fatalf("bob exec: %v, want Forbidden naming pods/exec", err)
		}
		// A role that grants get on pods/exec lets bob's GET (WebSocket) through the
		// authorization filter; the subresource still wants create, as kube's does.
		_, err := admin.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{
			ObjectMeta: metav1.ObjectMeta{Name: "exec-get"},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods", "pods/exec"}, Verbs: []string{"get"}}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "bob-exec-get"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "exec-get"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: server.BobUser}},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var last error
		err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			last = request(bob, "GET", "web", "exec")
			return strings.Contains(last.Error(), `cannot create resource "pods/exec"`), nil
		})
		if err != nil || !apierrors.IsForbidden(last) {
			t.Fatalf("bob GET exec with get granted: %v, want Forbidden to create pods/exec", last)
		}
	})

	t.Run("State", func(t *testing.T) {
		st := s.State().Find("restStores")
		if n := st.Find("pods/exec"); n == nil || !strings.Contains(n.Value, "kubewalk runs none") {
			t.Errorf("pods/exec store = %v", n)
		}
		if n := st.Find("lessons"); n == nil || n.Value != "key /registry/lessons/…, stored as learn.kubewalk.io/v1 Lesson in application/json" {
			t.Errorf("lessons store = %v", n)
		}
		if n := st.Find("deployments"); n == nil || !strings.Contains(n.Value, "stored as apps/v1 Deployment in application/vnd.kubernetes.protobuf") {
			t.Errorf("deployments store = %v", n)
		}
	})
}
