package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroupsKubectl drives the API groups issue 9 added with the real kubectl: kubewalk's own
// learn.kubewalk.io (created in v1alpha1 from a file, read back in v1, explained, applied with
// server-side field validation, its status subresource patched, refused with a 422), apps/v1
// deployments (create deployment, scale, get deploy) and the pod subresources a kubelet would
// serve (exec, logs), whose messages say why kubewalk cannot.
func TestGroupsKubectl(t *testing.T) {
	requireKubectl(t)
	s := startServe(t)

	lessonFile := filepath.Join(t.TempDir(), "lesson.yaml")
	if err := os.WriteFile(lessonFile, []byte(`apiVersion: learn.kubewalk.io/v1alpha1
kind: Lesson
metadata:
  name: hello
spec:
  title: Hello, API group
  owner: alice
  steps:
  - name: types
    title: Define the types
  - name: register
`), 0o600); err != nil {
		t.Fatal(err)
	}
	applied := `apiVersion: learn.kubewalk.io/v1
kind: Lesson
metadata:
  name: applied
spec:
  title: Applied
  author: bob
  steps:
  - name: one
`
	mismatch := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: mismatch
spec:
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.27
`
	steps := []struct {
		name    string
		stdin   string
		args    []string
		want    []string // substrings of the output
		notWant []string
		wantErr bool
	}{
		{"create v1alpha1 from a file", "", []string{"create", "-f", lessonFile}, []string{"lesson.learn.kubewalk.io/hello created"}, nil, false},
		{"get in v1", "", []string{"get", "lesson", "hello", "-o", "yaml"},
			[]string{"apiVersion: learn.kubewalk.io/v1\n", "author: alice", "level: Beginner", "kubewalk.io/created-by: kubewalk-admin"}, []string{"owner:"}, false},
		{"get in v1alpha1", "", []string{"get", "lessons.v1alpha1.learn.kubewalk.io", "hello", "-o", "jsonpath={.apiVersion} {.spec.owner}"},
			[]string{"learn.kubewalk.io/v1alpha1 alice"}, nil, false},
		{"get table", "", []string{"get", "lsn"}, []string{"NAME", "TITLE", "AUTHOR", "PROGRESS", "hello", "Hello, API group", "alice", "0/2"}, nil, false},
		{"explain", "", []string{"explain", "lesson.spec"},
			[]string{"GROUP:      learn.kubewalk.io", "VERSION:    v1", "FIELD: spec <LessonSpec>", "author\t<string>", "steps\t<[]LessonStep> -required-"}, nil, false},
		{"explain v1alpha1", "", []string{"explain", "lesson.spec", "--api-version=learn.kubewalk.io/v1alpha1"},
			[]string{"VERSION:    v1alpha1", "owner\t<string>"}, []string{"author\t"}, false},
		{"apply", applied, []string{"apply", "-f", "-"}, []string{"lesson.learn.kubewalk.io/applied created"}, nil, false},
		{"apply unknown field", strings.Replace(applied, "  author: bob\n", "  author: bob\n  colour: red\n", 1), []string{"apply", "-f", "-"},
			[]string{`unknown field "spec.colour"`}, nil, true},
		{"apply --server-side unknown field", strings.Replace(applied, "  author: bob\n", "  author: bob\n  colour: red\n", 1),
			[]string{"apply", "--server-side", "-f", "-"}, []string{".spec.colour: field not declared in schema"}, nil, true},
		{"apply --server-side", strings.Replace(applied, "Applied", "Applied again", 1), []string{"apply", "--server-side", "--force-conflicts", "-f", "-"},
			[]string{"lesson.learn.kubewalk.io/applied serverside-applied"}, nil, false},
		{"patch status", "", []string{"patch", "lesson", "hello", "--subresource=status", "--type=merge",
			"-p", `{"status":{"completedSteps":1},"spec":{"title":"ignored"}}`}, []string{"lesson.learn.kubewalk.io/hello patched"}, nil, false},
		{"status kept apart", "", []string{"get", "lsn", "hello"}, []string{"Hello, API group", "1/2"}, []string{"ignored"}, false},
		{"status 422", "", []string{"patch", "lesson", "hello", "--subresource=status", "--type=merge", "-p", `{"status":{"completedSteps":5}}`},
			[]string{`The Lesson "hello" is invalid`, "status.completedSteps: Invalid value: 5"}, nil, true},
		{"422", "apiVersion: learn.kubewalk.io/v1\nkind: Lesson\nmetadata:\n  name: empty\nspec:\n  title: Empty\n  steps: []\n",
			[]string{"apply", "-f", "-"}, []string{`The Lesson "empty" is invalid`, "spec.steps: Required value: a lesson has at least one step"}, nil, true},

		{"create deployment", "", []string{"create", "deployment", "web", "--image=nginx:1.27"}, []string{"deployment.apps/web created"}, nil, false},
		{"scale", "", []string{"scale", "deployment", "web", "--replicas=3"}, []string{"deployment.apps/web scaled"}, nil, false},
		{"get deploy", "", []string{"get", "deploy"}, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "web", "0/3"}, nil, false},
		{"replicas", "", []string{"get", "deploy", "web", "-o", "jsonpath={.spec.replicas} {.spec.strategy.rollingUpdate.maxSurge}"},
			[]string{"3 25%"}, nil, false},
		{"scale subresource", "", []string{"get", "deploy", "web", "--subresource=scale", "-o", "jsonpath={.apiVersion} {.kind} {.status.selector}"},
			[]string{"autoscaling/v1 Scale app=web"}, nil, false},
		{"replicas 422", "", []string{"create", "deployment", "bad", "--image=nginx:1.27", "--replicas=-1"},
			[]string{`Deployment.apps "bad" is invalid`, "spec.replicas: Invalid value: -1: must be greater than or equal to 0"}, nil, true},
		{"deployment 422", mismatch, []string{"apply", "-f", "-"},
			[]string{`The Deployment "mismatch" is invalid`, "spec.template.metadata.labels: Invalid value", "`selector` does not match template `labels`"}, nil, true},
		{"no pods made", "", []string{"get", "pods", "-l", "app=web"}, []string{"No resources found"}, nil, false},

		{"run pod", "", []string{"run", "p", "--image=nginx:1.27"}, []string{"pod/p created"}, nil, false},
		{"exec", "", []string{"exec", "p", "--", "ls"},
			[]string{"(NotFound)", "pods/exec is not served here: kubewalk runs no kubelet", "k8s.io/kubernetes v1.37.2 pkg/registry/core/pod/rest/subresources.go"}, nil, true},
		{"logs", "", []string{"logs", "p"},
			[]string{"(NotFound)", "pods/log is not served here: kubewalk runs no kubelet", "k8s.io/kubernetes v1.37.2 pkg/registry/core/pod/rest/log.go"}, nil, true},
		{"logs of a missing pod", "", []string{"logs", "nope"}, []string{`pods "nope" not found`}, []string{"kubelet", "not served"}, true},
		{"exec in a missing pod", "", []string{"exec", "nope", "--", "ls"}, []string{`pods "nope" not found`}, []string{"kubelet", "not served"}, true},
		{"can-i exec admin", "", []string{"auth", "can-i", "create", "pods/exec"}, []string{"yes"}, nil, false},
		{"can-i exec alice", "", []string{"--context", "alice", "auth", "can-i", "create", "pods", "--subresource=exec"}, []string{"no"}, nil, true},
		{"api-resources", "", []string{"api-resources"},
			[]string{"lessons", "lsn", "learn.kubewalk.io/v1", "deployments", "deploy", "apps/v1"}, nil, false},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			out, err := s.kubectl(t, st.stdin, st.args...)
			if (err != nil) != st.wantErr {
				t.Fatalf("kubectl %s: err = %v, want error %v\n%s", strings.Join(st.args, " "), err, st.wantErr, out)
			}
			for _, w := range st.want {
				if !strings.Contains(out, w) {
					t.Fatalf("kubectl %s: output lacks %q:\n%s", strings.Join(st.args, " "), w, out)
				}
			}
			for _, w := range st.notWant {
				if strings.Contains(out, w) {
					t.Fatalf("kubectl %s: output has %q:\n%s", strings.Join(st.args, " "), w, out)
				}
			}
		})
	}
}
