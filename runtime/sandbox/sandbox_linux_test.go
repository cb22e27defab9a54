//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The sandbox is one-way and process-wide, so every test applies it in a child: this test
// binary started again with childEnv set, which applies the Spec in childSpecEnv, runs the
// operations in childOpsEnv on several OS threads (started, and locked, before the sandbox),
// and prints what each returned as JSON.
const (
	childEnv     = "KUBEWALK_SANDBOX_TEST_CHILD"
	childSpecEnv = "KUBEWALK_SANDBOX_TEST_SPEC"
	childOpsEnv  = "KUBEWALK_SANDBOX_TEST_OPS"
	// childThreads is how many goroutines, each locked to its own OS thread, are started
	// before the sandbox and run the operations after it.
	childThreads = 4
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(child())
	}
	os.Exit(m.Run())
}

// op is one operation a child tries: exec PATH, read PATH, write PATH, mkdir PATH, symlink PATH,
// bind PORT, connect PORT, signal PID, abstract NAME, ptrace, vmread.
type op struct {
	Kind string `json:"kind"`
	Arg  string `json:"arg,omitempty"`
}

func (o op) String() string { return strings.TrimSpace(o.Kind + " " + o.Arg) }

// childResult is what a child reports: what Apply enforced, and, per thread, each operation's
// outcome ("ok" or the errno's name) and the thread's ID before and after.
type childResult struct {
	Applied   Applied             `json:"applied"`
	ApplyErr  string              `json:"apply_err,omitempty"`
	Outcomes  map[string][]string `json:"outcomes"` // thread → outcome per op
	Same      bool                `json:"same_threads"`
	ThreadIDs []int               `json:"tids"`
}

func child() int {
	var spec Spec
	var ops []op
	if err := json.Unmarshal([]byte(os.Getenv(childSpecEnv)), &spec); err != nil {
		fmt.Println("bad spec:", err)
		return 2
	}
	if err := json.Unmarshal([]byte(os.Getenv(childOpsEnv)), &ops); err != nil {
		fmt.Println("bad ops:", err)
		return 2
	}
	type thread struct {
		before int
		run    chan struct{}
		done   chan []string
		after  int
	}
	threads := make([]*thread, childThreads)
	ready := make(chan struct{})
	for i := range threads {
		th := &thread{run: make(chan struct{}), done: make(chan []string, 1)}
		threads[i] = th
		go func() {
			runtime.LockOSThread() // never unlocked: the thread stays this goroutine's
			th.before = unix.Gettid()
			ready <- struct{}{}
			<-th.run
			th.after = unix.Gettid()
			th.done <- runOps(ops)
		}()
	}
	for range threads {
		<-ready
	}
	res := childResult{Outcomes: map[string][]string{}, Same: true}
	var err error
	res.Applied, err = Apply(spec)
	if err != nil {
		res.ApplyErr = err.Error()
	}
	if err == nil {
		for i, th := range threads {
			close(th.run)
			res.Outcomes[fmt.Sprint("thread", i)] = <-th.done
			res.Same = res.Same && th.before == th.after
			res.ThreadIDs = append(res.ThreadIDs, th.after)
		}
		res.Outcomes["main"] = runOps(ops)
	}
	b, _ := json.Marshal(res)
	fmt.Println(string(b))
	return 0
}

// runOps runs ops on the calling thread and returns each one's outcome.
func runOps(ops []op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = outcome(runOp(o))
	}
	return out
}

