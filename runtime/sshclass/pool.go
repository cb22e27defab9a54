package sshclass

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
	"github.com/kubewalk/kubewalk/runtime/sshclass/sparewait"
)

// Every session's tour is one process of the kubewalk binary, and the class server is its
// supervisor (the role `kubewalk tour` otherwise gives a second process of its own, see
// runtime/cli/supervisor). The process is started as a *spare*: with the class server's end
// of a socket pair as its only way in, a temporary directory and a pseudo-terminal of its own,
// it runs Go's package initialisation (kubectl's options, client-go's and the apiserver's
// schemes: ~0.1–0.2 CPU-seconds for this 190 MB binary), returns the heap it no longer needs
// to the system, says "ready" and blocks reading the socket (~12 MB of its own). With
// Config.LeanSpares it says "ready" and waits before the initialisation, from an init function
// (runtime/sshclass/sparewait): ~1.5 MB of its own, but the initialisation is then paid after
// the handover, while the student waits. A session hands it what is session-specific — the
// arguments, the environment, the directory — and the spare then runs that command exactly as
// if it had been started with it; from then on the socket carries the supervisor protocol (log
// path, terminal state, notes, exit code; see runtime/cli/supervisor).
//
// With Config.Warm > 0 the class keeps that many spares started ahead of arrivals, so a
// student's tour starts without paying for a process start; without one ready a session
// starts a spare on arrival and hands over at once (a cold start: the same path, slower).
//
// The handover is authenticated by construction: the socket is inherited from the class
// server, which holds the only other end, and the spare checks that its peer is its parent.
// The environment variable SpareEnv only names the inherited descriptor; setting it on another
// process gives that process nothing to talk to.

// SpareEnv names a spare's end of its socket pair (a descriptor number). It is read and removed
// from the environment by AwaitHandover.
const SpareEnv = sparewait.Env

// spareExeEnv names the descriptor of the binary a spare was executed through (when it runs as
// another user, who may not reach the binary by its path); AwaitHandover closes it.
const spareExeEnv = sparewait.ExeEnv

// Handover is what a session gives a spare: the command line (without the program name), the
// whole environment, the working directory, the directories sent along as descriptors and the
// sandbox to apply before running the command.
type Handover struct {
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// Dirs describe, in order, the directory descriptors sent with the handover (SCM_RIGHTS):
	// directories the tour may not reach by their path (it runs as another user than the class).
	Dirs []HandedDir `json:"dirs,omitempty"`
	// Sandbox is applied once the environment is in place, before the command runs; the
	// handed directories are added to it.
	Sandbox sandbox.Spec `json:"sandbox"`
}

// HandedDir is a directory handed to a spare as a descriptor: the spare names it
// /proc/self/fd/N in the environment variable Env and allows it in its sandbox, read-only or
// read-write.
type HandedDir struct {
	Env   string `json:"env"`
	Write bool   `json:"write,omitempty"`
}

// maxHandover bounds the handover line a spare reads; maxHandedDirs the descriptors sent with it.
const (
	maxHandover   = sparewait.MaxHandover
	maxHandedDirs = sparewait.MaxHandedDirs
)

