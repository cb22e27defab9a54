package sshclass

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/term"
)

// fakeTourEnv, in a session's environment (Config.Env), makes this test binary play the tour: a
// small program on the session's terminal whose behaviour the tests can see and steer. The
// real tour runs in the end-to-end tests (e2e_test.go); these tests are about the SSH server.
const fakeTourEnv = "SSHCLASS_FAKE_TOUR"

func TestMain(m *testing.M) {
	if mode := os.Getenv(fakeTourEnv); mode != "" {
		os.Exit(fakeTour(mode))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// fakeTour waits for its handover as a spare, then reports its arguments, environment, the
// directories handed to it, its user and terminal size, then in raw mode reads keys:
// q exits 0, c panics, any other key is echoed as "key=K". SIGWINCH reports the new size.
// Mode "probe" first tries what probeEnv lists (see runProbes) and reports each outcome.
// Mode "stubborn" ignores SIGTERM and SIGHUP and starts a grandchild (mode "sleeper") in its
// process group that ignores them too and never exits.
func fakeTour(mode string) int {
	out := os.Stdout
	if mode == "sleeper" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		select {}
	}
	// Started as a spare, like the real tour: wait for the session.
	args := os.Args[1:]
	if h, _, isSpare, err := AwaitHandover(); isSpare {
		if err != nil {
			fmt.Fprintf(out, "handover: %v\r\n", err)
			return 1
		}
		if h == nil {
			return 0
		}
		args = h.Args
	}
	w, h, _ := term.GetSize(0)
	cwd, _ := os.Getwd()
	fmt.Fprintf(out, "fake tour pid=%d args=%q\r\n", os.Getpid(), args)
	for _, k := range []string{"TERM", "LANG", "HOME", "TMPDIR", "XDG_STATE_HOME", "XDG_RUNTIME_DIR", "CLASS_SECRET"} {
		fmt.Fprintf(out, "env %s=%s\r\n", k, os.Getenv(k))
	}
	fmt.Fprintf(out, "cwd=%s size=%dx%d\r\n", cwd, w, h)
	for _, k := range []string{"XDG_STATE_HOME", "GOMODCACHE"} {
		if real, err := os.Readlink(os.Getenv(k)); err == nil {
			fmt.Fprintf(out, "dir %s=%s\r\n", k, real)
		}
	}
	fmt.Fprintf(out, "uid=%d gid=%d groups=%v\r\n", os.Getuid(), os.Getgid(), must(os.Getgroups()))
	_ = os.WriteFile(filepath.Join(cwd, "kubewalk.log"), []byte("fake tour log\n"), 0o600)
	if mode == "orphan" {
		// A grandchild in a session of its own, as go's telemetry process puts itself: when
		// this tour exits it is orphaned, and the class server, as subreaper, inherits it.
		exe, _ := os.Executable()
		gc := exec.Command(exe)
		gc.Env = append(os.Environ(), fakeTourEnv+"=sleeper")
		gc.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := gc.Start(); err != nil {
			fmt.Fprintf(out, "grandchild: %v\r\n", err)
			return 1
		}
		fmt.Fprintf(out, "grandchild=%d\r\n", gc.Process.Pid)
	}
	if mode == "probe" {
		runProbes(out, args)
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		exe, _ := os.Executable()
		gc := exec.Command(exe)
		gc.Env = append(os.Environ(), fakeTourEnv+"=sleeper")
		if err := gc.Start(); err != nil {
			fmt.Fprintf(out, "grandchild: %v\r\n", err)
			return 1
		}
		fmt.Fprintf(out, "grandchild=%d\r\n", gc.Process.Pid)
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			w, h, _ := term.GetSize(0)
			fmt.Fprintf(out, "resized=%dx%d\r\n", w, h)
		}
	}()
	if _, err := term.MakeRaw(0); err != nil {
		fmt.Fprintf(out, "raw: %v\r\n", err)
		return 1
	}
	fmt.Fprint(out, "ready\r\n")
	b := make([]byte, 1)
	for {
		if _, err := os.Stdin.Read(b); err != nil {
			return 3
		}
		switch b[0] {
		case 'q':
			fmt.Fprint(out, "bye\r\n")
			return 0
		case 'c':
			panic("fake tour: deliberate crash")
		default:
			fmt.Fprintf(out, "key=%c\r\n", b[0])
		}
	}
}

// syncBuffer collects a session's output for the test to read while it grows.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newClientKey returns a fresh Ed25519 key as a signer and its authorized_keys line.
func newClientKey(t testing.TB) (gossh.Signer, string) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return signer, string(gossh.MarshalAuthorizedKey(signer.PublicKey()))
}

// testClass is a class server on 127.0.0.1 with one authorized key, closed at the end of the test.
type testClass struct {
	srv    *Server
	key    gossh.Signer
	dir    string // holds state/, tmp/, authorized_keys
	log    *syncBuffer
	served chan error
	closed sync.Once
}

