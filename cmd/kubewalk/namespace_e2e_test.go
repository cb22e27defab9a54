package main_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestKubectlDeleteNamespace: with the real kubectl against `kubewalk serve`, deleting a
// namespace returns once the namespace and its contents are gone (kubectl waits by default),
// and a namespace of the same name created again starts empty.
func TestKubectlDeleteNamespace(t *testing.T) {
	requireKubectl(t)
	s := startServe(t)
	steps := []struct {
		name    string
		args    []string
		want    string
		wantErr bool
		// poll retries the step (bounded) until it matches: the authorizer learns of a
		// deleted binding by watch.
		poll bool
	}{
		{"create ns", []string{"create", "namespace", "x"}, "namespace/x created", false, false},
		{"finalizer", []string{"get", "namespace", "x", "-o", "jsonpath={.spec.finalizers}"}, `["kubernetes"]`, false, false},
		{"create configmap", []string{"-n", "x", "create", "configmap", "c", "--from-literal=k=v"}, "configmap/c created", false, false},
		{"grant bob", []string{"-n", "x", "create", "rolebinding", "bob-edit", "--clusterrole=cluster-admin", "--user=bob"}, "created", false, false},
		{"delete ns", []string{"delete", "namespace", "x", "--timeout=60s"}, `namespace "x" deleted`, false, false},
		{"ns gone", []string{"get", "namespace", "x"}, `namespaces "x" not found`, true, false},
		{"recreate", []string{"create", "namespace", "x"}, "namespace/x created", false, false},
		{"configmap gone", []string{"-n", "x", "get", "configmap", "c"}, `configmaps "c" not found`, true, false},
		{"bob's grant gone", []string{"--context", "bob", "-n", "x", "get", "configmaps"}, "forbidden", true, true},
	}
	for _, st := range steps {
		var out string
		var err error
		match := func() bool {
			out, err = s.kubectl(t, "", st.args...)
			return (err != nil) == st.wantErr && strings.Contains(out, st.want)
		}
		ok := match()
		if !ok && st.poll {
			ok = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true,
				func(context.Context) (bool, error) { return match(), nil }) == nil
		}
		if !ok {
			t.Fatalf("%s: kubectl %s: err=%v (want error: %v), output %q does not contain %q",
				st.name, strings.Join(st.args, " "), err, st.wantErr, out, st.want)
		}
	}
}
