package main_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server"
)

// TestPlainTranscript runs the default command without a terminal: it must walk every
// checkpoint, exercise the served server and exit 0 without waiting for input — and, since
// nothing can keep that server running, print no kubectl instructions for it, and record no
// progress.
func TestPlainTranscript(t *testing.T) {
	sb := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--log-file", sb.log)
	cmd.Env = sb.env()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd.Stdin = devnull
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("exit: %v\n%s", err, out)
	}
	text := string(out)
	// Lines longer than the transcript's 100 columns are folded at spaces: read it unfolded.
	flat := strings.Join(strings.Fields(text), " ")
	total := len(server.Checkpoints())
	for i, cp := range server.Checkpoints() {
		header := fmt.Sprintf("[%d/%d] %s · %s — %s", i+1, total, cp.Phase, cp.Name, cp.Title)
		if !strings.Contains(flat, header) {
			t.Errorf("transcript lacks %q", header)
		}
	}
	for _, want := range []string{"▶", "source: server/", "state (storage):", "GET /healthz", "→ 200 OK",
		`User "bob" cannot list resource "configmaps"`, "kubewalk.io/PinnedImages",
		// each demo request's lane follows its outcome
		"■ admission/validating/kubewalk.io/PinnedImages", "→ storage", "■ stopped here", "it stops now",
		// each lesson's exercises follow its last step
		"Exercises of this lesson", "○ Let bob read configmaps in default, and nothing more:"} {
		if !strings.Contains(text, want) {
			t.Errorf("transcript lacks %q", want)
		}
	}
	// The closing remark is prose, wrapped as prose: folding a hard-wrapped line wider than
	// the transcript would hang its tail under an indent.
	if _, tail, ok := strings.Cut(text, "stdin is not a terminal"); ok {
		for _, l := range strings.Split(strings.TrimRight(tail, "\n"), "\n") {
			if strings.HasPrefix(l, " ") || len([]rune(l)) > 100 {
				t.Errorf("closing remark's line %q is folded or wider than the transcript", l)
			}
		}
	}
	for _, unwanted := range []string{"export KUBECONFIG", "Press Enter"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("transcript has %q, for a server that stops as it exits", unwanted)
		}
	}
	// Nobody stepped through it: it records nothing, so no later run offers to resume there.
	if _, err := os.Stat(filepath.Join(sb.state, "kubewalk", "progress.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a run without a terminal saved progress (stat: %v)", err)
	}
	sb.assertNothingLeft(t)
}

// tmux drives the real binary in a private tmux server.
type tmux struct {
	t      *testing.T
	socket string
}

