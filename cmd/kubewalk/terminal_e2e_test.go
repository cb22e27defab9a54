package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
)

// assertTerminalRestored checks the pane is back to normal: main screen, cursor shown, no mouse
// reporting, and the terminal in canonical mode with echo (stty -a, run after kubewalk exited).
func assertTerminalRestored(t *testing.T, m tmux, stty string) {
	t.Helper()
	if got := m.format("alternate screen #{alternate_on}, cursor #{cursor_flag}, mouse #{mouse_any_flag}"); got != "alternate screen 0, cursor 1, mouse 0" {
		t.Errorf("terminal not restored: %s", got)
	}
	settings := readFile(stty)
	for _, mode := range []string{"icanon", "echo", "isig"} {
		if !regexp.MustCompile(`(^|\s)` + mode + `(\s|$)`).MatchString(settings) {
			t.Errorf("terminal left without %s:\n%s", mode, settings)
		}
	}
}

// TestCrashRestoresTerminal panics in a fresh goroutine (a test hook) while the full-screen UI
// runs: a panic nothing in kubewalk can recover. The terminal must come back from raw mode and
// the alternate screen, and the learner must be told that kubewalk crashed and where the log is.
func TestCrashRestoresTerminal(t *testing.T) {
	sb := newSandbox(t)
	trigger := filepath.Join(sb.root, "panic-now")
	m, rc, stty := startTmux(t, sb, 120, 40, []string{"KUBEWALK_E2E_PANIC_FILE=" + trigger},
		"tour", "--restart", "--log-file", sb.log)
	m.waitFor(`config/scheme`, time.Minute)
	if got := m.format("#{alternate_on}"); got != "1" {
		t.Fatalf("the UI is not on the alternate screen (alternate_on=%s): the test proves nothing", got)
	}
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if code := m.waitFile(rc, time.Minute); code != "2" {
		t.Errorf("exit code %s, want 2 (a Go panic)", code)
	}
	m.waitFile(stty, 10*time.Second)
	screen := m.waitFor(`kubewalk crashed \(exit status 2\); the log is at`, 10*time.Second)
	flat := strings.Join(strings.Fields(screen), "")
	for _, want := range []string{sb.log, "panic:kubewalke2e:deliberatepanicinafreshgoroutine"} {
		if !strings.Contains(flat, strings.Join(strings.Fields(want), "")) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	assertTerminalRestored(t, m, stty)
	if log := readFile(sb.log); !strings.Contains(log, "goroutine") || !strings.Contains(log, "deliberate panic") {
		t.Errorf("the log lacks the stack trace:\n%s", log)
	}
	sb.assertNothingLeft(t)
}

// TestTUIInterrupt: Ctrl-C in the full-screen UI ends the walkthrough with exit code 130 (q
// exits 0, see TestTUIInTmux) and cleans up; when the shutdown hangs (a test hook), a second
// Ctrl-C ends the process at once and says so.
func TestTUIInterrupt(t *testing.T) {
	tests := []struct {
		name string
		hang bool
		want string // on the screen after the exit
	}{
		{"ctrl-c exits 130", false, "kubewalk: interrupted; everything was shut down"},
		{"second ctrl-c ends a hung shutdown", true, "kubewalk: interrupted again: exiting now"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			var env []string
			if tt.hang {
				env = append(env, "KUBEWALK_E2E_HANG_SHUTDOWN=1")
			}
			m, rc, stty := startTmux(t, sb, 120, 40, env, "tour", "--restart", "--log-file", sb.log)
			m.waitFor(`config/scheme`, time.Minute)
			m.run("send-keys", "-t", "kw", "C-c")
			if tt.hang {
				m.waitFor(`Ctrl-C again exits at once`, 30*time.Second)
				m.run("send-keys", "-t", "kw", "C-c")
			}
			if code := m.waitFile(rc, 30*time.Second); code != "130" {
				t.Errorf("exit code %s, want 130; screen:\n%s", code, m.screen())
			}
			m.waitFile(stty, 10*time.Second)
			m.waitFor(regexp.QuoteMeta(tt.want), 10*time.Second)
			assertTerminalRestored(t, m, stty)
			if !tt.hang {
				sb.assertNothingLeft(t)
			}
		})
	}
}

