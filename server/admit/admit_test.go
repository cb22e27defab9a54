package admit

import (
	"context"
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
)

func attrs(obj runtime.Object, resource, sub string, op admission.Operation, u user.Info) admission.Attributes {
	gvr := corev1.SchemeGroupVersion.WithResource(resource)
	return admission.NewAttributesRecord(obj, nil, gvr.GroupVersion().WithKind("X"), "default", "x",
		gvr, sub, op, nil, false, u)
}

func TestCreatedBy(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice"}
	tests := []struct {
		name     string
		obj      *corev1.ConfigMap
		sub      string
		wantAnno string // "" means no annotation
	}{
		{"stamps new object", &corev1.ConfigMap{}, "", "alice"},
		{"overwrites forged value", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{CreatedByAnnotation: "mallory"}}}, "", "alice"},
		{"keeps other annotations", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"a": "b"}}}, "", "alice"},
		{"skips subresources", &corev1.ConfigMap{}, "status", ""},
	}
	p := NewCreatedBy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(tt.obj.Annotations)
			if err := p.Admit(context.Background(), attrs(tt.obj, "configmaps", tt.sub, admission.Create, alice), nil); err != nil {
				t.Fatal(err)
			}
			if got := tt.obj.Annotations[CreatedByAnnotation]; got != tt.wantAnno {
				t.Fatalf("annotation = %q, want %q", got, tt.wantAnno)
			}
			if tt.obj.Annotations["a"] != "" && len(tt.obj.Annotations) != before+1 {
				t.Fatalf("other annotations changed: %v", tt.obj.Annotations)
			}
		})
	}
	if !p.Handles(admission.Update) || !p.Handles(admission.Create) || p.Handles(admission.Delete) || p.Handles(admission.Connect) {
		t.Fatal("CreatedBy must handle create and update only")
	}
}

// TestCreatedByUpdate: on update the annotation keeps the old object's value, or stays absent,
// whatever the new object says; other annotations are the request's.
func TestCreatedByUpdate(t *testing.T) {
	cm := func(ann map[string]string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default", Annotations: ann}}
	}
	stamped := map[string]string{CreatedByAnnotation: "alice"}
	tests := []struct {
		name     string
		old, obj map[string]string
		sub      string
		want     map[string]string
	}{
		{"rewritten", stamped, map[string]string{CreatedByAnnotation: "kubewalk-admin"}, "", stamped},
		{"removed", stamped, map[string]string{"note": "n"}, "", map[string]string{CreatedByAnnotation: "alice", "note": "n"}},
		{"all annotations removed", stamped, nil, "", stamped},
		{"emptied", stamped, map[string]string{CreatedByAnnotation: ""}, "", stamped},
		{"kept", stamped, map[string]string{CreatedByAnnotation: "alice", "note": "n"}, "", map[string]string{CreatedByAnnotation: "alice", "note": "n"}},
		{"added where there was none", nil, map[string]string{CreatedByAnnotation: "alice"}, "", nil},
		{"added beside others", map[string]string{"note": "n"}, map[string]string{CreatedByAnnotation: "alice", "note": "m"}, "", map[string]string{"note": "m"}},
		{"none before or after", nil, map[string]string{"note": "n"}, "", map[string]string{"note": "n"}},
		{"through a subresource", stamped, map[string]string{CreatedByAnnotation: "mallory"}, "status", stamped},
	}
	p := NewCreatedBy()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old, obj := cm(tt.old), cm(tt.obj)
			gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
			a := admission.NewAttributesRecord(obj, old, gvr.GroupVersion().WithKind("ConfigMap"), "default", "x",
				gvr, tt.sub, admission.Update, nil, false, &user.DefaultInfo{Name: "mallory"})
			if err := p.Admit(context.Background(), a, nil); err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(obj.Annotations, tt.want) {
				t.Errorf("annotations = %v, want %v", obj.Annotations, tt.want)
			}
			if !maps.Equal(old.Annotations, tt.old) {
				t.Errorf("old object changed: %v", old.Annotations)
			}
		})
	}

	// With no old object to look at, a sent value is dropped rather than trusted.
	obj := cm(map[string]string{CreatedByAnnotation: "mallory"})
	gvr := corev1.SchemeGroupVersion.WithResource("configmaps")
	a := admission.NewAttributesRecord(obj, nil, gvr.GroupVersion().WithKind("ConfigMap"), "default", "x",
		gvr, "", admission.Update, nil, false, &user.DefaultInfo{Name: "mallory"})
	if err := p.Admit(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.Annotations[CreatedByAnnotation]; ok {
		t.Errorf("annotations = %v, want created-by dropped", obj.Annotations)
	}
}

func TestPinnedImages(t *testing.T) {
	digest := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		images  []string
		wantErr string
	}{
		{[]string{"nginx:1.27"}, ""},
		{[]string{"registry.local:5000/team/app:v2"}, ""},
		{[]string{"nginx@sha256:" + digest}, ""},
		{[]string{"nginx:latest@sha256:" + digest}, ""},
		{[]string{"localhost:5000/app:v1"}, ""},
		{[]string{"[::1]:5000/app:v1"}, ""},
		{[]string{"nginx"}, `spec.containers[0].image: Forbidden: image "nginx" has no tag`},
		{[]string{"nginx:1.27", "busybox:latest"}, `spec.containers[1].image: Forbidden: image "busybox:latest" uses the floating :latest tag`},
		{[]string{"registry.local:5000/app"}, "has no tag"},
		{[]string{"localhost:5000/app"}, `image "localhost:5000/app" has no tag`},
		{[]string{"localhost:5000/app:latest"}, "floating :latest tag"},
		{[]string{"nginx@sha256:0123"}, `image "nginx@sha256:0123" is not a valid image reference: invalid digest`},
		{[]string{"Nginx:1.27"}, "must be lowercase"},
	}
	p := NewPinnedImages()
	for _, tt := range tests {
		t.Run(strings.Join(tt.images, ","), func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "x", Namespace: "default"}}
			for _, img := range tt.images {
				pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "c", Image: img})
			}
			err := p.Validate(context.Background(), attrs(pod, "pods", "", admission.Create, &user.DefaultInfo{Name: "bob"}), nil)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), PinnedImagesName) {
				t.Fatalf("error %q does not name the plugin", err)
			}
		})
	}
	cm := &corev1.ConfigMap{}
	if err := p.Validate(context.Background(), attrs(cm, "configmaps", "", admission.Create, nil), nil); err != nil {
		t.Fatalf("configmaps must pass: %v", err)
	}
}
