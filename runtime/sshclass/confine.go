package sshclass

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

// A student's tour is confined by three layers, each of which holds without the others
// (docs/classroom.md, "Threat model over SSH"):
//
//  1. the allow-list: the tour's kubectl runs only listed commands and flags
//     (--kubectl-no-local-files);
//  2. no new programs: EDITOR, KUBE_EDITOR, VISUAL, PAGER and KUBECTL_EXTERNAL_DIFF name no
//     program, kubectl refuses exec credential plugins (--kubectl-no-exec-plugins), and a
//     seccomp filter answers EPERM to execve — the tour never starts another program;
//  3. only its own files and ports: Landlock lets the tour read what it needs (the Go module
//     cache for u and s, the time zone), write its session directory and its progress
//     directory, bind its own server's three ports and connect to those and the class host's.
//
// and, started as root, the class runs every tour as an unprivileged user (Config.RunAs).
// The spare applies layers 2 and 3 after the handover and before it runs the tour, before any
// student key is read (see AwaitHandover).

// Layers says which of a student's layers are on. The zero Config has all three; turning one
// off is for tests that show each holds alone.
type Layers struct {
	// AllowList passes --kubectl-no-local-files; off, --kubectl-unguarded where the tour has it.
	AllowList bool
	// NoExec sets the refusing editor variables, passes --kubectl-no-exec-plugins where the
	// tour has it, and (unless the sandbox is off) installs the seccomp filter.
	NoExec bool
	// Landlock restricts the tour's files, ports and IPC (unless the sandbox is off).
	Landlock bool
}

// AllLayers has every layer on.
func AllLayers() Layers { return Layers{AllowList: true, NoExec: true, Landlock: true} }

// String names the layers that are on.
func (l Layers) String() string {
	var on []string
	if l.AllowList {
		on = append(on, "allow-list")
	}
	if l.NoExec {
		on = append(on, "no-exec")
	}
	if l.Landlock {
		on = append(on, "landlock")
	}
	if len(on) == 0 {
		return "none"
	}
	return strings.Join(on, "+")
}

// RunAs is the unprivileged user every tour runs as.
type RunAs struct {
	Name     string
	UID, GID int
}

// The tour's flags that class ssh passes only when the tour has them (they may come from a
// newer or older kubewalk than this code was written against; see TourHasFlag).
const (
	flagUnguarded     = "kubectl-unguarded"
	flagNoExecPlugins = "kubectl-no-exec-plugins"
)

// SandboxInfo says how the class confines its students' tours, for its banner.
type SandboxInfo struct {
	Mode    sandbox.Mode
	Support sandbox.Support
	Layers  Layers
	// Landlock and Seccomp report whether those layers are applied to every tour.
	Landlock, Seccomp bool
	// Missing says what auto mode goes without ("" when nothing is missing, or the mode is off).
	Missing string
	// RunAs is the user the tours run as ("" for the class's own user).
	RunAs string
	// ModCache is the Go module cache the tours read (u, s); "" if none was found.
	ModCache string
}

// confinement is the class's part of the layers: it checks them at start and, per session,
// chooses the tour's ports and builds its sandbox.
type confinement struct {
	info        SandboxInfo
	hasFlag     func(string) bool
	runAs       *RunAs
	exe         *os.File // the binary, opened by the class, executed by its descriptor (RunAs)
	modCache    *os.File // the module cache, handed to every tour; nil if there is none
	followPort  uint16
	followNamed bool // the class host is named, not numbered: the tour resolves its name

	mu    sync.Mutex
	ports map[int]bool // the ports given to the running tours
}

// newConfinement checks cfg's run-as user, sandbox mode and module cache. cfg.Executable and
// cfg.TempDir are set.
func newConfinement(cfg Config) (*confinement, error) {
	mode := cfg.Sandbox
	if mode == "" {
		mode = sandbox.Auto
	}
	if _, err := sandbox.ParseMode(string(mode)); err != nil {
		return nil, fmt.Errorf("--sandbox %w", err)
	}
	layers := AllLayers()
	if cfg.Layers != nil {
		layers = *cfg.Layers
	}
	c := &confinement{hasFlag: cfg.TourHasFlag, runAs: cfg.RunAs, ports: map[int]bool{}}
	if c.hasFlag == nil {
		c.hasFlag = func(string) bool { return false }
	}
	support := sandbox.Probe()
	c.info = SandboxInfo{Mode: mode, Support: support, Layers: layers}
	switch mode {
	case sandbox.Require:
		if m := support.Missing(); m != "" {
			return nil, fmt.Errorf("--sandbox require: this kernel has no %s; run the class on one that has (Linux ≥ 6.7 with landlock in its lsm= boot list), or pass --sandbox auto to go without", m)
		}
		c.info.Landlock, c.info.Seccomp = layers.Landlock, layers.NoExec
	case sandbox.Auto:
		c.info.Landlock, c.info.Seccomp = layers.Landlock && support.Landlock(), layers.NoExec && support.Seccomp
		c.info.Missing = support.Missing()
	}
	if f := cfg.Follow; f != nil {
		host, port, err := net.SplitHostPort(f.Addr)
		n, perr := strconv.ParseUint(port, 10, 16)
		if err != nil || perr != nil || n == 0 {
			return nil, fmt.Errorf("follow %q: the class host's address must be HOST:PORT with a port number, as on its join line", f.Addr)
		}
		c.followPort = uint16(n)
		c.followNamed = net.ParseIP(host) == nil
	}
	if err := c.checkRunAs(cfg); err != nil {
		return nil, err
	}
	if dir := cfg.ModCache; dir != "" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				c.close()
				return nil, fmt.Errorf("class ssh: the Go module cache %s: %w", dir, err)
			}
			c.modCache = f
			c.info.ModCache = dir
		}
	}
	return c, nil
}