// AwaitHandover is the spare's side. If the process was started as a spare (SpareEnv is set),
// it says "ready" on the socket and blocks until the class server hands a session over (in
// kubewalk this was done before the libraries initialised, see runtime/sshclass/sparewait,
// and AwaitHandover takes what was received); it then
// replaces the environment with the session's (os.Clearenv, os.Setenv), points the variables
// of the handed directories at their descriptors, changes to its directory, applies the
// session's sandbox (and reports it: `sandbox "…"`) and returns the Handover, with the socket
// to speak the supervisor protocol on. isSpare is false, and nothing is done, when SpareEnv is
// not set. A nil Handover with isSpare and no error means the class server ended the spare
// (closed its end) before any session came. An error after the sandbox failed leaves the
// process confined as far as it got: the caller must exit.
func AwaitHandover() (h *Handover, conn *os.File, isSpare bool, err error) {
	got, isSpare, err := sparewait.Receive()
	if !isSpare {
		return nil, nil, false, nil
	}
	os.Unsetenv(SpareEnv)
	os.Unsetenv(spareExeEnv)
	if err != nil {
		return nil, nil, true, err
	}
	if got == nil {
		return nil, nil, true, nil
	}
	conn, fds, line := got.Conn, got.FDs, got.Line
	fail := func(err error) (*Handover, *os.File, bool, error) {
		for _, fd := range fds {
			unix.Close(fd)
		}
		conn.Close()
		return nil, nil, true, err
	}
	kind, arg, ok := parseReport(line)
	if !ok || kind != "start" {
		return fail(fmt.Errorf("spare: unexpected message %.40q from the class server", line))
	}
	h = &Handover{}
	if err := json.Unmarshal([]byte(arg), h); err != nil {
		return fail(fmt.Errorf("spare: handover: %w", err))
	}
	if len(fds) != len(h.Dirs) {
		return fail(fmt.Errorf("spare: handover: %d directories described, %d sent", len(h.Dirs), len(fds)))
	}
	os.Clearenv()
	for _, kv := range h.Env {
		if k, val, ok := strings.Cut(kv, "="); ok && k != "" {
			os.Setenv(k, val)
		}
	}
	spec := h.Sandbox
	for i, d := range h.Dirs {
		path := fmt.Sprintf("/proc/self/fd/%d", fds[i])
		if d.Env != "" {
			os.Setenv(d.Env, path)
		}
		if d.Write {
			spec.ReadWrite = append(spec.ReadWrite, path)
		} else {
			spec.ReadOnly = append(spec.ReadOnly, path)
		}
	}
	if h.Dir != "" {
		if err := os.Chdir(h.Dir); err != nil {
			return fail(fmt.Errorf("spare: handover: %w", err))
		}
	}
	began := time.Now()
	applied, err := sandbox.Apply(spec)
	if err != nil {
		conn.Close()
		return nil, nil, true, fmt.Errorf("spare: %w", err)
	}
	took := time.Since(began)
	if _, err := fmt.Fprintf(conn, "sandbox %q\n", fmt.Sprintf("%s (applied in %.2f ms)", applied, took.Seconds()*1000)); err != nil {
		conn.Close()
		return nil, nil, true, fmt.Errorf("spare: report the sandbox: %w", err)
	}
	return h, conn, true, nil
}

// parseReport splits a protocol line `kind "quoted arg"`.
func parseReport(line string) (kind, arg string, ok bool) {
	kind, quoted, found := strings.Cut(line, " ")
	if !found {
		return "", "", false
	}
	arg, err := strconv.Unquote(quoted)
	if err != nil {
		return "", "", false
	}
	return kind, arg, true
}

// spare is a tour process started ahead of its session, seen from the class server.
type spare struct {
	s      *Server
	pid    int
	dir    string   // its temporary directory: cwd, HOME, TMPDIR
	ptmx   *os.File // its terminal's master side
	conn   *os.File // the class server's end of the socket
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process is reaped
	ready  chan struct{} // closed when it said "ready" (its initialisation is done)
	read   chan struct{} // closed when its end of the socket closed
	taken  chan struct{} // closed when a session took it

	mu      sync.Mutex
	ports   [3]int // the ports given to its tour (confinement.sessionPorts), held until it exits
	gone    bool   // it exited: ports are released
	logPath string
	tui     bool // the full-screen UI holds the terminal
	notes   []string
	exitRep bool // it reported its exit code: it ended on purpose
}

