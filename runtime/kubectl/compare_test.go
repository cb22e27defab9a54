package kubectl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

// requireKubectl fails (never skips) when kubectl is missing: CI must run these tests.
func requireKubectl(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH; the comparison with the real binary needs it: %v", err)
	}
	return path
}

// ageRE matches a value of kubectl's AGE column (5s, 3m2s, 10m, 2h5m, 4d, ...): the two runs
// happen at different moments, the only legitimate difference between their tables.
var (
	ageRE     = regexp.MustCompile(`(?m)(^|\s)[0-9]+[smhdy]([0-9]+[smh])?(\s|$)`)
	ageHeader = regexp.MustCompile(`(?m)^NAME\s.*\sAGE(\s|$)`)
	spacesRE  = regexp.MustCompile(` {2,}`)
)

// normalise replaces AGE values in a table. The column's width follows its values ("9s",
// "2m3s"), so the padding of a table with an AGE column is collapsed too.
func normalise(s string) string {
	if !ageHeader.MatchString(s) {
		return s
	}
	s = ageRE.ReplaceAllString(s, "$1<age>$3")
	return spacesRE.ReplaceAllString(s, " ")
}

// TestOutputMatchesBinary runs the same commands in-process and with the kubectl binary on
// PATH (v1.32 on the dev machine and in CI; the library is v0.37.2) against the same server and
// compares output (stdout and stderr, in order) and exit code. The commands are those whose
// output format did not change between those versions.
func TestOutputMatchesBinary(t *testing.T) {
	bin := requireKubectl(t)
	r := newRunner(t)
	s := liveServer(t)
	cms := client(t, "admin").CoreV1().ConfigMaps("default")
	ctx := context.Background()

	existing := uniqueName("cmp-existing")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: existing, Labels: map[string]string{"app": "demo"}},
		Data:       map[string]string{"colour": "blue", "size": "3"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	single := uniqueName("cmp-single")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: single},
		Data:       map[string]string{"greeting": "hello"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	made := uniqueName("cmp-made")
	applied := uniqueName("cmp-applied")
	manifest := writeFile(t, "cm.yaml", fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  k: v\n", applied))
	remove := func(name string) func(t *testing.T) {
		return func(t *testing.T) {
			if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Fatal(err)
			}
		}
	}

	tests := []struct {
		line  string
		reset func(t *testing.T) // run before each side, so both start from the same state
	}{
		{line: "get ns"},
		{line: "get cm " + existing},
		{line: "get cm " + existing + " --show-labels"},
		{line: "get cm " + existing + " -o yaml"},
		{line: "get cm " + existing + " -o json"},
		{line: "get cm " + existing + " -o jsonpath={.data.colour}"},
		{line: "get cm -l app=demo -o name"},
		// One key: describe sorts Data keys since v0.33 (v1.32 iterates the map in random order).
		{line: "describe cm " + single},
		{line: "auth can-i create configmaps"},
		{line: "--context bob auth can-i create configmaps"},
		{line: "--context alice auth can-i list secrets -n kube-system"},
		{line: "--context alice auth can-i --list"},
		{line: "create configmap " + made + " --from-literal=a=b", reset: remove(made)},
		{line: "apply -f " + manifest, reset: remove(applied)},
		{line: "apply -f " + manifest}, // unchanged, both times
		// Not compared: `delete` changed between the versions; v0.37.2 prints
		// `configmap "x" deleted from default namespace`, v1.32 `configmap "x" deleted`
		// (TestRunCreateThenGet checks the new form).
		{line: "--context bob delete cm " + existing + " --dry-run=server"},
		{line: "--context bob get cm"},
		{line: "get cm no-such-configmap"},
		{line: "create cm Bad_Name"},
		{line: "get nosuchkind"},
		{line: "label cm " + existing + " app=other"}, // refused without --overwrite
	}
	for _, tc := range tests {
		args, err := kubectl.Split(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if tc.reset != nil {
			tc.reset(t)
		}
		var ours bytes.Buffer
		res, err := r.Run(ctx, args, &ours)
		if err != nil {
			t.Fatalf("in-process kubectl %s: %v", tc.line, err)
		}
		if tc.reset != nil {
			tc.reset(t)
		}
		theirs, code := runBinary(t, bin, s.Kubeconfig(), args)
		if normalise(ours.String()) != normalise(theirs) || res.ExitCode != code {
			t.Errorf("kubectl %s:\nin-process (code %d):\n%s\nbinary (code %d):\n%s", tc.line, res.ExitCode, ours.String(), code, theirs)
		}
	}
}

// runBinary runs the kubectl binary with a cache and home of its own (so no personal
// configuration or kuberc applies) and returns stdout and stderr as one stream, in order.
func runBinary(t *testing.T, bin, kubeconfig string, args []string) (string, int) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"--kubeconfig", kubeconfig, "--cache-dir", home + "/cache"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBERC=off", "KUBECONFIG=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), 0
	case errors.As(err, &exit):
		return out.String(), exit.ExitCode()
	}
	t.Fatalf("kubectl %v: %v", args, err)
	return "", 0
}

// TestNormalise: only AGE values (and a table's padding) are made equal.
func TestNormalise(t *testing.T) {
	a := "NAME   DATA   AGE   LABELS\nx      2      9s    app=demo\n"
	b := "NAME   DATA   AGE    LABELS\nx      2      2m3s   app=demo\n"
	if normalise(a) != normalise(b) {
		t.Errorf("AGE values differ after normalise:\n%q\n%q", normalise(a), normalise(b))
	}
	for _, other := range []string{
		"NAME   DATA   AGE   LABELS\nx      3      9s    app=demo\n",
		"NAME   DATA   AGE   LABELS\ny      2      9s    app=demo\n",
	} {
		if normalise(a) == normalise(other) {
			t.Errorf("normalise hid a real difference: %q", other)
		}
	}
	if yaml := "data:\n  size: 3s\n"; normalise(yaml) != yaml {
		t.Errorf("normalise changed output without an AGE column: %q", normalise(yaml))
	}
}