func runOp(o op) error {
	switch o.Kind {
	case "exec":
		// ForkExec rather than os/exec, which would open /dev/null first (and report that).
		pid, err := syscall.ForkExec(o.Arg, []string{o.Arg, "-c", "exit 0"}, &syscall.ProcAttr{Files: []uintptr{0, 1, 2}})
		if err != nil {
			return err
		}
		var ws syscall.WaitStatus
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		return err
	case "read":
		_, err := os.ReadFile(o.Arg)
		return err
	case "list":
		_, err := os.ReadDir(o.Arg)
		return err
	case "write":
		return os.WriteFile(o.Arg, []byte("x"), 0o600)
	case "mkdir":
		return os.Mkdir(o.Arg, 0o700)
	case "rename":
		from, to, _ := strings.Cut(o.Arg, ">")
		return os.Rename(from, to)
	case "symlink":
		return os.Symlink("/etc/passwd", o.Arg)
	case "bind":
		l, err := net.Listen("tcp", "127.0.0.1:"+o.Arg) // Go's default: Multipath TCP if the kernel has it
		if err == nil {
			l.Close()
		}
		return err
	case "connect":
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+o.Arg, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "signal":
		pid, _ := strconv.Atoi(o.Arg)
		return unix.Kill(pid, 0)
	case "abstract":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return unix.Connect(fd, &unix.SockaddrUnix{Name: "@" + o.Arg})
	case "ptrace":
		// A pid that cannot exist: without the filter the kernel answers ESRCH.
		_, _, e := unix.Syscall6(unix.SYS_PTRACE, unix.PTRACE_ATTACH, 1<<30, 0, 0, 0, 0)
		return errnoOrNil(e)
	case "vmread":
		var b [8]byte
		local := []unix.Iovec{{Base: &b[0], Len: 8}}
		remote := []unix.RemoteIovec{{Base: 4096, Len: 8}}
		_, err := unix.ProcessVMReadv(1<<30, local, remote, 0)
		return err
	}
	return fmt.Errorf("unknown op %q", o.Kind)
}

