package main_test

import (
	"bufio"
	"fmt"
	"io"
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

// TestServeSignals sends SIGINT, SIGTERM and SIGHUP to `kubewalk serve` at moments from
// package initialisation to serving: each must end the run within a bound, with the interrupt
// exit code (or 0 after a clean shutdown of a ready server), and leave no process, temp dir,
// kubeconfig or open port behind.
func TestServeSignals(t *testing.T) {
	const whenReady = 0
	tests := []struct {
		name  string
		sig   syscall.Signal
		after time.Duration // after the start; whenReady: once it says it is ready
	}{
		{"SIGINT at 5ms", syscall.SIGINT, 5 * time.Millisecond},
		{"SIGINT at 20ms", syscall.SIGINT, 20 * time.Millisecond},
		{"SIGINT at 50ms", syscall.SIGINT, 50 * time.Millisecond},
		{"SIGINT at 100ms", syscall.SIGINT, 100 * time.Millisecond},
		{"SIGINT when ready", syscall.SIGINT, whenReady},
		{"SIGTERM at 20ms", syscall.SIGTERM, 20 * time.Millisecond},
		{"SIGTERM when ready", syscall.SIGTERM, whenReady},
		{"SIGHUP at 20ms", syscall.SIGHUP, 20 * time.Millisecond},
		{"SIGHUP at 100ms", syscall.SIGHUP, 100 * time.Millisecond},
		{"SIGHUP when ready", syscall.SIGHUP, whenReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			port := freePort(t)
			r := startRun(t, sb, nil, "serve", "--secure-port", port, "--log-file", sb.log)
			var kubeconfig string
			if tt.after == whenReady {
				r.waitOutput(t, "Press Ctrl-C to stop", 2*time.Minute)
				kubeconfig = kubeconfigPath(t, r.out.String())
			} else {
				time.Sleep(tt.after) // schedules the signal; outcomes are polled below
			}
			if err := r.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			code, sig := r.wait(t, time.Minute)
			switch {
			case tt.after == whenReady:
				if code != 0 || !strings.Contains(r.out.String(), "stopped cleanly") {
					t.Errorf("exit code %d, signal %v; want 0 and a clean stop:\n%s", code, sig, r.out)
				}
				if _, err := os.Stat(kubeconfig); err == nil {
					t.Errorf("kubeconfig %s still there", kubeconfig)
				}
			case sig == tt.sig:
				// The signal came before the runtime started: it died of it, as it should.
			case code != 128+int(tt.sig):
				t.Errorf("exit code %d, signal %v; want %d:\n%s", code, sig, 128+int(tt.sig), r.out)
			}
			if strings.Contains(r.out.String(), "crashed") {
				t.Errorf("reported a crash:\n%s", r.out)
			}
			sb.assertNothingLeft(t)
			assertPortClosed(t, port)
		})
	}
}

