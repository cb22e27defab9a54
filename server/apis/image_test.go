package apis

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestParseImageReference(t *testing.T) {
	sha256 := strings.Repeat("0123456789abcdef", 4)
	sha512 := strings.Repeat(sha256, 2)
	tests := []struct {
		image   string
		want    ImageReference
		wantErr string
	}{
		{image: "nginx", want: ImageReference{Name: "nginx"}},
		{image: "nginx:1.27", want: ImageReference{Name: "nginx", Tag: "1.27"}},
		{image: "nginx:latest", want: ImageReference{Name: "nginx", Tag: "latest"}},
		{image: "library/nginx:1", want: ImageReference{Name: "library/nginx", Tag: "1"}},
		{image: "docker.io/library/nginx:1", want: ImageReference{Name: "docker.io/library/nginx", Tag: "1"}},
		{image: "localhost/app", want: ImageReference{Name: "localhost/app"}},
		{image: "localhost:5000/app", want: ImageReference{Name: "localhost:5000/app"}},
		{image: "localhost:5000/app:v2", want: ImageReference{Name: "localhost:5000/app", Tag: "v2"}},
		{image: "registry.local:5000/team/app:v2", want: ImageReference{Name: "registry.local:5000/team/app", Tag: "v2"}},
		{image: "127.0.0.1:5000/app", want: ImageReference{Name: "127.0.0.1:5000/app"}},
		{image: "[::1]:5000/app:v1", want: ImageReference{Name: "[::1]:5000/app", Tag: "v1"}},
		{image: "Registry.Example.com/app", want: ImageReference{Name: "Registry.Example.com/app"}},
		{image: "nginx@sha256:" + sha256, want: ImageReference{Name: "nginx", Digest: "sha256:" + sha256}},
		{image: "nginx:1.27@sha256:" + sha256, want: ImageReference{Name: "nginx", Tag: "1.27", Digest: "sha256:" + sha256}},
		{image: "localhost:5000/app@sha512:" + sha512, want: ImageReference{Name: "localhost:5000/app", Digest: "sha512:" + sha512}},
		{image: "my_app", want: ImageReference{Name: "my_app"}},
		{image: "my__app", want: ImageReference{Name: "my__app"}},
		{image: "my--app.v2", want: ImageReference{Name: "my--app.v2"}},
		{image: "nginx:" + strings.Repeat("t", 128), want: ImageReference{Name: "nginx", Tag: strings.Repeat("t", 128)}},
		{image: "a/" + strings.Repeat("b", 253), want: ImageReference{Name: "a/" + strings.Repeat("b", 253)}},
		// "localhost" alone is a repository; what follows its colon is a tag.
		{image: "localhost:5000", want: ImageReference{Name: "localhost", Tag: "5000"}},

		{image: "", wantErr: "empty"},
		{image: sha256, wantErr: "image ID"},
		{image: "Nginx", wantErr: "must be lowercase"},
		{image: "team/Nginx:1", wantErr: "must be lowercase"},
		{image: "nginx:", wantErr: "invalid tag"},
		{image: "nginx:-rc", wantErr: "invalid tag"},
		{image: "nginx:" + strings.Repeat("t", 129), wantErr: "invalid tag"},
		{image: "nginx:1.2:3", wantErr: "invalid repository name"},
		{image: "nginx@sha256:0123", wantErr: "64 lowercase hex digits"},
		{image: "nginx@sha256:" + strings.ToUpper(sha256), wantErr: "64 lowercase hex digits"},
		{image: "nginx@md5:" + sha256[:32], wantErr: "unsupported algorithm"},
		{image: "nginx@" + sha256, wantErr: "want algorithm:hex"},
		{image: "nginx@", wantErr: "want algorithm:hex"},
		{image: "a//b", wantErr: "invalid repository name"},
		{image: "a/b/", wantErr: "invalid repository name"},
		{image: "my___app", wantErr: "invalid repository name"},
		{image: "-app", wantErr: "invalid repository name"},
		{image: "localhost:port/app", wantErr: "invalid registry host"},
		{image: "-bad.example.com/app", wantErr: "invalid registry host"},
		{image: "a/" + strings.Repeat("b", 254), wantErr: "longer than 255"},
		{image: " nginx", wantErr: "invalid repository name"},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			got, err := ParseImageReference(tt.image)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseImageReference(%q) = %+v, %v; want error containing %q", tt.image, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseImageReference(%q) = %+v, %v; want %+v", tt.image, got, err, tt.want)
			}
		})
	}
}

// TestImagePullPolicyDefault: the default pull policy is Always exactly when the tag is
// "latest", written or implied, as upstream's SetDefaults_Container decides.
func TestImagePullPolicyDefault(t *testing.T) {
	digest := "@sha256:" + strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"localhost:5000/app", corev1.PullAlways},
		{"localhost:5000/app:latest", corev1.PullAlways},
		{"nginx:latest" + digest, corev1.PullAlways},
		{"nginx:1.27", corev1.PullIfNotPresent},
		{"localhost:5000/app:v1", corev1.PullIfNotPresent},
		{"nginx" + digest, corev1.PullIfNotPresent},
		{"nginx:1.27" + digest, corev1.PullIfNotPresent},
		// Images that do not parse: upstream ignores the error and gets no tag.
		{"Nginx", corev1.PullIfNotPresent},
		{"nginx@sha256:0123", corev1.PullIfNotPresent},
		{"", corev1.PullIfNotPresent},
	}
	for _, tt := range tests {
		t.Run(tt.image, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{
				Containers:     []corev1.Container{{Name: "c", Image: tt.image}},
				InitContainers: []corev1.Container{{Name: "i", Image: tt.image}},
			}}
			defaultPod(pod)
			if got := pod.Spec.Containers[0].ImagePullPolicy; got != tt.want {
				t.Errorf("container pull policy = %s, want %s", got, tt.want)
			}
			if got := pod.Spec.InitContainers[0].ImagePullPolicy; got != tt.want {
				t.Errorf("init container pull policy = %s, want %s", got, tt.want)
			}
		})
	}
	set := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", ImagePullPolicy: corev1.PullNever}}}}
	defaultPod(set)
	if got := set.Spec.Containers[0].ImagePullPolicy; got != corev1.PullNever {
		t.Errorf("a set pull policy was changed to %s", got)
	}
}
