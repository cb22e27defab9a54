package sshclass

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

// TestTourConfined runs the fake tour as a student's, as nobody when the test runs as root, with
// each OS layer alone, all, and none (the control, which shows the probes can succeed), and
// checks from inside the tour what its sandbox allows: starting a program (EPERM from seccomp,
// EACCES from Landlock), reading /etc/passwd and another student's world-readable file,
// writing to a world-writable directory outside its own, binding a port not given to it,
// connecting to a port not its own, signalling a process of the same user outside its sandbox
// (all EACCES or EPERM from Landlock); and what it must still do: bind and connect its own
// server port, write its progress and read the module cache handed to it as descriptors.
func TestTourConfined(t *testing.T) {
	support := sandbox.Probe()
	if !support.Seccomp || !support.Scoped() {
		t.Fatalf("this test needs seccomp and Landlock ABI ≥ %d: %s", sandbox.ABIScoped, support)
	}
	runAs := nobody(t)
	root := t.TempDir()
	traversable(t, root)
	mk := func(path string, mode os.FileMode, content string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if content == "" {
			if err := os.Mkdir(path, mode); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	marks := mk(filepath.Join(root, "marks"), 0o777, "")
	fake := mk(filepath.Join(root, "bin", "fake-program"), 0o755, "#!/bin/sh\necho ran > "+marks+"/ran.$$\n")
	outside := mk(filepath.Join(root, "outside"), 0o777, "")
	secret := mk(filepath.Join(root, "other-student", "notes"), 0o644, "another student's notes\n")
	modCache := mk(filepath.Join(root, "modcache", "k8s.io", "apiserver@v0.37.2", "doc.go"), 0o444, "package apiserver\n")
	for _, d := range []string{filepath.Dir(modCache), filepath.Dir(filepath.Dir(modCache)), filepath.Dir(filepath.Dir(filepath.Dir(modCache)))} {
		os.Chmod(d, 0o755)
	}
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	otherPort := strconv.Itoa(other.Addr().(*net.TCPAddr).Port)
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := strconv.Itoa(free.Addr().(*net.TCPAddr).Port)
	free.Close()
	// A process of the tours' user outside any sandbox: Unix permissions let the tour signal it.
	sleeper := exec.Command("sleep", "300")
	if runAs != nil {
		sleeper.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(runAs.UID), Gid: uint32(runAs.GID)}}
	}
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sleeper.Process.Kill(); sleeper.Wait() }()

	const (
		ok = "ok"
		E  = "EPERM"
		A  = "EACCES"
	)
	type probe struct{ spec, all, noExec, landlock, none string }
	probes := []probe{
		{"exec:/bin/sh", E, E, A, ""}, // not run in the control: a real shell
		{"exec:" + fake, E, E, A, ok},
		{"read:/etc/passwd", A, ok, A, ok},
		{"read:" + secret, A, ok, A, ok},
		{"write:" + filepath.Join(outside, "x"), A, ok, A, ok},
		{"bind:" + freePort, A, ok, A, ok},
		{"connect:" + otherPort, A, ok, A, ok},
		{"signal:" + strconv.Itoa(sleeper.Process.Pid), E, ok, E, ok},
		{"ownport", ok, ok, ok, ok},
		{"writeenv:XDG_STATE_HOME/probe", ok, ok, ok, ok},
		{"readenv:GOMODCACHE/k8s.io/apiserver@v0.37.2/doc.go", ok, ok, ok, ok},
	}
	for _, tc := range []struct {
		name   string
		layers Layers
		want   func(probe) string
	}{
		{"all layers", AllLayers(), func(p probe) string { return p.all }},
		{"no-exec alone", Layers{NoExec: true}, func(p probe) string { return p.noExec }},
		{"landlock alone", Layers{Landlock: true}, func(p probe) string { return p.landlock }},
		{"no layers (control)", Layers{}, func(p probe) string { return p.none }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, f := range []string{filepath.Join(outside, "x")} {
				os.Remove(f)
			}
			var list []string
			for _, p := range probes {
				if tc.want(p) != "" {
					list = append(list, p.spec)
				}
			}
			layers := tc.layers
			c := startClass(t, "probe", Config{RunAs: runAs, Layers: &layers, ModCache: filepath.Join(root, "modcache"),
				Env: []string{probeEnv + "=" + strings.Join(list, ";")}})
			client, err := c.dial("alice")
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			cs := open(t, client, 100, 30, nil, "")
			out := strings.ReplaceAll(cs.waitOutput(t, "probes done", bound), "\r", "")
			for _, p := range probes {
				want := tc.want(p)
				if want == "" {
					continue
				}
				if line := fmt.Sprintf("probe %s = %s\n", p.spec, want); !strings.Contains(out, line) {
					t.Errorf("want %q; tour output:\n%s", strings.TrimSpace(line), out)
				}
			}
			if runAs != nil && !strings.Contains(out, fmt.Sprintf("uid=%d gid=%d groups=[]", runAs.UID, runAs.GID)) {
				t.Errorf("the tour does not run as %s with no supplementary group:\n%s", runAs.Name, out)
			}
			state := filepath.Join(c.srv.cfg.StateDir, "users", "alice")
			if b, err := os.ReadFile(filepath.Join(state, "probe")); err != nil || string(b) != "x" {
				t.Errorf("progress written through the handed descriptor: %q %v", b, err)
			}
			ran, _ := filepath.Glob(filepath.Join(marks, "ran.*"))
			if (len(ran) > 0) != (tc.want(probes[1]) == ok) {
				t.Errorf("the fake program ran %d times", len(ran))
			}
			for _, r := range ran {
				os.Remove(r)
			}
			wantLog := "sandbox: no sandbox ("
			switch {
			case layers.Landlock && layers.NoExec:
				wantLog = fmt.Sprintf("sandbox: Landlock ABI %d + seccomp (applied in ", min(support.LandlockABI, 7))
			case layers.Landlock:
				wantLog = fmt.Sprintf("sandbox: Landlock ABI %d (applied in ", min(support.LandlockABI, 7))
			case layers.NoExec:
				wantLog = "sandbox: seccomp (applied in "
			}
			fmt.Fprint(cs.in, "q")
			cs.wait(t, bound)
			if !strings.Contains(c.log.String(), wantLog) {
				t.Errorf("class log lacks %q:\n%s", wantLog, c.log)
			}
		})
	}
}