// TestServeSignalInheritedIgnored starts serve as a background job of a non-interactive shell,
// which starts it with SIGINT ignored: the kernel drops an ignored signal, so until kubewalk
// catches SIGINT a kill -INT is lost. It must catch it from package initialisation on (see
// the init-order test below) and then honour it at once, however early.
func TestServeSignalInheritedIgnored(t *testing.T) {
	// The premise: such a shell does start background jobs with SIGINT ignored.
	out, err := exec.Command("sh", "-c", "grep SigIgn /proc/self/status & wait").Output()
	if err != nil {
		t.Fatal(err)
	}
	ign, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(string(out), "SigIgn:")), 16, 64)
	if err != nil || !hasSignal(ign, syscall.SIGINT) {
		t.Fatalf("sh does not start background jobs with SIGINT ignored (%q, %v): the test proves nothing", out, err)
	}

	for _, extra := range []time.Duration{0, 20 * time.Millisecond, 100 * time.Millisecond} {
		t.Run("caught+"+extra.String(), func(t *testing.T) {
			sb := newSandbox(t)
			port := freePort(t)
			pidFile := filepath.Join(sb.root, "pid")
			sh := exec.Command("sh", "-c", `"$0" "$@" & echo $! > "$PIDFILE"; wait $!`,
				binary, "serve", "--secure-port", port, "--log-file", sb.log)
			sh.Env = sb.env("PIDFILE=" + pidFile)
			buf := &syncBuffer{}
			sh.Stdout, sh.Stderr = buf, buf
			if err := sh.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() { sh.Wait(); close(done) }()
			t.Cleanup(func() { sb.kill(); <-done })
			pid := 0
			deadline := time.Now().Add(time.Minute)
			for {
				// Read the pid, then poll until kubewalk catches SIGINT rather than ignoring it.
				if pid == 0 {
					if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
						pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
					}
				}
				// Until it execs kubewalk, the pid is sh's forked child, which has a SIGINT
				// handler of its own for a moment.
				if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); pid != 0 && exe == binary {
					if cgt, err := sigMask(pid, "SigCgt"); err == nil && hasSignal(cgt, syscall.SIGINT) {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("kubewalk (pid %d) never caught SIGINT:\n%s", pid, buf)
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(extra) // schedules the signal
			if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatalf("SIGINT was lost: still running a minute later:\n%s", buf)
			}
			// sh's wait returns kubewalk's exit status.
			if code := sh.ProcessState.ExitCode(); code != 130 || !strings.Contains(buf.String(), "kubewalk: interrupted") {
				t.Errorf("exit code %d, want 130 and an interrupt reported:\n%s", code, buf)
			}
			sb.assertNothingLeft(t)
			assertPortClosed(t, port)
		})
	}
}

// TestSignalHandlerInstalledFirst checks, with the runtime's init trace, that kubewalk catches
// the ending signals before the slow package initialisation — glamour, bluemonday, goldmark,
// client-go's and the apiserver's schemes and metrics, etcd — runs, instead of at main.
func TestSignalHandlerInstalledFirst(t *testing.T) {
	cmd := exec.Command(binary, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	line := regexp.MustCompile(`^init (\S+) @([0-9.]+) ms, ([0-9.]+) ms clock`)
	const early = "github.com/kubewalk/kubewalk/runtime/cli/earlysignal"
	slow := []string{"github.com/alecthomas/chroma/", "github.com/charmbracelet/glamour", "github.com/microcosm-cc/bluemonday",
		"github.com/yuin/goldmark", "github.com/gorilla/css", "k8s.io/api/", "k8s.io/client-go/", "k8s.io/apiserver/",
		"k8s.io/component-base/", "go.etcd.io/etcd/"}
	var before, after float64
	var at, last string
	for _, l := range strings.Split(string(out), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		clock, _ := strconv.ParseFloat(m[3], 64)
		last = m[2]
		switch {
		case m[1] == early:
			at = m[2]
		case at == "":
			before += clock
			for _, s := range slow {
				if strings.HasPrefix(m[1], s) {
					t.Errorf("%s initialised (@%s ms) before the signal handler", m[1], m[2])
				}
			}
		default:
			after += clock
		}
	}
	if at == "" {
		t.Fatalf("no init of %s in the trace:\n%s", early, out)
	}
	t.Logf("signal handler installed @%s ms after %.2f ms of package init; %.1f ms of init follow (last @%s ms)", at, before, after, last)
}

// TestServeClosedStdout runs `kubewalk serve | head -3` and then interrupts it: writing to the
// closed pipe must not kill kubewalk (Go dies of SIGPIPE on fd 1 by default) before it has
// cleaned up.
func TestServeClosedStdout(t *testing.T) {
	sb := newSandbox(t)
	port := freePort(t)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve", "--secure-port", port, "--log-file", sb.log)
	cmd.Env = sb.env()
	errOut := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = pw, errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			<-done
		}
	})
	// head -3: read three lines, then go away.
	headDone := make(chan []string, 1)
	go func() {
		var head []string
		sc := bufio.NewScanner(pr)
		for i := 0; i < 3 && sc.Scan(); i++ {
			head = append(head, sc.Text())
		}
		pr.Close()
		headDone <- head
	}()
	var head []string
	select {
	case head = <-headDone:
	case <-time.After(2 * time.Minute):
		t.Fatalf("serve printed no three lines:\n%s", errOut)
	}
	if len(head) < 3 || !strings.Contains(head[0], "ready at") {
		t.Fatalf("first lines: %q\n%s", head, errOut)
	}
	kubeconfig := kubeconfigPath(t, strings.Join(head, "\n"))
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute after SIGINT:\n%s", errOut)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() || ws.ExitStatus() != 0 {
		t.Errorf("exit %v (signal %v), want 0; stderr:\n%s", ws.ExitStatus(), ws.Signal(), errOut)
	}
	if _, err := os.Stat(kubeconfig); err == nil {
		t.Errorf("kubeconfig %s still there", kubeconfig)
	}
	sb.assertNothingLeft(t)
	assertPortClosed(t, port)
}