func errnoOrNil(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// outcome is "ok" for nil, else the errno's name (EPERM, EACCES, …), else the error.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// runChild applies spec in a child and runs ops there.
func runChild(t *testing.T, spec Spec, ops []op, extraFiles ...*os.File) childResult {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, _ := json.Marshal(spec)
	ob, _ := json.Marshal(ops)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1", childSpecEnv+"="+string(sb), childOpsEnv+"="+string(ob))
	cmd.ExtraFiles = extraFiles
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var res childResult
	line := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(line, '\n'); i >= 0 {
		line = line[i+1:]
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil {
		t.Fatalf("child output: %v\n%s", err, out)
	}
	return res
}

// freePort returns a loopback port nothing listens on (now).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// listen returns a port a listener of this (unsandboxed) process accepts on until the test ends.
func listen(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

// listenAbstract returns the name of an abstract unix socket this process listens on.
func listenAbstract(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("kubewalk-sandbox-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return name
}

// TestApply applies each layer alone, both, and neither in a child, and checks every
// operation's outcome on the main thread and on threads started before the sandbox: exec of
// /bin/sh fails with EPERM (seccomp) or EACCES (Landlock); reads, writes, binds and connects
// outside the allowed set fail with EACCES; the allowed ones work; signals and abstract
// sockets outside the sandbox are refused (Landlock ABI ≥ 6); ptrace and process_vm_readv
// fail with EPERM (seccomp). Without any layer everything works (the control).
func TestApply(t *testing.T) {
	support := Probe()
	if !support.Seccomp || !support.Net() {
		t.Fatalf("this test needs seccomp and Landlock with network rules (ABI ≥ %d): %s", ABINet, support)
	}
	root := t.TempDir()
	ro := filepath.Join(root, "ro")
	rw := filepath.Join(root, "rw")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ro, rw, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Fatal(err)
	}
	allowedListen, otherListen := listen(t), listen(t)
	allowedBind, otherBind := freePort(t), freePort(t)
	abstract := listenAbstract(t)
	ppid := strconv.Itoa(os.Getpid())
	ops := []op{
		{"exec", "/bin/sh"},                 // 0
		{"read", "/etc/passwd"},             // 1
		{"read", filepath.Join(ro, "f")},    // 2
		{"list", ro},                        // 3
		{"write", filepath.Join(ro, "new")}, // 4
		{"write", filepath.Join(rw, "new")}, // 5
		{"mkdir", filepath.Join(rw, "d")},   // 6
		{"rename", filepath.Join(rw, "new") + ">" + filepath.Join(rw, "d", "moved")}, // 7
		{"write", filepath.Join(outside, "new")},                                     // 8
		{"read", filepath.Join(outside, "f")},                                        // 9
		{"symlink", filepath.Join(rw, "link")},                                       // 10
		{"bind", strconv.Itoa(allowedBind)},                                          // 11
		{"bind", strconv.Itoa(otherBind)},                                            // 12
		{"bind", "0"},                                                                // 13
		{"connect", strconv.Itoa(allowedListen)},                                     // 14
		{"connect", strconv.Itoa(otherListen)},                                       // 15
		{"signal", ppid},                                                             // 16
		{"abstract", abstract},                                                       // 17
		{"ptrace", ""},                                                               // 18
		{"vmread", ""},                                                               // 19
	}
	landlockOnly := Spec{Landlock: true, ReadOnly: []string{ro, "/etc/hostname-does-not-exist"}, ReadWrite: []string{rw},
		BindTCP: []uint16{uint16(allowedBind)}, ConnectTCP: []uint16{uint16(allowedListen)}}
	both := landlockOnly
	both.Seccomp, both.Require = true, true
	scoped := func(denied string) string {
		if support.Scoped() {
			return denied
		}
		return "ok"
	}
	// want per case, by op index; the operations run on several threads in one child, so one
	// that changes the file system (5–7, 10) succeeds on the first thread only: later threads
	// find the file there already. wantLater overrides those for the other threads.
	tests := []struct {
		name      string
		spec      Spec
		want      []string
		wantLater map[int]string
	}{
		{"no layer (control)", Spec{},
			[]string{"ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ESRCH", "ESRCH"},
			map[int]string{6: "EEXIST", 7: "ok", 10: "EEXIST"}},
		{"seccomp alone", Spec{Seccomp: true},
			[]string{"EPERM", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "EPERM", "EPERM"},
			map[int]string{6: "EEXIST", 7: "ok", 10: "EEXIST"}},
		{"landlock alone", landlockOnly,
			[]string{"EACCES", "EACCES", "ok", "ok", "EACCES", "ok", "ok", "ok", "EACCES", "EACCES", "EACCES", "ok", "EACCES", "EACCES", "ok", "EACCES", scoped("EPERM"), scoped("EPERM"), "ESRCH", "ESRCH"},
			map[int]string{6: "EEXIST", 7: "ok"}},
		{"both, required", both,
			[]string{"EPERM", "EACCES", "ok", "ok", "EACCES", "ok", "ok", "ok", "EACCES", "EACCES", "EACCES", "ok", "EACCES", "EACCES", "ok", "EACCES", scoped("EPERM"), scoped("EPERM"), "EPERM", "EPERM"},
			map[int]string{6: "EEXIST", 7: "ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each case starts from the same files.
			for _, p := range []string{filepath.Join(rw, "new"), filepath.Join(rw, "d"), filepath.Join(rw, "link"), filepath.Join(ro, "new"), filepath.Join(outside, "new")} {
				os.RemoveAll(p)
			}
			res := runChild(t, tt.spec, ops)
			if res.ApplyErr != "" {
				t.Fatalf("Apply: %s", res.ApplyErr)
			}
			if !res.Same || len(res.ThreadIDs) != childThreads {
				t.Fatalf("the operations did not run on the threads started before the sandbox: %+v", res)
			}
			if (res.Applied.LandlockABI > 0) != tt.spec.Landlock || res.Applied.Seccomp != tt.spec.Seccomp {
				t.Errorf("Applied = %+v for %+v", res.Applied, tt.spec)
			}
			// The main thread runs last; thread0 first.
			order := []string{"thread0", "thread1", "thread2", "thread3", "main"}
			for n, th := range order {
				got := res.Outcomes[th]
				if len(got) != len(ops) {
					t.Fatalf("%s: %d outcomes, want %d", th, len(got), len(ops))
				}
				for i, o := range ops {
					want := tt.want[i]
					if w, ok := tt.wantLater[i]; ok && n > 0 {
						want = w
					}
					if got[i] != want {
						t.Errorf("%s: %s = %s, want %s", th, o, got[i], want)
					}
				}
			}
		})
	}
}

// TestApplyInheritedDirectory: a directory this process could not reach by its path is given
// to the sandbox as /proc/self/fd/N (as class ssh hands a student's progress directory to a
// tour running as another user); files beneath it are writable through that path, and the
// directory's siblings stay out of reach.
func TestApplyInheritedDirectory(t *testing.T) {
	root := t.TempDir()
	mine := filepath.Join(root, "mine")
	sibling := filepath.Join(root, "sibling")
	for _, d := range []string{mine, sibling} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	dir, err := os.Open(mine)
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	const fd = 3 // the first ExtraFile
	via := fmt.Sprintf("/proc/self/fd/%d", fd)
	spec := Spec{Landlock: true, ReadWrite: []string{via}}
	ops := []op{
		{"mkdir", via + "/state"},
		{"write", via + "/state/progress.json"},
		{"read", filepath.Join(mine, "state", "progress.json")},
		{"write", filepath.Join(sibling, "x")},
	}
	res := runChild(t, spec, ops, dir)
	if res.ApplyErr != "" {
		t.Fatalf("Apply: %s", res.ApplyErr)
	}
	want := []string{"ok", "ok", "ok", "EACCES"}
	got := res.Outcomes["thread0"]
	if !slices.Equal(got, want) {
		t.Errorf("thread0: %v, want %v (ops %v)", got, want, ops)
	}
	if b, err := os.ReadFile(filepath.Join(mine, "state", "progress.json")); err != nil || string(b) != "x" {
		t.Errorf("progress written through the descriptor: %q %v", b, err)
	}
}

// TestRequire: Require refuses a spec that leaves a layer out, and a relative path.
func TestRequire(t *testing.T) {
	for _, tt := range []struct {
		name string
		spec Spec
		want string
	}{
		{"relative path", Spec{Landlock: true, Require: true, Seccomp: true, ReadOnly: []string{"etc"}}, `"etc": not an absolute path`},
		{"missing read-write dir", Spec{Landlock: true, Seccomp: true, Require: true, ReadWrite: []string{"/nonexistent-kubewalk"}}, "no such file or directory"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := runChild(t, tt.spec, nil)
			if !strings.Contains(res.ApplyErr, tt.want) {
				t.Errorf("Apply error %q, want %q", res.ApplyErr, tt.want)
			}
		})
	}
}

// TestRefusingEnv: the refusing value names no program that exists or can be made, holds no
// shell word, and running it fails without starting anything.
func TestRefusingEnv(t *testing.T) {
	env := RefusingEnv()
	want := map[string]bool{"EDITOR": true, "KUBE_EDITOR": true, "VISUAL": true, "PAGER": true, "KUBECTL_EXTERNAL_DIFF": true}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !want[k] {
			t.Errorf("unexpected %s", kv)
		}
		delete(want, k)
		if v != RefusedProgram {
			t.Errorf("%s", kv)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing %v", want)
	}
	if strings.ContainsAny(RefusedProgram, " \t\n;|&$`'\"\\*?<>()") || !filepath.IsAbs(RefusedProgram) {
		t.Errorf("%q must be an absolute path with no shell word", RefusedProgram)
	}
	if _, err := os.Stat(RefusedProgram); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists: %v", RefusedProgram, err)
	}
	if err := os.WriteFile(RefusedProgram, nil, 0o700); err == nil {
		os.Remove(RefusedProgram)
		t.Errorf("%s could be created", RefusedProgram)
	}
	if err := exec.Command(RefusedProgram).Run(); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("running %s: %v, want not found", RefusedProgram, err)
	}
}