func (m tmux) run(args ...string) string {
	m.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", m.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		m.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (m tmux) screen() string { return m.run("capture-pane", "-p", "-t", "kw") }

// history is the screen with the scrollback above it.
func (m tmux) history() string { return m.run("capture-pane", "-p", "-S", "-", "-t", "kw") }

// format expands a tmux format (#{alternate_on}, ...) for the pane.
func (m tmux) format(f string) string {
	return strings.TrimSpace(m.run("display-message", "-p", "-t", "kw", f))
}

// startTmux runs kubewalk with args in sb, in a w×h tmux window with TERM=xterm-256color. When
// kubewalk exits, the shell writes its exit code to rc and the terminal's settings (stty -a) to
// stty. The shell traps SIGINT (a Ctrl-C in cooked mode reaches its whole process group) so that
// it survives to do that; kubewalk still starts with SIGINT's default action. The tmux server is
// killed at the end of the test.
func startTmux(t *testing.T, sb *sandbox, w, h int, env []string, args ...string) (m tmux, rc, stty string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is required for this end-to-end test: %v", err)
	}
	m = tmux{t: t, socket: fmt.Sprintf("kubewalk-e2e-%d-%s", os.Getpid(), sb.marker)}
	rc, stty = filepath.Join(sb.root, "rc"), filepath.Join(sb.root, "stty")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	script := fmt.Sprintf("trap : INT; cd %s; %sTERM=xterm-256color %s %s; echo $? > %s; stty -a > %s; sleep 600",
		shellQuote(sb.root), sb.shellEnv(env...), shellQuote(binary), strings.Join(quoted, " "), shellQuote(rc), shellQuote(stty))
	m.run("new-session", "-d", "-s", "kw", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
	return m, rc, stty
}

// waitFile waits, within a bound, until path holds a complete line and returns it trimmed.
func (m tmux) waitFile(path string, within time.Duration) string {
	m.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("%s not written within %s; screen:\n%s", path, within, m.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitFor polls the screen until re matches, bounded in time.
func (m tmux) waitFor(re string, within time.Duration) string {
	m.t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.Now().Add(within)
	for {
		s := m.screen()
		if r.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			m.t.Fatalf("screen never matched %q; last screen:\n%s", re, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTUIInTmux steps the full-screen walkthrough through all seven phases in tmux, checks the
// panes show live state, runs kubectl against the served server while the UI is open, resizes
// the window, quits, and checks the exit code, the port and the temp dir.
func TestTUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is required for this end-to-end test: %v", err)
	}
	requireKubectl(t)
	// A sandbox of its own: server tests running in parallel have their own kubewalk-* dirs.
	sb := newSandbox(t)
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	m, rc, _ := startTmux(t, sb, 120, 40, nil, "tour", "--restart", "--kubeconfig", kc, "--log-file", sb.log)
	m.waitFor(`config/scheme`, time.Minute)
	// A first run opens on the welcome; any key dismisses it without stepping.
	m.waitFor(`Welcome to kubewalk`, 10*time.Second)
	m.run("send-keys", "-t", "kw", "Enter")
	m.waitFor(`space next`, 10*time.Second)
	// Step through every phase with "p" (next phase) and check a live detail per phase.
	checks := map[string]string{
		"authn":     `authn/x509`,
		"authz":     `authz/informers`,
		"admission": `admission/plugins`,
		"storage":   `storage/etcd`,
		"install":   `install/apiextensions`,
		"serve":     `serve/prepare-run`,
	}
	for _, p := range []string{"authn", "authz", "admission", "storage", "install", "serve"} {
		m.run("send-keys", "-t", "kw", "p")
		m.waitFor(checks[p], 30*time.Second)
	}
	m.run("send-keys", "-t", "kw", "E")
	m.waitFor(`SERVING`, time.Minute)
	if _, err := os.Stat(kc); err != nil {
		t.Fatalf("kubeconfig not written: %v", err)
	}
	out, err := exec.Command("kubectl", "--kubeconfig", kc, "create", "configmap", "from-tmux", "--from-literal=a=b").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl while the TUI runs: %v\n%s", err, out)
	}
	out, _ = exec.Command("kubectl", "--kubeconfig", kc, "--context", "bob", "get", "cm").CombinedOutput()
	if !strings.Contains(string(out), "Forbidden") {
		t.Fatalf("bob should be forbidden:\n%s", out)
	}
	m.run("resize-window", "-t", "kw", "-x", "90", "-y", "30")
	m.waitFor(`SERVING`, 10*time.Second)
	m.run("resize-window", "-t", "kw", "-x", "60", "-y", "20")
	m.waitFor(`needs at least 80×24`, 10*time.Second)
	m.run("resize-window", "-t", "kw", "-x", "120", "-y", "40")
	m.waitFor(`SERVING`, 10*time.Second)
	addr := serverAddr(t, kc)
	m.run("send-keys", "-t", "kw", "q")
	if code := m.waitFile(rc, 30*time.Second); code != "0" {
		t.Fatalf("exit code %s; log:\n%s", code, readFile(sb.log))
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("port %s still open after quit", addr)
	}
	// The welcome is remembered: the next run does not show it.
	if b, err := os.ReadFile(filepath.Join(sb.state, "kubewalk", "progress.json")); err != nil || !strings.Contains(string(b), `"welcomeSeen": true`) {
		t.Errorf("progress file does not record the welcome as seen (%v):\n%s", err, b)
	}
	sb.assertNothingLeft(t)
}

// serverAddr reads host:port from the kubeconfig the server wrote.
func serverAddr(t *testing.T, kc string) string {
	t.Helper()
	b, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`server: https://(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no server in kubeconfig:\n%s", b)
	}
	return string(m[1])
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
