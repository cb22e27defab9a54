package main_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExtensionControlInTmux: the learner stops the extension server with :extension stop in
// the real binary, and the real kubectl in a second terminal sees what a cluster shows when an
// extension's pod goes away — its APIService Available=False (MissingEndpoints) once the
// aggregator's availability controller notices, and callers answered 503 by the aggregator —
// while the Requests view shows that list's lane with the failed proxy hop. :extension start
// brings it back.
func TestExtensionControlInTmux(t *testing.T) {
	requireKubectl(t)
	sb := newSandbox(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	m, rc, _ := startTmux(t, sb, 120, 40, nil, "tour", "--restart", "--kubeconfig", kc, "--log-file", sb.log)
	m.waitFor(`Welcome to kubewalk`, time.Minute)
	m.run("send-keys", "-t", "kw", "Enter")
	m.waitFor(`space next`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "E")
	m.waitFor(`SERVING`, 2*time.Minute)
	command := func(line string) {
		m.run("send-keys", "-t", "kw", ":")
		m.waitFor(`(?m)^:`, 10*time.Second) // the command line is open
		m.run("send-keys", "-t", "kw", "-l", line)
		m.run("send-keys", "-t", "kw", "Enter")
	}
	const apiService = "v1alpha1.extension.learn.kubewalk.io"
	available := func() string {
		out, _ := exec.Command("kubectl", "--kubeconfig", kc, "get", "apiservice", apiService, "-o",
			`jsonpath={.status.conditions[?(@.type=="Available")].status} {.status.conditions[?(@.type=="Available")].reason}`).CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	waitAvailable := func(want string) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for !strings.HasPrefix(available(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("APIService %s not Available=%s after a minute (%q); screen:\n%s", apiService, want, available(), m.screen())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitAvailable("True")

	command("extension stop")
	m.waitFor(`extension stopped: Available=False \(MissingEndpoints\), callers get 503`, 90*time.Second)
	if got := available(); got != "False MissingEndpoints" {
		t.Errorf("kubectl after :extension stop: Available %q, want False MissingEndpoints", got)
	}
	out, err := exec.Command("kubectl", "--kubeconfig", kc, "get", "apiservices").CombinedOutput()
	if err != nil || !strings.Contains(string(out), apiService) || !strings.Contains(string(out), "False (MissingEndpoints)") {
		t.Errorf("kubectl get apiservices: %v\n%s", err, out)
	}
	// With the APIService unavailable, discovery lists the group stale, without resources, so
	// `kubectl get callers` would not find the resource type: ask for the path itself.
	out, err = exec.Command("kubectl", "--kubeconfig", kc, "get", "--raw", "/apis/extension.learn.kubewalk.io/v1alpha1/callers").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "ServiceUnavailable") {
		t.Errorf("kubectl get callers with the extension stopped: %v\n%s", err, out)
	}

	// The list's lane: the aggregator took it for the APIService, the proxy made no hop.
	command("requests")
	m.waitFor(`Requests through the chain`, 30*time.Second)
	m.run("send-keys", "-t", "kw", "/")
	m.waitFor(`enter filter`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "-l", "503")
	m.waitFor(`/503`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "Enter") // the one request the filter shows is selected
	s := m.waitFor(`Lane · list callers → 503`, 30*time.Second)
	for _, want := range []string{"aggregator", "proxied", "proxy", "failed", "STOPPED", "aggregator → proxy"} {
		if !strings.Contains(s, want) {
			t.Errorf("the callers list's lane lacks %q:\n%s", want, s)
		}
	}

	command("extension start")
	m.waitFor(`extension started at https://127\.0\.0\.1:\d+: Available=True`, 90*time.Second)
	if got := available(); got != "True Passed" {
		t.Errorf("kubectl after :extension start: Available %q", got)
	}
	if out, err := exec.Command("kubectl", "--kubeconfig", kc, "get", "callers").CombinedOutput(); err != nil {
		t.Errorf("kubectl get callers after :extension start: %v\n%s", err, out)
	}

	m.run("send-keys", "-t", "kw", "q")
	if code := m.waitFile(rc, time.Minute); code != "0" {
		t.Fatalf("exit code %s; log:\n%s", code, readFile(sb.log))
	}
	sb.assertNothingLeft(t)
}