// TestSecondInterrupt: while the shutdown after a first SIGINT or SIGTERM hangs (a test hook
// blocks it), a second one must end the process at once, say so, and exit 128 + its number.
func TestSecondInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			sb := newSandbox(t)
			r := startRun(t, sb, []string{"KUBEWALK_E2E_HANG_SHUTDOWN=1"}, "serve", "--log-file", sb.log)
			r.waitOutput(t, "Press Ctrl-C to stop", 2*time.Minute)
			if err := r.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			r.waitOutput(t, "Ctrl-C again exits at once", time.Minute)
			if err := r.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, s := r.wait(t, time.Minute)
			if code != 128+int(sig) {
				t.Errorf("exit code %d (signal %v), want %d:\n%s", code, s, 128+int(sig), r.out)
			}
			if !strings.Contains(r.out.String(), "again: exiting now without finishing the shutdown") {
				t.Errorf("no message about the hard exit:\n%s", r.out)
			}
		})
	}
}

// TestCrashInServe panics in a fresh goroutine of a ready `kubewalk serve` (a test hook): fd 2
// goes to the log file, so the supervisor must say on the real stderr that kubewalk crashed and
// where the log with the trace is.
func TestCrashInServe(t *testing.T) {
	sb := newSandbox(t)
	trigger := filepath.Join(sb.root, "panic-now")
	r := startRun(t, sb, []string{"KUBEWALK_E2E_PANIC_FILE=" + trigger}, "serve", "--log-file", sb.log)
	r.waitOutput(t, "Press Ctrl-C to stop", 2*time.Minute)
	if err := os.WriteFile(trigger, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, sig := r.wait(t, time.Minute)
	if code != 2 {
		t.Errorf("exit code %d (signal %v), want 2 (a Go panic)", code, sig)
	}
	for _, want := range []string{"kubewalk crashed (exit status 2); the log is at " + sb.log,
		"panic: kubewalk e2e: deliberate panic in a fresh goroutine"} {
		if !strings.Contains(r.out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, r.out)
		}
	}
	if log := readFile(sb.log); !strings.Contains(log, "goroutine") || !strings.Contains(log, "deliberate panic") {
		t.Errorf("the log lacks the stack trace:\n%s", log)
	}
	// The supervisor removes what the dead server had created: temp dir (etcd's data), the
	// kubeconfig, its lock and the directory made for it.
	sb.assertNothingLeft(t)
}