// spareEnv is a spare's environment until its handover: the per-process values it keeps
// (PATH, its directory as HOME, TMPDIR and XDG_RUNTIME_DIR, Config.Env), and deliberately
// neutral values for what each session sets (TERM=dumb, LANG=C, no XDG_STATE_HOME), so that
// anything read from the environment before the handover and kept would show in the tests.
func (s *Server) spareEnv(dir string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := []string{"PATH=" + path, "HOME=" + dir, "TMPDIR=" + dir, "XDG_RUNTIME_DIR=" + dir,
		"TERM=dumb", "LANG=C", SpareEnv + "=3"}
	if s.confine.exe != nil {
		env = append(env, spareExeEnv+"=4")
	}
	if s.cfg.LeanSpares {
		env = append(env, sparewait.ParkEnv+"=1")
	}
	return append(env, s.cfg.Env...)
}

// startSpare starts a tour process in a new temporary directory on a new terminal, as the
// leader of its own session and process group, with its end of a new socket pair as fd 3.
// With Config.RunAs it runs as that user, with no supplementary group, in a directory that
// user owns, executed through a descriptor of the binary (fd 4): the user may not be able to
// reach the binary by its path (go run builds under a private directory, an install under
// /root).
func (s *Server) startSpare() (*spare, error) {
	dir, err := os.MkdirTemp(s.cfg.TempDir, "kubewalk-ssh-")
	if err != nil {
		return nil, fmt.Errorf("temp dir: %w", err)
	}
	fail := func(err error) (*spare, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	runAs := s.confine.runAs
	if runAs != nil {
		if err := os.Chown(dir, runAs.UID, runAs.GID); err != nil {
			return fail(fmt.Errorf("temp dir: give it to %s: %w", runAs.Name, err))
		}
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		return fail(fmt.Errorf("pseudo-terminal: %w", err))
	}
	_ = pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 80})
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		ptmx.Close()
		tty.Close()
		return fail(fmt.Errorf("socket pair: %w", err))
	}
	conn := os.NewFile(uintptr(fds[0]), "kubewalk-spare")
	childEnd := os.NewFile(uintptr(fds[1]), "kubewalk-class")
	cmd := exec.Command(s.cfg.Executable)
	cmd.Env = s.spareEnv(dir)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.ExtraFiles = []*os.File{childEnd} // fd 3
	// Its own session with the pty as controlling terminal: Ctrl-C, Ctrl-Z and SIGWINCH reach
	// the tour's foreground process group only, and the group can be ended as a whole.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if runAs != nil {
		cmd.Path = "/proc/self/fd/4" // the child's own fd 4: the binary
		cmd.ExtraFiles = append(cmd.ExtraFiles, s.confine.exe)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(runAs.UID), Gid: uint32(runAs.GID), Groups: []uint32{}}
	}
	err = s.reaper.start(func() (int, error) {
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	})
	tty.Close()
	childEnd.Close()
	if err != nil {
		ptmx.Close()
		conn.Close()
		return fail(fmt.Errorf("start %s: %w", s.cfg.Executable, err))
	}
	sp := &spare{s: s, pid: cmd.Process.Pid, dir: dir, ptmx: ptmx, conn: conn, cmd: cmd,
		exited: make(chan struct{}), ready: make(chan struct{}), read: make(chan struct{}), taken: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		s.reaper.untrack(sp.pid)
		sp.mu.Lock()
		sp.gone = true
		if sp.ports != ([3]int{}) {
			s.confine.releasePorts(sp.ports)
		}
		sp.mu.Unlock()
		close(sp.exited)
	}()
	go sp.readReports()
	return sp, nil
}

// readReports records what the process says on the socket until its end closes.
func (sp *spare) readReports() {
	defer close(sp.read)
	sc := bufio.NewScanner(sp.conn)
	ready := false
	for sc.Scan() {
		kind, arg, ok := parseReport(sc.Text())
		if !ok {
			continue
		}
		sp.mu.Lock()
		switch kind {
		case "ready":
			if !ready {
				ready = true
				close(sp.ready)
			}
		case "log":
			sp.logPath = arg
		case "tui":
			sp.tui = arg == "1"
		case "note":
			if len(sp.notes) < 16 {
				sp.notes = append(sp.notes, arg)
			}
		case "exit":
			sp.exitRep = true
		case "sandbox":
			sp.s.logf("tour %d: sandbox: %s", sp.pid, arg)
		}
		sp.mu.Unlock()
	}
	// A line too long for the scanner ends the reports, not the reading: the process must
	// never block writing to a socket nobody reads.
	_, _ = io.Copy(io.Discard, sp.conn)
}