// TestPromptsHonourCtrlC: at the plain-mode step prompt and at the resume prompt (plain and
// full-screen), one Ctrl-C ends kubewalk with 130, without an Enter.
func TestPromptsHonourCtrlC(t *testing.T) {
	tests := []struct {
		name   string
		resume bool // saved progress beyond the first step: the resume prompt comes first
		args   []string
		prompt string
	}{
		{"plain step prompt", false, []string{"--plain", "--restart"}, `\[Enter\] next step`},
		{"plain resume prompt", true, []string{"--plain"}, `Run there without pausing\? \[Y/n\]`},
		{"tui resume prompt", true, nil, `Run there without pausing\? \[Y/n\]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			if tt.resume {
				saveProgress(t, sb)
			}
			m, rc, _ := startTmux(t, sb, 200, 40, nil, append(tt.args, "--log-file", sb.log)...)
			m.waitFor(tt.prompt, time.Minute)
			m.run("send-keys", "-t", "kw", "C-c")
			if code := m.waitFile(rc, 30*time.Second); code != "130" {
				t.Errorf("exit code %s, want 130; screen:\n%s", code, m.screen())
			}
			sb.assertNothingLeft(t)
		})
	}
}

// saveProgress records the second lesson's first step as reached, as an earlier run would.
func saveProgress(t *testing.T, sb *sandbox) {
	t.Helper()
	ls, err := lessons.Load(content.FS, "en")
	if err != nil || len(ls) < 2 {
		t.Fatalf("lessons: %d, %v", len(ls), err)
	}
	path, err := lessons.ProgressPath(func(k string) string {
		if k == "XDG_STATE_HOME" {
			return sb.state
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	p := &lessons.Progress{}
	p.Record(ls[1], ls[1].Steps[0].ID, time.Now())
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
}

// TestPlainAllKeepsServing answers "a" at the first plain-mode prompt: the walk runs to the end,
// and the server it says is serving must keep serving — kubectl works with the kubeconfig it
// printed — until Enter; then it stops and its kubeconfig goes.
func TestPlainAllKeepsServing(t *testing.T) {
	requireKubectl(t)
	sb := newSandbox(t)
	m, rc, _ := startTmux(t, sb, 250, 50, nil, "--plain", "--restart", "--log-file", sb.log)
	m.waitFor(`\[Enter\] next step`, time.Minute)
	m.run("send-keys", "-t", "kw", "a", "Enter")
	m.waitFor(`Press Enter \(or Ctrl-C\) to stop it`, 2*time.Minute)
	match := regexp.MustCompile(`export KUBECONFIG=(\S+);`).FindStringSubmatch(m.history())
	if match == nil {
		t.Fatalf("no export line:\n%s", m.history())
	}
	kc := match[1]
	out, err := exec.Command("kubectl", "--kubeconfig", kc, "get", "ns", "default", "-o", "name").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "namespace/default") {
		t.Fatalf("kubectl with the printed kubeconfig while kubewalk waits: %v\n%s", err, out)
	}
	m.run("send-keys", "-t", "kw", "Enter")
	if code := m.waitFile(rc, time.Minute); code != "0" {
		t.Errorf("exit code %s, want 0; screen:\n%s", code, m.screen())
	}
	if _, err := os.Stat(kc); err == nil {
		t.Errorf("kubeconfig %s still there after the server stopped", kc)
	}
	sb.assertNothingLeft(t)
}

// TestHangupInTmux closes the terminal (kills the tmux server) under a ready `kubewalk serve`:
// the SIGHUP must shut it down like Ctrl-C, leaving neither the temp dir with etcd's
// preallocated WAL nor the kubeconfig.
func TestHangupInTmux(t *testing.T) {
	sb := newSandbox(t)
	m := tmux{t: t, socket: fmt.Sprintf("kubewalk-e2e-%d-%s", os.Getpid(), sb.marker)}
	pidFile := filepath.Join(sb.root, "pid")
	port := freePort(t)
	script := fmt.Sprintf("echo $$ > %s; exec env %s%s serve --secure-port %s --log-file %s",
		shellQuote(pidFile), sb.shellEnv(), shellQuote(binary), port, shellQuote(sb.log))
	m.run("new-session", "-d", "-s", "kw", "-x", "200", "-y", "40", "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
	screen := m.waitFor(`Press Ctrl-C to stop`, 2*time.Minute)
	kc := kubeconfigPath(t, screen)
	pid, err := strconv.Atoi(m.waitFile(pidFile, 10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	m.run("kill-server")
	deadline := time.Now().Add(time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("kubewalk (pid %d) still running a minute after its terminal closed", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := os.Stat(kc); err == nil {
		t.Errorf("kubeconfig %s left behind", kc)
	}
	sb.assertNothingLeft(t)
	assertPortClosed(t, port)
}

// alive reports whether pid runs and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

// TestPlainFitsTerminal runs the plain transcript in an 80-column terminal, in English and in
// Chinese: every line fits the terminal, so the terminal never splits a word; only a word
// wider than the whole line (none is expected) may overflow. tmux joins the lines it wrapped
// (capture-pane -J), so a line wider than 80 here is one the terminal had to wrap.
func TestPlainFitsTerminal(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			sb := newSandbox(t)
			m, rc, _ := startTmux(t, sb, 80, 24, nil, "--plain", "--restart", "--lang", lang, "--log-file", sb.log)
			m.run("set-option", "-t", "kw", "history-limit", "100000")
			m.waitFor(`\[Enter\]`, time.Minute)
			m.run("send-keys", "-t", "kw", "a", "Enter")
			m.waitFor(`\(or Ctrl-C\) to stop it|（或 Ctrl-C）停止`, 2*time.Minute)
			joined := m.run("capture-pane", "-p", "-J", "-S", "-", "-t", "kw")
			lines, over := 0, 0
			for _, l := range strings.Split(joined, "\n") {
				l = strings.TrimRight(l, " ")
				lines++
				if ansi.StringWidth(l) <= 80 {
					continue
				}
				longest := 0
				for _, w := range strings.Fields(l) {
					longest = max(longest, ansi.StringWidth(w))
				}
				if longest < 60 {
					over++
					if over <= 5 {
						t.Errorf("a line of %d cells the terminal had to wrap:\n%s", ansi.StringWidth(l), l)
					}
				}
			}
			if over > 5 {
				t.Errorf("… and %d more", over-5)
			}
			if lines < 500 {
				t.Errorf("only %d lines: the transcript did not run through", lines)
			}
			m.run("send-keys", "-t", "kw", "Enter")
			if code := m.waitFile(rc, time.Minute); code != "0" {
				t.Errorf("exit code %s, want 0", code)
			}
			sb.assertNothingLeft(t)
		})
	}
}
