package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
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

// sandbox is one kubewalk run's private TMPDIR, XDG state and runtime dirs and HOME, so that
// what the run leaves behind can be told apart from other tests running in parallel, and a
// marker in its environment to find its processes.
type sandbox struct {
	root, tmp, state, runtime, home string
	log                             string // --log-file
	marker                          string // value of KUBEWALK_E2E_RUN in kubewalk's environment
}

func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	root := t.TempDir()
	sb := &sandbox{
		root:    root,
		tmp:     filepath.Join(root, "tmp"),
		state:   filepath.Join(root, "state"),
		runtime: filepath.Join(root, "runtime"),
		home:    filepath.Join(root, "home"),
		log:     filepath.Join(root, "kubewalk.log"),
		marker:  fmt.Sprintf("run%d%d", time.Now().UnixNano(), rand.Int64()),
	}
	for _, d := range []string{sb.tmp, sb.state, sb.runtime, sb.home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// class ssh, run as root, runs its tours as nobody in directories under TMPDIR: nobody
	// must be able to pass through the test's directories to reach them (not to list them).
	for _, d := range []string{sb.tmp, root, filepath.Dir(root)} {
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(sb.kill) // whatever a failed test left running
	return sb
}

// kill sends SIGKILL to every process of the sandbox's runs that is still alive.
func (sb *sandbox) kill() {
	for _, pid := range sb.processes() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// vars are the variables that put a kubewalk run in the sandbox.
func (sb *sandbox) vars() []string {
	return []string{"TMPDIR=" + sb.tmp, "XDG_STATE_HOME=" + sb.state, "XDG_RUNTIME_DIR=" + sb.runtime,
		"HOME=" + sb.home, "KUBEWALK_E2E_RUN=" + sb.marker}
}

// env is the test's environment with the sandbox's variables instead of its own.
func (sb *sandbox) env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "TMPDIR", k == "HOME", k == "KUBECONFIG", strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "KUBEWALK_"):
			continue
		}
		env = append(env, kv)
	}
	return append(append(env, sb.vars()...), extra...)
}

// shellEnv is the sandbox's variables (and extra) as a prefix for a shell command line.
func (sb *sandbox) shellEnv(extra ...string) string {
	var b strings.Builder
	for _, kv := range append(sb.vars(), extra...) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "%s=%s ", k, shellQuote(v))
	}
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// processes returns the pids of the processes that carry the sandbox's marker.
func (sb *sandbox) processes() []int {
	want := []byte("KUBEWALK_E2E_RUN=" + sb.marker + "\x00")
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// assertNothingLeft fails if the run left a process, anything in its TMPDIR or XDG runtime dir,
// or a file named like a kubeconfig anywhere in the sandbox. The log and the state dir's other
// files (progress) are the run's to keep.
func (sb *sandbox) assertNothingLeft(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for pids := sb.processes(); len(pids) > 0; pids = sb.processes() {
		if time.Now().After(deadline) {
			t.Errorf("processes of the run still alive: %v", pids)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	filepath.WalkDir(sb.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == sb.root || p == sb.tmp || p == sb.runtime {
			return nil
		}
		switch {
		case strings.HasPrefix(p, sb.tmp+"/"), strings.HasPrefix(p, sb.runtime+"/"):
			t.Errorf("left behind: %s", p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		case strings.Contains(d.Name(), "kubeconfig"):
			t.Errorf("kubeconfig left behind: %s", p)
		}
		return nil
	})
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// assertPortClosed fails if something still accepts connections on 127.0.0.1:port.
func assertPortClosed(t *testing.T, port string) {
	t.Helper()
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Errorf("port %s still open after exit", port)
	}
}

// run is a kubewalk process started by the test.
type run struct {
	sb   *sandbox
	cmd  *exec.Cmd
	out  *syncBuffer // stdout and stderr
	done chan struct{}
	err  error // cmd.Wait's, once done is closed
}

// startRun starts kubewalk with args in sb and kills it at the end of the test if it is still
// running.
func startRun(t *testing.T, sb *sandbox, extraEnv []string, args ...string) *run {
	t.Helper()
	r := &run{sb: sb, cmd: exec.Command(binary, args...), out: &syncBuffer{}, done: make(chan struct{})}
	r.cmd.Env = sb.env(extraEnv...)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() { r.kill() })
	return r
}

// kill ends the run's processes (the supervisor and its child) if they are still running. Wait
// returns only once every process holding the output pipe is gone.
func (r *run) kill() {
	select {
	case <-r.done:
	default:
		r.cmd.Process.Kill()
		r.sb.kill()
		<-r.done
	}
}

// waitOutput waits until the output contains want, failing if the process exits first or
// within passes.
func (r *run) waitOutput(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for !strings.Contains(r.out.String(), want) {
		select {
		case <-r.done:
			if strings.Contains(r.out.String(), want) {
				return
			}
			t.Fatalf("exited (%v) before printing %q:\n%s", r.err, want, r.out)
		case <-deadline:
			t.Fatalf("no %q within %s:\n%s", want, within, r.out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// matchOutput reports whether the output matches the regular expression re within the bound
// (or by the time the process exited).
func (r *run) matchOutput(re string, within time.Duration) bool {
	x := regexp.MustCompile(re)
	deadline := time.After(within)
	for !x.MatchString(r.out.String()) {
		select {
		case <-r.done:
			return x.MatchString(r.out.String())
		case <-deadline:
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// wait waits for the process to exit, within a bound, and returns its exit code and the signal
// that killed it (0 if none).
func (r *run) wait(t *testing.T, within time.Duration) (code int, sig syscall.Signal) {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(within):
		t.Fatalf("still running %s later:\n%s", within, r.out)
	}
	var ee *exec.ExitError
	if r.err != nil && !errors.As(r.err, &ee) {
		t.Fatalf("wait: %v", r.err)
	}
	ws := r.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return -1, ws.Signal()
	}
	return ws.ExitStatus(), 0
}

// sigMask reads a signal mask line (SigIgn, SigCgt) of /proc/pid/status.
func sigMask(pid int, field string) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// hasSignal reports whether mask holds sig.
func hasSignal(mask uint64, sig syscall.Signal) bool { return mask&(1<<(uint(sig)-1)) != 0 }