// holdPorts records the ports given to the spare's tour, released when it exits (at once if
// it has exited already).
func (sp *spare) holdPorts(ports [3]int) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.gone {
		sp.s.confine.releasePorts(ports)
		return
	}
	sp.ports = ports
}

// handover gives the spare its session, with dirs (described by h.Dirs) sent along: the first
// byte of the message carries them.
func (sp *spare) handover(h Handover, dirs []*os.File) error {
	if len(dirs) != len(h.Dirs) || len(dirs) > maxHandedDirs {
		return fmt.Errorf("handover: %d directories described, %d to send", len(h.Dirs), len(dirs))
	}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	msg := []byte(fmt.Sprintf("start %q\n", b))
	fds := make([]int, len(dirs))
	for i, d := range dirs {
		fds[i] = int(d.Fd())
	}
	rc, err := sp.conn.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Write(func(fd uintptr) bool {
		serr = unix.Sendmsg(int(fd), msg[:1], unix.UnixRights(fds...), nil, 0)
		return serr != unix.EAGAIN
	}); err != nil {
		return err
	}
	runtime.KeepAlive(dirs)
	if serr != nil {
		return serr
	}
	_, err = sp.conn.Write(msg[1:])
	return err
}

// alive reports whether the process has not exited.
func (sp *spare) alive() bool {
	select {
	case <-sp.exited:
		return false
	default:
		return true
	}
}

// discard ends a spare that no session uses — closing its socket makes a waiting spare exit —
// and removes its directory.
func (s *Server) discard(sp *spare) {
	sp.conn.Close()
	s.stopGroup(sp.pid, sp.exited)
	sp.ptmx.Close()
	<-sp.read
	if err := removeAll(sp.dir); err != nil {
		s.logf("spare %d: could not remove %s: %v", sp.pid, sp.dir, err)
	}
}

// removeAll removes dir and checks that it is gone.
func removeAll(dir string) error {
	err := os.RemoveAll(dir)
	if _, serr := os.Lstat(dir); err == nil && !errors.Is(serr, os.ErrNotExist) {
		err = fmt.Errorf("still there after removal (%v)", serr)
	}
	return err
}

// Refill pacing: a spare costs ~0.2 CPU-seconds to start (a lean one almost nothing), which
// must not be taken from students whose tours are starting. The pool starts one spare at a time, and only once no
// session took a spare for refillQuiet.
const (
	refillQuiet   = time.Second
	spareReadyMax = time.Minute // a spare not ready within this is ended (and another tried)
	retryMin      = time.Second // after a spare failed to start, doubling up to retryMax
	retryMax      = time.Minute
)

// pool keeps up to want spares ready, never more than the free session slots.
type pool struct {
	s    *Server
	want int

	mu       sync.Mutex
	ready    []*spare // oldest first
	closed   bool
	lastTake time.Time

	kick    chan struct{} // wakes the filler: a spare was taken or died, a slot was freed
	stop    chan struct{} // closed by close
	done    chan struct{} // closed when the filler returned
	started sync.Once
	watches sync.WaitGroup
}

