package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConfinedKubectlInTmux: the tour as class ssh runs it for a student
// (--kubectl-no-local-files), in tmux with the real binary: the editor path a student once got a
// shell through is refused on screen, and a manifest goes in through `-f -`'s text box — pasted
// as a terminal pastes, run with ctrl+d — and is on the server for the real kubectl outside.
func TestConfinedKubectlInTmux(t *testing.T) {
	requireKubectl(t)
	sb := newSandbox(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	m, rc, _ := startTmux(t, sb, 120, 40, nil, "tour", "--restart", "--kubectl-no-local-files", "--kubeconfig", kc, "--log-file", sb.log)
	m.waitFor(`Welcome to kubewalk`, time.Minute)
	m.run("send-keys", "-t", "kw", "Enter")
	m.waitFor(`space next`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "E")
	m.waitFor(`SERVING`, time.Minute)

	m.run("send-keys", "-t", "kw", ":k create cm ea --from-literal=a=b --save-config", "Enter")
	m.waitFor(`configmap/ea created`, 30*time.Second)
	m.run("send-keys", "-t", "kw", ":k apply edit-last-applied cm/ea", "Enter")
	m.waitFor(`(?s)not run: .*edit-last-applied.* does not run here: it.*starts an editor`, 30*time.Second)
	m.run("send-keys", "-t", "kw", ":k create -f /etc/passwd", "Enter")
	m.waitFor(`(?s)not run: -f /etc/passwd reads a file`, 30*time.Second)
	m.waitFor(`not run: see the kubectl pane for why\s`, 5*time.Second)

	m.run("send-keys", "-t", "kw", ":k apply -f -", "Enter")
	m.waitFor(`ctrl\+d run it`, 10*time.Second)
	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-the-box\n  namespace: default\ndata:\n  typed: yes-q\n"
	m.run("set-buffer", "-b", "manifest", manifest)
	m.run("paste-buffer", "-p", "-b", "manifest", "-t", "kw") // bracketed, as a terminal pastes
	m.waitFor(`name: from-the-box`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "C-d")
	m.waitFor(`configmap/from-the-box created`, 30*time.Second)
	out, err := exec.Command("kubectl", "--kubeconfig", kc, "get", "cm", "from-the-box", "-o", "jsonpath={.data.typed}").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "yes-q" {
		t.Fatalf("the real kubectl reads %q, %v", out, err)
	}
	m.run("send-keys", "-t", "kw", "q")
	if code := m.waitFile(rc, 30*time.Second); code != "0" {
		t.Fatalf("exit code %s; log:\n%s", code, readFile(sb.log))
	}
	if _, err := os.Stat(kc); err == nil {
		t.Error("the kubeconfig is left after quitting")
	}
}