// TestSessionPorts: the ports given to running tours are distinct and free, and given again
// only once released.
func TestSessionPorts(t *testing.T) {
	c := &confinement{ports: map[int]bool{}}
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ports, err := c.sessionPorts()
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, p := range ports {
				if seen[p] || p == 0 {
					t.Errorf("port %d given twice (or 0)", p)
				}
				seen[p] = true
			}
		}()
	}
	wg.Wait()
	if len(c.ports) != 60 {
		t.Errorf("%d ports held, want 60", len(c.ports))
	}
	var all [3]int
	for p := range seen {
		all[0] = p
		c.releasePorts(all)
	}
	if len(c.ports) != 0 {
		t.Errorf("%d ports still held after release", len(c.ports))
	}
}

// TestChownTree: the progress directory and what is in it become the run-as user's; a symbolic
// link (and what it points to) and a file with a second hard link are left alone.
func TestChownTree(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("chown needs root; the class does this only as root")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "users", "ana")
	os.MkdirAll(filepath.Join(dir, "kubewalk", "deep"), 0o700)
	os.WriteFile(filepath.Join(dir, "kubewalk", "progress.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(dir, "kubewalk", "deep", "f"), nil, 0o600)
	target := filepath.Join(root, "root-owned")
	os.WriteFile(target, nil, 0o600)
	os.Symlink(target, filepath.Join(dir, "link"))
	linked := filepath.Join(root, "linked")
	os.WriteFile(linked, nil, 0o600)
	os.Link(linked, filepath.Join(dir, "hardlink"))
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := chownTree(fd, 4242, 4343, 0); err != nil {
		t.Fatal(err)
	}
	owner := func(p string) string {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%d:%d", st.Uid, st.Gid)
	}
	for p, want := range map[string]string{
		dir: "4242:4343", filepath.Join(dir, "kubewalk"): "4242:4343", filepath.Join(dir, "kubewalk", "progress.json"): "4242:4343",
		filepath.Join(dir, "kubewalk", "deep", "f"): "4242:4343",
		filepath.Join(dir, "link"):                  "0:0", target: "0:0", linked: "0:0",
	} {
		if got := owner(p); got != want {
			t.Errorf("%s owned by %s, want %s", p, got, want)
		}
	}
}

// TestNewConfinementBadInput: --run-as root, a sessions' directory the run-as user cannot
// reach, a bad --sandbox value and a follow address without a port are refused with an error
// that names the flag.
func TestNewConfinementBadInput(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	private := t.TempDir() // 0700
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"run as root", Config{RunAs: &RunAs{Name: "root"}}, "--run-as root: the students' tours must not run as root"},
		{"bad sandbox mode", Config{Sandbox: "on"}, `--sandbox "on": want auto`},
		{"follow without a port", Config{Follow: &Follow{Addr: "192.168.1.20", Code: "x"}}, `follow "192.168.1.20": the class host's address must be HOST:PORT`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Executable, cfg.TempDir = exe, os.TempDir()
			if _, err := newConfinement(cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	if r := nobody(t); r != nil {
		_, err := newConfinement(Config{RunAs: r, Executable: exe, TempDir: private})
		if err == nil || !strings.Contains(err.Error(), "--run-as nobody: the sessions' directories go in "+private+", which "+filepath.Dir(private)+" cannot enter (mode 0700); set TMPDIR") {
			t.Errorf("unreachable temp dir: %v", err)
		}
	}
	if _, err := newConfinement(Config{Sandbox: sandbox.Require, Executable: exe, TempDir: os.TempDir()}); err != nil {
		t.Errorf("--sandbox require on this kernel (%s): %v", sandbox.Probe(), err)
	}
	_ = context.Background
}