func newPool(s *Server, want int) *pool {
	return &pool{s: s, want: want, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// start starts the filler (once).
func (p *pool) start() { p.started.Do(func() { go p.fill() }) }

// wake tells the filler to look again.
func (p *pool) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// count is the number of spares ready.
func (p *pool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ready)
}

// target is how many spares to keep now: want, but no more than the free session slots.
func (p *pool) target() int {
	return min(p.want, p.s.cfg.MaxSessions-len(p.s.slots))
}

// take returns a ready spare (the oldest), or nil if none is.
func (p *pool) take() *spare {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.ready) > 0 {
		sp := p.ready[0]
		p.ready = p.ready[1:]
		if !sp.alive() {
			continue // its watcher removes it
		}
		close(sp.taken)
		p.lastTake = time.Now()
		p.wake()
		return sp
	}
	return nil
}

// fill keeps the pool at its target, starting one spare at a time, until close.
func (p *pool) fill() {
	defer close(p.done)
	retry := retryMin
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		need := len(p.ready) < p.target()
		quiet := refillQuiet - time.Since(p.lastTake)
		p.mu.Unlock()
		var wait time.Duration // 0: until kicked
		switch {
		case !need:
		case quiet > 0:
			wait = quiet
		default:
			if p.startOne() {
				retry = retryMin
				continue
			}
			wait = retry
			retry = min(2*retry, retryMax)
		}
		if !p.pause(wait) {
			return
		}
	}
}

// pause waits until the filler is kicked or, if d > 0, d has passed; false once the pool closes.
func (p *pool) pause(d time.Duration) bool {
	var after <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		after = t.C
	}
	select {
	case <-p.stop:
		return false
	case <-p.kick:
	case <-after:
	}
	return true
}

// startOne starts a spare and adds it to the pool once it is ready; false if it failed.
func (p *pool) startOne() bool {
	s := p.s
	sp, err := s.startSpare()
	if err != nil {
		s.logf("warm spare: %v", err)
		return false
	}
	t := time.NewTimer(spareReadyMax)
	defer t.Stop()
	select {
	case <-sp.ready:
	case <-sp.exited:
		s.logf("warm spare %d: exited before it was ready (%s)", sp.pid, sp.cmd.ProcessState)
		s.discard(sp)
		return false
	case <-t.C:
		s.logf("warm spare %d: not ready within %s; ended", sp.pid, spareReadyMax)
		s.discard(sp)
		return false
	case <-p.stop:
		s.discard(sp)
		return true
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		s.discard(sp)
		return true
	}
	p.ready = append(p.ready, sp)
	p.watches.Add(1)
	p.mu.Unlock()
	go p.watch(sp)
	return true
}

// watch replaces a spare that exits while it waits.
func (p *pool) watch(sp *spare) {
	defer p.watches.Done()
	select {
	case <-sp.taken:
		return
	case <-p.stop:
		return // close ends it
	case <-sp.exited:
	}
	p.mu.Lock()
	for i, r := range p.ready {
		if r == sp {
			p.ready = append(p.ready[:i:i], p.ready[i+1:]...)
			break
		}
	}
	p.mu.Unlock()
	select {
	case <-sp.taken:
		return // taken just as it died: the session's handover fails and it starts another
	default:
	}
	p.s.logf("warm spare %d: exited while waiting (%s); replacing it", sp.pid, sp.cmd.ProcessState)
	p.s.discard(sp)
	p.wake()
}

// close stops the filler and ends every spare waiting (all at once: each within StopBound),
// removing their directories.
func (p *pool) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.done
		return
	}
	p.closed = true
	spares := p.ready
	p.ready = nil
	p.mu.Unlock()
	close(p.stop)
	p.start() // so that done is closed even if the filler never ran
	<-p.done
	p.watches.Wait()
	var wg sync.WaitGroup
	for _, sp := range spares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.s.discard(sp)
		}()
	}
	wg.Wait()
}

// keptLogPath is the log a spare reported, if it lies in its directory, else the usual one.
func (sp *spare) keptLogPath() string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if p := sp.logPath; p != "" && strings.HasPrefix(filepath.Clean(p), sp.dir+string(filepath.Separator)) {
		return p
	}
	return filepath.Join(sp.dir, "kubewalk.log")
}