// startClass starts a server whose sessions run the fake tour in mode (unless cfg says
// otherwise). cfg's zero fields get test values.
func startClass(t testing.TB, mode string, cfg Config) *testClass {
	t.Helper()
	dir := t.TempDir()
	c := &testClass{dir: dir, log: &syncBuffer{}, served: make(chan error, 1)}
	var line string
	c.key, line = newClientKey(t)
	if cfg.AuthorizedKeys == "" && cfg.PasswordFile == "" {
		cfg.AuthorizedKeys = filepath.Join(dir, "authorized_keys")
		if err := os.WriteFile(cfg.AuthorizedKeys, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.HostKey == "" {
		cfg.HostKey = filepath.Join(dir, "state", "host_key")
	}
	if cfg.StateDir == "" {
		cfg.StateDir = filepath.Join(dir, "state")
	}
	if cfg.TempDir == "" {
		cfg.TempDir = filepath.Join(dir, "tmp")
		if err := os.Mkdir(cfg.TempDir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if cfg.RunAs != nil {
		traversable(t, cfg.TempDir)
	}
	if cfg.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Executable = exe
		cfg.Env = append(cfg.Env, fakeTourEnv+"="+mode)
	}
	cfg.Log = c.log
	srv, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	c.srv = srv
	go func() { c.served <- srv.Serve() }()
	t.Cleanup(func() { c.close(t) })
	return c
}

// traversable lets every user search dir and its parents up to the test's temporary root
// (t.TempDir makes them 0700), as a class running tours as another user needs of the
// sessions' directory.
func traversable(t testing.TB, dir string) {
	t.Helper()
	for p := dir; p != os.TempDir() && p != filepath.Dir(p); p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, fi.Mode().Perm()|0o011); err != nil {
			t.Fatal(err)
		}
	}
}

// nobody is the user a class run as root runs its tours as in these tests (nil otherwise: the
// tours run as the test's user).
func nobody(t testing.TB) *RunAs {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		t.Fatalf("the tests run tours as nobody when run as root: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &RunAs{Name: "nobody", UID: uid, GID: gid}
}

// close stops the server and checks that Serve returned and no session directory is left.
func (c *testClass) close(t testing.TB) {
	t.Helper()
	c.closed.Do(func() { c.doClose(t) })
}

func (c *testClass) doClose(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.srv.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-c.served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("Serve did not return after Close")
	}
	if left, _ := filepath.Glob(filepath.Join(c.srv.cfg.TempDir, "kubewalk-ssh-*")); len(left) > 0 {
		t.Errorf("session directories left: %v\nlog:\n%s", left, c.log)
	}
}

// dial connects as user with the class's key (or the given auth methods).
func (c *testClass) dial(user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	if len(auth) == 0 {
		auth = []gossh.AuthMethod{gossh.PublicKeys(c.key)}
	}
	return gossh.Dial("tcp", c.srv.Addr().String(), &gossh.ClientConfig{
		User:            user,
		Auth:            auth,
		HostKeyCallback: gossh.FixedHostKey(c.srv.signer.PublicKey()),
		Timeout:         10 * time.Second,
	})
}

// clientSession is one SSH session of a test client.
type clientSession struct {
	sess *gossh.Session
	in   io.WriteCloser
	out  *syncBuffer
	done chan error // Wait's result
}

// open starts a session on client: with a w×h terminal unless w is 0, then a shell (the tour)
// or, if cmd is not empty, that command.
func open(t testing.TB, client *gossh.Client, w, h int, env map[string]string, cmd string) *clientSession {
	t.Helper()
	s, err := client.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	for k, v := range env {
		if err := s.Setenv(k, v); err != nil {
			t.Fatalf("setenv %s: %v", k, err)
		}
	}
	if w > 0 {
		if err := s.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
			t.Fatalf("pty: %v", err)
		}
	}
	cs := &clientSession{sess: s, out: &syncBuffer{}, done: make(chan error, 1)}
	s.Stdout, s.Stderr = cs.out, cs.out
	if cs.in, err = s.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if cmd == "" {
		err = s.Shell()
	} else {
		err = s.Start(cmd)
	}
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	go func() { cs.done <- s.Wait() }()
	t.Cleanup(func() { s.Close() })
	return cs
}

// waitOutput waits, within a bound, until the output contains want.
func (cs *clientSession) waitOutput(t testing.TB, want string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if out := cs.out.String(); strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s; output:\n%s", want, within, cs.out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait waits, within a bound, for the session to end and returns its exit status.
func (cs *clientSession) wait(t testing.TB, within time.Duration) int {
	t.Helper()
	select {
	case err := <-cs.done:
		var ee *gossh.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.ExitStatus()
		default:
			t.Fatalf("session: %v; output:\n%s", err, cs.out)
		}
	case <-time.After(within):
		t.Fatalf("session still running %s later; output:\n%s", within, cs.out)
	}
	return -1
}

// waitGone waits, within a bound, until the process is gone and the path does not exist.
func waitGone(t testing.TB, pid int, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_, err := os.Lstat(path)
		alive := pid > 0 && syscall.Kill(pid, 0) == nil
		if errors.Is(err, os.ErrNotExist) && !alive {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("within %s: process %d alive=%v, %s: %v", within, pid, alive, path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitSessions waits, within a bound, until the server runs n sessions, and returns them.
func (c *testClass) waitSessions(t testing.TB, n int, within time.Duration) []SessionInfo {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ss := c.srv.Sessions()
		if len(ss) == n {
			return ss
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions, want %d, after %s; log:\n%s", len(ss), n, within, c.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
