package sshclass

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

const bound = 20 * time.Second // for waits that normally take milliseconds, on a loaded machine

// TestSessionRunsTour connects with an authorized key and checks what the tour gets: its
// arguments, an environment without the class server's variables, the client's locale and
// terminal type, the window size and its changes, keys; q ends the session with status 0 and
// its directory is removed.
func TestSessionRunsTour(t *testing.T) {
	t.Setenv("CLASS_SECRET", "the class server's own environment")
	for _, warm := range []int{0, 1} {
		t.Run(fmt.Sprintf("warm=%d", warm), func(t *testing.T) { testSessionRunsTour(t, warm) })
	}
}

// testSessionRunsTour is TestSessionRunsTour with warm spares (the session is handed to the
// spare after its terminal got the client's size) or without.
func testSessionRunsTour(t *testing.T, warm int) {
	c := startClass(t, "tour", Config{Warm: warm})
	if warm > 0 {
		c.waitWarm(t, warm)
	}
	client, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	cs := open(t, client, 100, 30, map[string]string{"LANG": "zh_CN.UTF-8", "EVIL": "x", "LC_ALL": "bad value;rm"}, "")
	out := cs.waitOutput(t, "ready", bound)
	ss := c.waitSessions(t, 1, bound)
	dir := ss[0].Dir
	state := filepath.Join(c.srv.cfg.StateDir, "users", "alice")
	args := regexp.MustCompile(`args=\["tour" "--kubectl-no-local-files" "--secure-port" "(\d+)" "--etcd-client-port" "(\d+)" "--etcd-peer-port" "(\d+)" "--bind-address" "127.0.0.1" "--kubeconfig" (\S+) "--log-file" (\S+)\]`).FindStringSubmatch(out)
	if args == nil || args[4] != fmt.Sprintf("%q", filepath.Join(dir, "kubeconfig")) || args[5] != fmt.Sprintf("%q", filepath.Join(dir, "kubewalk.log")) ||
		args[1] == args[2] || args[2] == args[3] || args[1] == args[3] {
		t.Errorf("tour arguments (three distinct ports, the session's files):\n%s", out)
	}
	for _, want := range []string{
		"env TERM=xterm-256color", "env LANG=zh_CN.UTF-8", "env HOME=" + dir, "env TMPDIR=" + dir,
		"env XDG_RUNTIME_DIR=" + dir, "env XDG_STATE_HOME=/proc/self/fd/", "dir XDG_STATE_HOME=" + state,
		"cwd=" + dir + " size=100x30",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tour output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "own environment") {
		t.Errorf("the class server's environment reached the tour:\n%s", out)
	}
	if strings.Contains(out, "bad value") {
		t.Errorf("an unsafe LC_ALL from the client reached the tour:\n%s", out)
	}
	if ss[0].User != "alice" || ss[0].PID <= 0 || ss[0].Warm != (warm > 0) {
		t.Errorf("session info %+v", ss[0])
	}
	if err := cs.sess.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	cs.waitOutput(t, "resized=120x40", bound)
	fmt.Fprint(cs.in, "x")
	cs.waitOutput(t, "key=x", bound)
	fmt.Fprint(cs.in, "q")
	cs.waitOutput(t, "bye", bound)
	if code := cs.wait(t, bound); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	waitGone(t, ss[0].PID, dir, bound)
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("user state dir: %v %v", fi, err)
	}
}