// checkRunAs refuses root and a user this process cannot switch to, checks the user can
// execute the binary and reach the sessions' directories, and opens the binary.
func (c *confinement) checkRunAs(cfg Config) error {
	r := cfg.RunAs
	if r == nil {
		return nil
	}
	if r.UID == 0 {
		return fmt.Errorf("--run-as %s: the students' tours must not run as root; name an unprivileged user (nobody, or a dedicated one)", r.Name)
	}
	if r.UID < 0 || r.GID < 0 {
		return fmt.Errorf("--run-as %s: no user and group IDs", r.Name)
	}
	if os.Geteuid() != 0 && r.UID != os.Geteuid() {
		return fmt.Errorf("--run-as %s: only root can run the tours as another user; run the class as %s, or leave --run-as out to run them as yourself", r.Name, r.Name)
	}
	if os.Geteuid() != 0 {
		c.runAs = nil // the class's own user already
		return nil
	}
	c.info.RunAs = r.Name
	if err := reachable(cfg.TempDir, r); err != nil {
		return fmt.Errorf("--run-as %s: the sessions' directories go in %s, %w; set TMPDIR to a directory every user can traverse, such as /tmp", r.Name, cfg.TempDir, err)
	}
	exe, err := os.OpenFile(cfg.Executable, os.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("class ssh: open the kubewalk binary: %w", err)
	}
	fi, err := exe.Stat()
	if err != nil || !fi.Mode().IsRegular() || !permits(fi, r, 0o1) {
		exe.Close()
		return fmt.Errorf("--run-as %s: %s is not a program %s may execute (mode %04o)", r.Name, cfg.Executable, r.Name, modeOf(fi).Perm())
	}
	c.exe = exe
	return nil
}

func modeOf(fi os.FileInfo) os.FileMode {
	if fi == nil {
		return 0
	}
	return fi.Mode()
}

// permits reports whether the mode bits of fi give user r the access in bits (1 execute or
// search, 4 read), as owner, group or other (no supplementary groups: spares have none).
func permits(fi os.FileInfo, r *RunAs, bits os.FileMode) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	perm := fi.Mode().Perm()
	switch {
	case int(st.Uid) == r.UID:
		return perm>>6&bits == bits
	case int(st.Gid) == r.GID:
		return perm>>3&bits == bits
	}
	return perm&bits == bits
}

