package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalDuringKubectlWatch runs the tour to serving in tmux, starts `:k get ns -w` (the
// in-process kubectl, whose own interrupt handler used to call os.Exit(1) on the first
// SIGHUP, SIGINT or SIGTERM) and signals kubewalk: the supervisor alone (kill PID), or both
// processes at once, as a closing terminal or a kill of the process group does. kubewalk's
// shutdown must win: exit 128 + the signal's number, no crash reported, kubectl's cache
// directory and the server's temp dir gone.
func TestSignalDuringKubectlWatch(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		for _, both := range []bool{false, true} {
			name := sig.String() + " to the supervisor"
			if both {
				name = sig.String() + " to both processes"
			}
			t.Run(name, func(t *testing.T) {
				sb := newSandbox(t)
				m, rc, _ := startTmux(t, sb, 120, 40, nil, "tour", "--restart", "--log-file", sb.log)
				watchNamespaces(t, m)
				if left, _ := filepath.Glob(filepath.Join(sb.tmp, "kubewalk-kubectl-cache-*")); len(left) != 1 {
					t.Fatalf("kubectl's cache dir: %v, want one while the watch runs: the test proves nothing", left)
				}
				sup, child := runProcesses(t, sb)
				targets := []int{sup}
				if both {
					targets = append(targets, child)
				}
				for _, pid := range targets {
					if err := syscall.Kill(pid, sig); err != nil {
						t.Fatal(err)
					}
				}
				if code := m.waitFile(rc, time.Minute); code != strconv.Itoa(128+int(sig)) {
					t.Errorf("exit code %s, want %d; screen:\n%s\nlog:\n%s", code, 128+int(sig), m.screen(), readFile(sb.log))
				}
				screen := m.waitFor(`kubewalk: interrupted; everything was shut down`, 10*time.Second)
				if strings.Contains(screen, "crashed") {
					t.Errorf("a crash was reported:\n%s", screen)
				}
				sb.assertNothingLeft(t)
			})
		}
	}
}

// watchNamespaces takes a fresh tour to serving and starts `:k get ns -w` in it.
func watchNamespaces(t *testing.T, m tmux) {
	t.Helper()
	m.waitFor(`Welcome to kubewalk`, 2*time.Minute)
	m.run("send-keys", "-t", "kw", "Enter")
	m.waitFor(`space next`, 30*time.Second)
	m.run("send-keys", "-t", "kw", "E")
	m.waitFor(`SERVING`, 2*time.Minute)
	// In one read: ':' opens the command line and the rest is typed into it.
	m.run("send-keys", "-t", "kw", "-l", ":k get ns -w")
	m.run("send-keys", "-t", "kw", "Enter")
	m.waitFor(`get ns -w · running(.|\n)*kube-public`, 30*time.Second)
}

// runProcesses returns the sandbox's supervisor and its child, the tour.
func runProcesses(t *testing.T, sb *sandbox) (supervisor, child int) {
	t.Helper()
	pids := sb.processes()
	if len(pids) != 2 {
		t.Fatalf("want a supervisor and its child, got processes %v", pids)
	}
	for i, pid := range pids {
		if parentOf(pid) == pids[1-i] {
			return pids[1-i], pid
		}
	}
	t.Fatalf("processes %v are not parent and child", pids)
	return 0, 0
}

// parentOf reads a process's parent from /proc.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// TestClassSSHKubectlWatchEnds: a student of `class ssh` runs `:k get ns -w` when their
// session ends — the class stops (Ctrl-C), or the student's connection closes. The class
// server ends the tour with SIGTERM to its process group, which kubectl's interrupt handler
// used to turn into os.Exit(1), logged as a crash. The tour must end cleanly (exit status 143)
// and the class log say so, without "crashed"; nothing is left behind.
func TestClassSSHKubectlWatchEnds(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Fatalf("the OpenSSH client (ssh) is required for this end-to-end test: %v", err)
	}
	for _, how := range []string{"class stopped", "connection closed"} {
		t.Run(how, func(t *testing.T) {
			sb := newSandbox(t)
			key := filepath.Join(sb.root, "id")
			if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
				t.Fatalf("ssh-keygen: %v\n%s", err, out)
			}
			r := startRun(t, sb, nil, "class", "ssh", "--listen", "127.0.0.1:0", "--authorized-keys", key+".pub", "--warm", "0")
			r.waitOutput(t, "Ctrl-C stops the class", time.Minute)
			port := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(r.out.String())
			if port == nil {
				t.Fatalf("no port in the banner:\n%s", r.out)
			}
			m := tmux{t: t, socket: fmt.Sprintf("kubewalk-e2e-%d-%s-ssh", os.Getpid(), sb.marker)}
			script := fmt.Sprintf("%sTERM=xterm-256color ssh -F /dev/null -p %s -i %s -o IdentitiesOnly=yes -o BatchMode=yes "+
				"-o StrictHostKeyChecking=no -o UserKnownHostsFile=%s -tt alice@127.0.0.1; sleep 600",
				sb.shellEnv(), port[1], shellQuote(key), shellQuote(filepath.Join(sb.root, "known_hosts")))
			m.run("new-session", "-d", "-s", "kw", "-x", "120", "-y", "40", "sh", "-c", script)
			t.Cleanup(func() { exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
			watchNamespaces(t, m)

			if how == "class stopped" {
				r.cmd.Process.Signal(syscall.SIGINT)
			} else {
				m.run("kill-server") // the student's terminal and ssh client go
			}
			why := regexp.QuoteMeta(how)
			if how == "connection closed" {
				// The client's end reaches the class as the session's end or as the end of
				// its input, whichever the SSH library reports first.
				why = "connection closed|input closed"
			}
			ended := regexp.MustCompile(`session 1 alice: ended \((?:` + why + `)\), exit status (\d+)(.*)`)
			deadline := time.Now().Add(time.Minute)
			var match []string
			for match = ended.FindStringSubmatch(r.out.String()); match == nil; match = ended.FindStringSubmatch(r.out.String()) {
				if time.Now().After(deadline) {
					t.Fatalf("the class never logged the session's end (%s):\n%s", how, r.out)
				}
				time.Sleep(50 * time.Millisecond) // polling the class's output, bounded above
			}
			if match[1] != "143" || match[2] != "" {
				t.Errorf("session ended with exit status %s%s, want 143 and nothing more:\n%s", match[1], match[2], r.out)
			}
			if how != "class stopped" {
				r.cmd.Process.Signal(syscall.SIGINT)
			}
			if code, _ := r.wait(t, time.Minute); code != 0 {
				t.Errorf("class ssh exited %d:\n%s", code, r.out)
			}
			if strings.Contains(r.out.String(), "crashed") || strings.Contains(r.out.String(), "log kept at") {
				t.Errorf("the class reported a failed tour:\n%s", r.out)
			}
			sb.assertNothingLeft(t)
		})
	}
}