// TestAuth checks who gets in: the authorized key, a key added to the file while the class
// runs, and not an unknown key; a file that stops parsing keeps the keys read before.
func TestAuth(t *testing.T) {
	c := startClass(t, "tour", Config{})
	if cl, err := c.dial("alice"); err != nil {
		t.Fatalf("authorized key refused: %v", err)
	} else {
		cl.Close()
	}
	other, otherLine := newClientKey(t)
	if cl, err := c.dial("mallory", gossh.PublicKeys(other)); err == nil {
		cl.Close()
		t.Fatal("unknown key accepted")
	} else if !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := c.dial("alice", gossh.Password("anything-at-all")); err == nil {
		t.Fatal("password accepted by a class that takes keys only")
	}
	if !strings.Contains(c.log.String(), "refused mallory@127.0.0.1") {
		t.Errorf("refusal not logged:\n%s", c.log)
	}
	path := c.srv.cfg.AuthorizedKeys
	b, _ := os.ReadFile(path)
	// A later modification time, whatever the file system's resolution.
	later := time.Now().Add(2 * time.Second)
	if err := os.WriteFile(path, append(b, []byte("# a latecomer\n"+otherLine)...), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, later, later)
	if cl, err := c.dial("bob", gossh.PublicKeys(other)); err != nil {
		t.Fatalf("key added during the class refused: %v", err)
	} else {
		cl.Close()
	}
	if err := os.WriteFile(path, []byte("not a key\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	later = later.Add(2 * time.Second)
	os.Chtimes(path, later, later)
	if cl, err := c.dial("bob", gossh.PublicKeys(other)); err != nil {
		t.Fatalf("a broken file dropped the keys read before: %v", err)
	} else {
		cl.Close()
	}
	if !strings.Contains(c.log.String(), "keeping the previous keys: --authorized-keys "+path+": line 1") {
		t.Errorf("broken file not reported:\n%s", c.log)
	}
}

// TestPasswordAuth checks the class password: right in, wrong out.
func TestPasswordAuth(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte("correct horse battery\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startClass(t, "tour", Config{PasswordFile: pw})
	if cl, err := c.dial("alice", gossh.Password("correct horse battery")); err != nil {
		t.Fatalf("right password refused: %v", err)
	} else {
		cl.Close()
	}
	for _, wrong := range []string{"correct horse", "correct horse battery\n", ""} {
		if cl, err := c.dial("alice", gossh.Password(wrong)); err == nil {
			cl.Close()
			t.Errorf("wrong password %q accepted", wrong)
		}
	}
	if cl, err := c.dial("alice", gossh.PublicKeys(c.key)); err == nil {
		cl.Close()
		t.Error("a key accepted by a class that takes the password only")
	}
}

// TestRefusals checks what is never offered: a command, a session without a terminal, an
// unusable user name, a subsystem, port forwarding.
func TestRefusals(t *testing.T) {
	c := startClass(t, "tour", Config{})
	tests := []struct {
		name, user, cmd string
		pty             bool
		want            string
	}{
		{"command", "alice", "cat /etc/passwd", false, `runs no command ("cat /etc/passwd")`},
		{"command with a terminal", "alice", "sh", true, "runs no command"},
		{"no terminal", "alice", "", false, "the tour needs a terminal"},
		{"user name with a slash", "../etc", "", true, `user name "../etc"`},
		{"user name too long", strings.Repeat("a", 33), "", true, "use 1–32 letters"},
		{"Chinese locale", "bad name", "", true, "用户名"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := c.dial(tt.user)
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			w := 0
			if tt.pty {
				w = 80
			}
			env := map[string]string{}
			if tt.name == "Chinese locale" {
				env["LANG"] = "zh_CN.UTF-8"
			}
			cs := open(t, client, w, 24, env, tt.cmd)
			if code := cs.wait(t, bound); code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			if out := cs.out.String(); !strings.Contains(out, tt.want) || strings.Contains(out, "fake tour") {
				t.Errorf("output %q, want %q and no tour", out, tt.want)
			}
		})
	}
	client, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	s, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestSubsystem("sftp"); err == nil {
		t.Error("sftp subsystem accepted")
	}
	s.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if conn, err := client.Dial("tcp", ln.Addr().String()); err == nil {
		conn.Close()
		t.Error("port forwarding to the class host's loopback accepted")
	}
	if l, err := client.Listen("tcp", "127.0.0.1:0"); err == nil {
		l.Close()
		t.Error("remote port forwarding accepted")
	}
	if n := len(c.srv.Sessions()); n != 0 {
		t.Errorf("%d tours started", n)
	}
}

// TestSessionLimit fills the class, checks that one more is told it is full, and that a slot
// frees when a session ends.
func TestSessionLimit(t *testing.T) {
	c := startClass(t, "tour", Config{MaxSessions: 2})
	client, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	a := open(t, client, 80, 24, nil, "")
	b := open(t, client, 80, 24, nil, "")
	a.waitOutput(t, "ready", bound)
	b.waitOutput(t, "ready", bound)
	third := open(t, client, 80, 24, nil, "")
	if code := third.wait(t, bound); code != 1 {
		t.Errorf("third session: exit status %d, want 1", code)
	}
	if out := third.out.String(); !strings.Contains(out, "the class is full (2 sessions running)") {
		t.Errorf("third session: %q", out)
	}
	fmt.Fprint(a.in, "q")
	a.wait(t, bound)
	c.waitSessions(t, 1, bound)
	// The slot is released once the handler returns, just after the session ends.
	deadline := time.Now().Add(bound)
	for {
		d := open(t, client, 80, 24, nil, "")
		if !strings.Contains(d.waitAny(t, []string{"ready", "class is full"}, bound), "class is full") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no slot freed after a session ended")
		}
		d.wait(t, bound)
	}
}

// waitAny waits, within a bound, for one of wants and returns the output.
func (cs *clientSession) waitAny(t testing.TB, wants []string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		out := cs.out.String()
		for _, w := range wants {
			if strings.Contains(out, w) {
				return out
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("none of %q within %s; output:\n%s", wants, within, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestDroppedConnection closes the TCP connection under a running session: the tour is ended
// and its directory removed, and the other session goes on.
func TestDroppedConnection(t *testing.T) {
	c := startClass(t, "tour", Config{})
	c1, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	c2, err := c.dial("bob")
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	a := open(t, c1, 80, 24, nil, "")
	b := open(t, c2, 80, 24, nil, "")
	a.waitOutput(t, "ready", bound)
	b.waitOutput(t, "ready", bound)
	alice := byUser(t, c.waitSessions(t, 2, bound), "alice")
	c1.Close() // the client vanishes: no channel close, no exit
	waitGone(t, alice.PID, alice.Dir, bound)
	if left := c.waitSessions(t, 1, bound); left[0].User != "bob" {
		t.Errorf("left running: %+v", left)
	}
	fmt.Fprint(b.in, "k")
	b.waitOutput(t, "key=k", bound)
	// The closed connection shows first as the end of input or as the end of the connection.
	if want := regexp.MustCompile(fmt.Sprintf(`session %d alice: ended \((connection|input) closed\), exit status 143`, alice.ID)); !want.MatchString(c.log.String()) {
		t.Errorf("log:\n%s", c.log)
	}
}

// TestSilentDrop: a client that stops answering without closing anything (a laptop leaving the
// Wi-Fi) is found out by the keepalives and its session cleaned up.
func TestSilentDrop(t *testing.T) {
	c := startClass(t, "tour", Config{KeepAlive: 200 * time.Millisecond})
	proxy, cut := blackholeProxy(t, c.srv.Addr().String())
	conn, err := net.Dial("tcp", proxy)
	if err != nil {
		t.Fatal(err)
	}
	sc, chans, reqs, err := gossh.NewClientConn(conn, proxy, &gossh.ClientConfig{User: "alice",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(c.key)}, HostKeyCallback: gossh.FixedHostKey(c.srv.signer.PublicKey())})
	if err != nil {
		t.Fatal(err)
	}
	client := gossh.NewClient(sc, chans, reqs)
	defer client.Close()
	a := open(t, client, 80, 24, nil, "")
	a.waitOutput(t, "ready", bound)
	ss := c.waitSessions(t, 1, bound)
	cut()
	waitGone(t, ss[0].PID, ss[0].Dir, bound)
	// The keepalive normally finds it first; the connection's idle deadline (three periods)
	// is the backstop.
	if !regexp.MustCompile(`alice: ended \((client stopped answering|connection closed)\)`).MatchString(c.log.String()) {
		t.Errorf("log:\n%s", c.log)
	}
}

// silentConn is an SSH connection whose peer answers keepalives only while answering is set.
type silentConn struct {
	gossh.Conn
	answering bool
	answered  chan struct{} // a value for each keepalive answered
	closed    chan struct{}
}

func (c *silentConn) SendRequest(string, bool, []byte) (bool, []byte, error) {
	if c.answering {
		c.answered <- struct{}{}
		return false, nil, nil
	}
	<-c.closed
	return false, nil, io.EOF
}

func (c *silentConn) Close() error { close(c.closed); return nil }

// TestKeepAlive: an answered keepalive (even "failure", as OpenSSH answers) keeps the
// connection; an unanswered one closes it and reports the drop.
func TestKeepAlive(t *testing.T) {
	for _, answering := range []bool{true, false} {
		conn := &silentConn{answering: answering, answered: make(chan struct{}), closed: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		dropped := make(chan struct{})
		done := make(chan struct{})
		go func() {
			keepAlive(ctx, conn, 10*time.Millisecond, func() { close(dropped) })
			close(done)
		}()
		if answering {
			// Answer five keepalives, then stop it: nothing was dropped.
			for i := 0; i < 5; i++ {
				select {
				case <-conn.answered:
				case <-dropped:
					t.Fatal("an answered keepalive counted as a drop")
				case <-time.After(bound):
					t.Fatal("no keepalive sent")
				}
			}
			cancel()
			go func() { // a keepalive sent as it was cancelled
				for range conn.answered {
				}
			}()
			<-done
			select {
			case <-dropped:
				t.Error("an answered keepalive counted as a drop")
			default:
			}
			select {
			case <-conn.closed:
				t.Error("an answering connection was closed")
			default:
			}
			continue
		}
		select {
		case <-dropped:
		case <-time.After(bound):
			t.Fatal("an unanswered keepalive was not reported")
		}
		<-done
		select {
		case <-conn.closed:
		default:
			t.Error("the silent connection was not closed")
		}
		cancel()
	}
}

// TestSilentHandshake: a connection that never authenticates does not hold the server's
// resources: it is closed after three keepalive periods without traffic.
func TestSilentHandshake(t *testing.T) {
	c := startClass(t, "tour", Config{KeepAlive: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", c.srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(bound))
	got, err := io.ReadAll(conn) // the server's version line, then nothing until it closes
	if err != nil {
		t.Fatalf("connection not closed by the server: %v (read %q)", err, got)
	}
	if !strings.HasPrefix(string(got), "SSH-2.0-kubewalk") {
		t.Errorf("server said %q", got)
	}
}

// blackholeProxy forwards one TCP connection to target until cut, after which it forwards
// nothing more but keeps both connections open.
func blackholeProxy(t *testing.T, target string) (addr string, cut func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var once sync.Once
	var conns []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		ln.Close()
		once.Do(func() { close(stop) })
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	cutc := make(chan struct{})
	var cutOnce sync.Once
	pipe := func(dst, src net.Conn) {
		buf := make([]byte, 32*1024)
		for {
			n, err := src.Read(buf)
			select {
			case <-cutc:
				<-stop // hold the data and the connection until the test ends
				return
			default:
			}
			if n > 0 {
				if _, err := dst.Write(buf[:n]); err != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}
	go func() {
		in, err := ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", target)
		if err != nil {
			in.Close()
			return
		}
		mu.Lock()
		conns = append(conns, in, out)
		mu.Unlock()
		go pipe(out, in)
		go pipe(in, out)
	}()
	return ln.Addr().String(), func() { cutOnce.Do(func() { close(cutc) }) }
}

// TestCrashEndsOnlyThatSession crashes one tour, started cold or from a warm spare: its session
// ends with the crash's status, the student is told (in their language) where the log is kept,
// and the other session goes on.
func TestCrashEndsOnlyThatSession(t *testing.T) {
	for _, warm := range []int{0, 2} {
		t.Run(fmt.Sprintf("warm=%d", warm), func(t *testing.T) {
			c := startClass(t, "tour", Config{Warm: warm})
			if warm > 0 {
				c.waitWarm(t, warm)
			}
			client, err := c.dial("alice")
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			a := open(t, client, 80, 24, map[string]string{"LANG": "zh_CN.UTF-8"}, "")
			b := open(t, client, 80, 24, nil, "")
			a.waitOutput(t, "ready", bound)
			b.waitOutput(t, "ready", bound)
			fmt.Fprint(a.in, "c")
			if code := a.wait(t, bound); code != 2 {
				t.Errorf("crashed session: exit status %d, want 2 (a Go panic)", code)
			}
			fmt.Fprint(b.in, "k")
			b.waitOutput(t, "key=k", bound)
			logs, _ := filepath.Glob(filepath.Join(c.srv.cfg.StateDir, "logs", "*-session*-alice.log"))
			if len(logs) != 1 {
				t.Fatalf("kept logs %v; log:\n%s", logs, c.log)
			}
			if b, _ := os.ReadFile(logs[0]); string(b) != "fake tour log\n" {
				t.Errorf("kept log holds %q", b)
			}
			out := a.out.String()
			if want := "kubewalk 崩溃了（退出状态 2）；日志位于 " + logs[0]; !strings.Contains(out, want) {
				t.Errorf("the student was not told %q:\n%s", want, out)
			}
			if !strings.Contains(out, leaveScreen) {
				t.Errorf("the student's screen was not put back:\n%q", out)
			}
			if strings.Contains(b.out.String(), "崩溃") || strings.Contains(b.out.String(), "crashed") {
				t.Errorf("the other session was told of the crash:\n%s", b.out)
			}
		})
	}
}

// TestStubbornTourKilled: a tour that ignores SIGTERM, with a child of its own that does too,
// is killed after StopBound; both processes and the directory are gone.
func TestStubbornTourKilled(t *testing.T) {
	// The stubborn tour starts a program: without the sandbox, which would refuse it.
	c := startClass(t, "stubborn", Config{StopBound: 300 * time.Millisecond, Sandbox: sandbox.Off})
	client, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	a := open(t, client, 80, 24, nil, "")
	out := a.waitOutput(t, "ready", bound)
	var grandchild int
	if _, err := fmt.Sscanf(out[strings.Index(out, "grandchild="):], "grandchild=%d", &grandchild); err != nil {
		t.Fatalf("no grandchild pid in %q", out)
	}
	ss := c.waitSessions(t, 1, bound)
	client.Close()
	waitGone(t, ss[0].PID, ss[0].Dir, bound)
	waitGone(t, grandchild, ss[0].Dir, bound)
	c.waitSessions(t, 0, bound)
	if !strings.Contains(c.log.String(), "killed: it did not stop within 300ms") {
		t.Errorf("log:\n%s", c.log)
	}
}

// TestIdleTimeout: a session without key presses is closed with a message, and cleaned up.
func TestIdleTimeout(t *testing.T) {
	c := startClass(t, "tour", Config{IdleTimeout: 200 * time.Millisecond})
	client, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	a := open(t, client, 80, 24, nil, "")
	a.wait(t, bound)
	if out := a.out.String(); !strings.Contains(out, "closed after 200ms without a key press") {
		t.Errorf("output:\n%s", out)
	}
	c.waitSessions(t, 0, bound)
	if !strings.Contains(c.log.String(), "alice: ended (idle)") {
		t.Errorf("log:\n%s", c.log)
	}
	if left, _ := filepath.Glob(filepath.Join(c.srv.cfg.TempDir, "*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestCloseEndsSessions: stopping the class ends every session with a message and removes
// their directories; a connection attempt afterwards fails.
func TestCloseEndsSessions(t *testing.T) {
	c := startClass(t, "tour", Config{})
	client, err := c.dial("alice")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	a := open(t, client, 80, 24, nil, "")
	a.waitOutput(t, "ready", bound)
	ss := c.waitSessions(t, 1, bound)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := c.srv.Close(ctx); err != nil {
		t.Fatal(err)
	}
	a.waitOutput(t, "the instructor stopped the class server", bound)
	waitGone(t, ss[0].PID, ss[0].Dir, bound)
	if cl, err := c.dial("alice"); err == nil {
		cl.Close()
		t.Error("connected after Close")
	}
}

// TestNewBadInput: bad configurations are refused before anything listens, with an error that
// names the flag.
func TestNewBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	_, line := newClientKey(t)
	keys := write("keys", line, 0o644)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	hostKey := filepath.Join(dir, "host_key")
	if _, err := LoadOrCreateHostKey(hostKey); err != nil {
		t.Fatal(err)
	}
	openKey := write("open_host_key", string(must(os.ReadFile(hostKey))), 0o644)
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"busy port", Config{Listen: busy.Addr().String(), AuthorizedKeys: keys}, "--listen " + busy.Addr().String() + ": listen tcp"},
		{"no auth", Config{}, "say who may connect"},
		{"both auths", Config{AuthorizedKeys: keys, PasswordFile: keys}, "choose one"},
		{"missing keys file", Config{AuthorizedKeys: filepath.Join(dir, "nope")}, "--authorized-keys: stat"},
		{"keys file is a directory", Config{AuthorizedKeys: dir}, "not a regular file"},
		{"bad key line", Config{AuthorizedKeys: write("bad", "# ok\n"+line+"ssh-ed25519 AAAA garbage\n", 0o644)}, "line 3"},
		{"empty keys file", Config{AuthorizedKeys: write("empty", "# nobody\n", 0o644)}, "no public keys"},
		{"password readable by others", Config{PasswordFile: write("pw", "a long password\n", 0o644)}, "lets others read it; run chmod 600"},
		{"short password", Config{PasswordFile: write("pw2", "short\n", 0o600)}, "at least 8 characters"},
		{"host key readable by others", Config{AuthorizedKeys: keys, HostKey: openKey}, "--host-key " + openKey + ": mode 0644"},
		{"host key not a key", Config{AuthorizedKeys: keys, HostKey: write("junk_key", "junk", 0o600)}, "not an unencrypted SSH private key"},
		{"host key is a directory", Config{AuthorizedKeys: keys, HostKey: dir}, "not a regular file"},
		{"negative idle timeout", Config{AuthorizedKeys: keys, IdleTimeout: -time.Second}, "--idle-timeout"},
		{"negative max sessions", Config{AuthorizedKeys: keys, MaxSessions: -1}, "--max-sessions"},
		{"follow without code", Config{AuthorizedKeys: keys, Follow: &Follow{Addr: "host:7443"}}, "both its address and its code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.StateDir = filepath.Join(dir, "state")
			if cfg.Listen == "" {
				cfg.Listen = "127.0.0.1:0"
			}
			if cfg.HostKey == "" {
				cfg.HostKey = hostKey
			}
			s, err := New(cfg)
			if err == nil {
				s.Close(context.Background())
				t.Fatalf("accepted")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestHostKeyKept: the host key is generated once, private, and the same after a restart.
func TestHostKeyKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "key")
	k1, err := LoadOrCreateHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v %v", fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("key dir mode %v", di.Mode())
	}
	k2, err := LoadOrCreateHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if gossh.FingerprintSHA256(k1.PublicKey()) != gossh.FingerprintSHA256(k2.PublicKey()) {
		t.Error("host key changed on reload")
	}
}

// TestHostKeyGeneratedInOpenDir: wish's key generator (keygen) sets the directory it writes
// into to 0700; generating a host key in an existing directory leaves that directory's mode as
// it was, and the key private. A path with '$', which keygen would expand, is refused.
func TestHostKeyGeneratedInOpenDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "key")
	if _, err := LoadOrCreateHostKey(path); err != nil {
		t.Fatal(err)
	}
	if di, err := os.Stat(dir); err != nil || di.Mode().Perm() != 0o755 {
		t.Errorf("directory after generating the key: %v %v, want mode 0755", di, err)
	}
	for _, p := range []string{path, path + ".pub"} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want mode 0600", p, fi, err)
		}
	}
	_, err := LoadOrCreateHostKey(filepath.Join(dir, "$HOME", "key"))
	if err == nil || !strings.Contains(err.Error(), "'$'") {
		t.Errorf("path with '$': error %v", err)
	}
}

// TestFollowArgs: with Follow, a session joins the class host as its SSH user.
func TestFollowArgs(t *testing.T) {
	s := &Server{cfg: Config{Follow: &Follow{Addr: "192.168.1.20:7443", Code: "4F7K-Q2"}, Args: []string{"--lang", "zh-CN"}},
		confine: &confinement{info: SandboxInfo{Layers: AllLayers()}, hasFlag: func(string) bool { return false }}}
	got := strings.Join(s.childArgs("alice", "/tmp/d", [3]int{1001, 1002, 1003}), " ")
	want := "join 192.168.1.20:7443 --code 4F7K-Q2 --name alice --kubectl-no-local-files --secure-port 1001 --etcd-client-port 1002 --etcd-peer-port 1003 --bind-address 127.0.0.1 --kubeconfig /tmp/d/kubeconfig --log-file /tmp/d/kubewalk.log --lang zh-CN"
	if got != want {
		t.Errorf("args\n got %s\nwant %s", got, want)
	}
}

// byUser returns the session of user.
func byUser(t testing.TB, ss []SessionInfo, user string) SessionInfo {
	t.Helper()
	for _, s := range ss {
		if s.User == user {
			return s
		}
	}
	t.Fatalf("no session of %s in %+v", user, ss)
	return SessionInfo{}
}

// TestLayerArgs: the kubectl layers reach the tour's command line — the allow-list as
// --kubectl-no-local-files, off as --kubectl-unguarded, no-exec as --kubectl-no-exec-plugins —
// the optional flags only when the tour has them; and the no-exec layer's editor variables
// reach its environment.
func TestLayerArgs(t *testing.T) {
	ports := [3]int{1001, 1002, 1003}
	for _, tt := range []struct {
		name    string
		layers  Layers
		hasFlag bool
		want    string
		editor  bool
	}{
		{"all, older tour", AllLayers(), false, "tour --kubectl-no-local-files --secure-port", true},
		{"all, newer tour", AllLayers(), true, "tour --kubectl-no-local-files --kubectl-no-exec-plugins --secure-port", true},
		{"no allow-list, newer tour", Layers{NoExec: true}, true, "tour --kubectl-unguarded --kubectl-no-exec-plugins --secure-port", true},
		{"no allow-list, older tour", Layers{Landlock: true}, false, "tour --secure-port", false},
		{"none, newer tour", Layers{}, true, "tour --kubectl-unguarded --secure-port", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Server{confine: &confinement{info: SandboxInfo{Layers: tt.layers}, hasFlag: func(string) bool { return tt.hasFlag }}}
			if got := strings.Join(s.childArgs("ana", "/tmp/d", ports), " "); !strings.HasPrefix(got, tt.want+" 1001 ") {
				t.Errorf("args %q, want them to start %q", got, tt.want)
			}
			env := strings.Join(s.childEnv(nil, "xterm", "/tmp/d", "/state/users/ana"), "\n")
			if got := strings.Contains(env, "EDITOR="+sandbox.RefusedProgram); got != tt.editor {
				t.Errorf("refusing EDITOR in the environment: %v, want %v:\n%s", got, tt.editor, env)
			}
		})
	}
}