// TestParseMode: the --sandbox values, and a clear error for others.
func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"auto": Auto, "REQUIRE": Require, " off ": Off} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("on"); err == nil || !strings.Contains(err.Error(), "want auto") {
		t.Errorf("ParseMode(on): %v", err)
	}
}

// TestSupportWords: what Missing and String say for kernels with less.
func TestSupportWords(t *testing.T) {
	for _, tt := range []struct {
		s             Support
		missing, text string
	}{
		{Support{OS: true, LandlockABI: 7, Seccomp: true}, "", "Landlock ABI 7 (files, TCP ports, signals and abstract sockets), seccomp"},
		{Support{OS: true, LandlockABI: 3, Seccomp: true}, "Landlock network rules (ABI 3 < 4)", "Landlock ABI 3 (files), seccomp"},
		{Support{OS: true, Seccomp: true}, "Landlock", "no Landlock, seccomp"},
		{Support{OS: true, LandlockABI: 5}, "seccomp", "Landlock ABI 5 (files, TCP ports), no seccomp"},
		{Support{}, "Landlock, seccomp (Linux only)", "no sandbox on this operating system"},
	} {
		if got := tt.s.Missing(); got != tt.missing {
			t.Errorf("%+v Missing = %q, want %q", tt.s, got, tt.missing)
		}
		if got := tt.s.String(); got != tt.text {
			t.Errorf("%+v String = %q, want %q", tt.s, got, tt.text)
		}
	}
}
