package main_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRequestsInTmux drives the tour's second act with the real binary in tmux and the real
// kubectl beside it: a request kubectl makes appears in the Requests view with its lane;
// `--break authorization:user=bob` holds `kubectl --context bob get cm` until the learner lets
// it go in the TUI, and kubectl then prints Forbidden; and the etcd explorer shows the
// configmap kubectl created, decoded.
func TestRequestsInTmux(t *testing.T) {
	requireKubectl(t)
	sb := newSandbox(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	m, rc, _ := startTmux(t, sb, 120, 40, nil, "tour", "--restart", "--kubeconfig", kc, "--log-file", sb.log,
		"--break", "authorization:user=bob")
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

	// (a) A request from kubectl, with its lane.
	if out, err := exec.Command("kubectl", "--kubeconfig", kc, "create", "configmap", "e2e-lane", "--from-literal=greeting=hello").CombinedOutput(); err != nil {
		t.Fatalf("kubectl create: %v\n%s", err, out)
	}
	command("requests")
	s := m.waitFor(`create\s+configmaps.*201`, 30*time.Second)
	for _, want := range []string{"Requests through the chain", "Lane · create configmaps", "authentication", "authorization",
		"kubewalk.io/CreatedBy", "storage"} {
		if !strings.Contains(s, want) {
			t.Errorf("Requests view lacks %q:\n%s", want, s)
		}
	}

	// (b) Bob's list is held at authorization until the learner lets it go (E: run to the
	// end), then RBAC refuses it and kubectl says so.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bob := exec.CommandContext(ctx, "kubectl", "--kubeconfig", kc, "--context", "bob", "get", "cm")
	var bobOut syncBuffer
	bob.Stdout, bob.Stderr = &bobOut, &bobOut
	if err := bob.Start(); err != nil {
		t.Fatal(err)
	}
	bobDone := make(chan error, 1)
	go func() { bobDone <- bob.Wait() }()
	s = m.waitFor(`held at authorization`, time.Minute)
	for _, want := range []string{"⏸ authz", "HELD", "list", "bob"} {
		if !strings.Contains(s, want) {
			t.Errorf("held request screen lacks %q:\n%s", want, s)
		}
	}
	select {
	case err := <-bobDone:
		t.Fatalf("bob's kubectl returned while held (%v):\n%s", err, bobOut.String())
	default:
	}
	m.run("send-keys", "-t", "kw", "E")
	var err error
	select {
	case err = <-bobDone:
	case <-time.After(time.Minute):
		t.Fatalf("bob's kubectl still running a minute after E; screen:\n%s", m.screen())
	}
	if err == nil || !strings.Contains(bobOut.String(), "Forbidden") || !strings.Contains(bobOut.String(), `User "bob" cannot list`) {
		t.Fatalf("bob's kubectl after E: %v\n%s", err, bobOut.String())
	}
	m.waitFor(`✗ authz`, 30*time.Second) // the chain bar marks where the request stopped

	// (c) From the create's lane, S opens its key in the etcd explorer, decoded.
	// One key at a time, each waited for: keys that arrive together reach the TUI as one.
	m.run("send-keys", "-t", "kw", "/")
	m.waitFor(`enter filter`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "-l", "e2e-lane")
	m.waitFor(`/e2e-lane`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "Enter")
	m.waitFor(`Requests · 1 shown`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "BTab") // focus the list
	m.waitFor(`↑/↓ select`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "g") // select the one request the filter shows
	m.waitFor(`Lane · create configmaps`, 30*time.Second)
	m.run("send-keys", "-t", "kw", "S")
	s = m.waitFor(`(?s)›\s+e2e-lane.*greeting: hello`, 30*time.Second) // the cursor on its key, its value decoded
	for _, want := range []string{"etcd: what the server stores under /registry/", "/registry/configmaps/default/e2e-lane",
		"kind: ConfigMap", "protobuf", "e2e-lane"} {
		if !strings.Contains(s, want) {
			t.Errorf("etcd explorer lacks %q:\n%s", want, s)
		}
	}

	m.run("send-keys", "-t", "kw", "q")
	if code := m.waitFile(rc, time.Minute); code != "0" {
		t.Fatalf("exit code %s; log:\n%s", code, readFile(sb.log))
	}
	sb.assertNothingLeft(t)
}