// kubeconfigPath finds the kubeconfig path serve printed.
func kubeconfigPath(t *testing.T, out string) string {
	t.Helper()
	m := regexp.MustCompile(`kubeconfig: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no kubeconfig path in:\n%s", out)
	}
	return m[1]
}

// TestSupervisorKilled kills kubewalk's supervising process with SIGKILL (which nothing can
// catch): the child running the server sees its supervisor's socket close and shuts down as on
// SIGHUP, leaving nothing behind.
func TestSupervisorKilled(t *testing.T) {
	sb := newSandbox(t)
	port := freePort(t)
	r := startRun(t, sb, nil, "serve", "--secure-port", port, "--log-file", sb.log)
	r.waitOutput(t, "Press Ctrl-C to stop", 2*time.Minute)
	kubeconfig := kubeconfigPath(t, r.out.String())
	if pids := sb.processes(); len(pids) != 2 {
		t.Fatalf("want a supervisor and its child, got processes %v", pids)
	}
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, sig := r.wait(t, time.Minute); sig != syscall.SIGKILL {
		t.Fatalf("supervisor ended by %v, want SIGKILL", sig)
	}
	sb.assertNothingLeft(t) // waits, within a bound, for the child to finish its shutdown
	if _, err := os.Stat(kubeconfig); err == nil {
		t.Errorf("kubeconfig %s still there", kubeconfig)
	}
	assertPortClosed(t, port)
}

// TestRestartAfterKill: kill -9 of the visible process of `serve --kubeconfig X`, then a
// restart with the same X at once, while the killed run's child is still shutting down (a
// test hook holds its shutdown until the test lets it go): the restart says it waits for that
// run, and starts once it has let go, instead of refusing.
func TestRestartAfterKill(t *testing.T) {
	sb := newSandbox(t)
	kubeconfig := filepath.Join(sb.home, "kc", "config")
	release := filepath.Join(sb.root, "release")
	first := startRun(t, sb, []string{"KUBEWALK_E2E_HOLD_SHUTDOWN=" + release},
		"serve", "--kubeconfig", kubeconfig, "--log-file", sb.log)
	first.waitOutput(t, "Press Ctrl-C to stop", 2*time.Minute)
	if err := first.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	second := startRun(t, sb, nil, "serve", "--kubeconfig", kubeconfig, "--log-file", filepath.Join(sb.root, "second.log"))
	second.waitOutput(t, "kubewalk: waiting for the kubewalk run (pid ", time.Minute)
	if strings.Contains(second.out.String(), "is using it") {
		t.Fatalf("the restart refused:\n%s", second.out)
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	second.waitOutput(t, "Press Ctrl-C to stop", 2*time.Minute)
	if got := kubeconfigPath(t, second.out.String()); got != kubeconfig {
		t.Errorf("the restart's kubeconfig is %s, want %s", got, kubeconfig)
	}
	if err := second.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// A served `serve` stopped on purpose has done its job: exit 0.
	if code, _ := second.wait(t, time.Minute); code != 0 {
		t.Errorf("restart: exit code %d after SIGTERM, want 0:\n%s", code, second.out)
	}
	sb.assertNothingLeft(t)
}

// TestBootInitialisesEarly: the supervisor of tour and serve starts from an init function that
// Go runs before the libraries' (runtime/cli/supervisor), so that the first process of a run
// does not pay their initialisation before it starts the child that does.
func TestBootInitialisesEarly(t *testing.T) {
	cmd := exec.Command(binary, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("version: %v\n%s", err, stderr.String())
	}
	var before []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		if f[1] == "github.com/kubewalk/kubewalk/runtime/cli/supervisor/boot" {
			if len(before) > 60 {
				t.Errorf("%d packages initialise before the supervisor: %q", len(before), before)
			}
			for _, p := range before {
				for _, heavy := range []string{"github.com/alecthomas/chroma/v2/lexers", "github.com/alecthomas/chroma/v2/styles",
					"github.com/charmbracelet/glamour", "github.com/yuin/goldmark", "github.com/google/cel-go/cel",
					"go.etcd.io/etcd/server/v3/etcdserver", "google.golang.org/grpc", "k8s.io/apiserver/pkg/server",
					"k8s.io/client-go/kubernetes/scheme", "k8s.io/kubectl/pkg/cmd", "k8s.io/kubectl/pkg/scheme"} {
					if p == heavy {
						t.Errorf("%s initialises before the supervisor", p)
					}
				}
			}
			return
		}
		before = append(before, f[1])
	}
	t.Fatalf("no init of runtime/cli/supervisor/boot in the trace:\n%s", stderr.String())
}