// reachable checks that user r may search every directory from / down to dir.
func reachable(dir string, r *RunAs) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if !permits(fi, r, 0o1) {
			return fmt.Errorf("which %s cannot enter (mode %04o)", p, fi.Mode().Perm())
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// close releases the binary and the module cache.
func (c *confinement) close() {
	if c.exe != nil {
		c.exe.Close()
	}
	if c.modCache != nil {
		c.modCache.Close()
	}
}

// sessionPorts chooses three loopback ports for a tour — its apiserver's, its etcd's client
// and peer ports — that no other running tour was given: free now (bound to :0 and released,
// as the server's own freePort does), then held for the tour until releasePorts.
func (c *confinement) sessionPorts() ([3]int, error) {
	var ports [3]int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	c.mu.Lock()
	defer c.mu.Unlock()
	for n := 0; n < len(ports); {
		if len(held) > 64 {
			return ports, errors.New("no free loopback ports for the tour's server")
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return ports, fmt.Errorf("ports for the tour's server: %w", err)
		}
		held = append(held, l) // kept open until all three are chosen: they differ
		p := l.Addr().(*net.TCPAddr).Port
		if c.ports[p] {
			continue
		}
		ports[n] = p
		n++
	}
	for _, p := range ports {
		c.ports[p] = true
	}
	return ports, nil
}

// releasePorts makes a tour's ports available to later tours (its process has exited).
func (c *confinement) releasePorts(ports [3]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range ports {
		delete(c.ports, p)
	}
}

// spec is the sandbox of the tour in dir with ports; the directories handed over as
// descriptors are added by the spare.
func (c *confinement) spec(dir string, ports [3]int) sandbox.Spec {
	spec := sandbox.Spec{Landlock: c.info.Landlock, Seccomp: c.info.Seccomp, Require: c.info.Mode == sandbox.Require}
	if !spec.Landlock {
		return spec
	}
	// What a tour reads besides its session and progress directories and the module cache
	// (found by running it under strace with nothing else allowed): the time zone, and its own
	// descriptors' list (etcd counts them; the entries lead nowhere a rule does not allow).
	// Lessons, their source and the server's are in the binary. Left denied, harmlessly:
	// /proc/stat, /proc/self/stat and /sys/devices/system/cpu/online (etcd's metrics),
	// /proc/sys/net/core/somaxconn (Go's listen backlog falls back), the PATH directories
	// (kubectl's plugin lookup).
	spec.ReadOnly = []string{"/etc/localtime", "/usr/share/zoneinfo", "/proc/self/fd"}
	if c.followNamed {
		spec.ReadOnly = append(spec.ReadOnly, "/etc/hosts", "/etc/resolv.conf", "/etc/nsswitch.conf", "/etc/host.conf")
	}
	spec.ReadWrite = []string{dir, os.DevNull}
	for _, p := range ports {
		spec.BindTCP = append(spec.BindTCP, uint16(p))
		spec.ConnectTCP = append(spec.ConnectTCP, uint16(p))
	}
	if c.followPort != 0 {
		spec.ConnectTCP = append(spec.ConnectTCP, c.followPort)
	}
	return spec
}

// userDir prepares the progress directory state of a session for the tour: owned by the
// run-as user (what is in it too), and opened, to be handed over — the tour may not be able
// to reach it by its path (it lies under the class's state directory).
func (c *confinement) userDir(state string) (*os.File, error) {
	fd, err := unix.Open(state, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("progress dir %s: %w", state, err)
	}
	if c.runAs != nil {
		if err := chownTree(fd, c.runAs.UID, c.runAs.GID, 0); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("progress dir %s: give it to %s: %w", state, c.runAs.Name, err)
		}
	}
	return os.NewFile(uintptr(fd), state), nil
}

// chownTree gives the directory dirfd and everything beneath it to uid:gid, through
// descriptors only (a name replaced meanwhile by a symbolic link is never followed), leaving
// alone symbolic links, anything with more than one hard link (it could be someone else's
// file) and what lies deeper than 8 levels.
func chownTree(dirfd, uid, gid, depth int) error {
	var st unix.Stat_t
	if err := unix.Fstat(dirfd, &st); err != nil {
		return err
	}
	if int(st.Uid) != uid || int(st.Gid) != gid {
		if err := unix.Fchown(dirfd, uid, gid); err != nil {
			return err
		}
	}
	if depth >= 8 {
		return nil
	}
	// Read the names through a duplicate: os.File.Close would close dirfd.
	dup, err := unix.Dup(dirfd)
	if err != nil {
		return err
	}
	unix.CloseOnExec(dup)
	d := os.NewFile(uintptr(dup), "")
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, name := range names {
		fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone meanwhile
		}
		err = chownEntry(fd, name, dirfd, uid, gid, depth)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// chownEntry gives one entry (opened O_PATH) to uid:gid: a directory with its contents, a
// regular file with one link; nothing else.
func chownEntry(fd int, name string, parent, uid, gid, depth int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		sub, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(sub)
		var st2 unix.Stat_t
		if err := unix.Fstat(sub, &st2); err != nil || st2.Ino != st.Ino || st2.Dev != st.Dev {
			return nil // replaced meanwhile
		}
		return chownTree(sub, uid, gid, depth+1)
	case unix.S_IFREG:
		if st.Nlink != 1 || (int(st.Uid) == uid && int(st.Gid) == gid) {
			return nil
		}
		return unix.Fchownat(fd, "", uid, gid, unix.AT_EMPTY_PATH)
	}
	return nil
}

// ResolveModCache finds the Go module cache the class hands its tours: $GOMODCACHE, else `go
// env GOMODCACHE`, else $GOPATH/pkg/mod, else ~/go/pkg/mod; "" if none of them exists.
func ResolveModCache() string {
	var candidates []string
	if v := os.Getenv("GOMODCACHE"); v != "" {
		candidates = append(candidates, v)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output(); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	}
	if gp := filepath.SplitList(os.Getenv("GOPATH")); len(gp) > 0 && gp[0] != "" {
		candidates = append(candidates, filepath.Join(gp[0], "pkg", "mod"))
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		candidates = append(candidates, filepath.Join(home, "go", "pkg", "mod"))
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() && filepath.IsAbs(c) {
			return c
		}
	}
	return ""
}
