package sshclass

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/ratelimit"
	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

// TestTerminalClamped: a 4000×4000 terminal is given to the tour as 300×100, later window
// changes are clamped too, and the student's screen says so outside the tour's part of it.
func TestTerminalClamped(t *testing.T) {
	c := startClass(t, "tour", Config{})
	cl, err := c.dial("ana")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cs := open(t, cl, 4000, 4000, map[string]string{"LANG": "C.UTF-8"}, "")
	cs.waitOutput(t, "size=300x100", bound)
	cs.waitOutput(t, "\x1b7\x1b[102;1H\x1b[0mkubewalk class: your terminal is 4000×4000; the tour is drawn in at most 300×100 of it\x1b8", bound)
	// The fake tour listens for SIGWINCH only once it says "ready": a change sent before
	// that would be lost, by the fake, not by the class server.
	cs.waitOutput(t, "ready", bound)
	if err := cs.sess.WindowChange(60, 5000); err != nil {
		t.Fatal(err)
	}
	cs.waitOutput(t, "resized=300x60", bound)
	cs.waitOutput(t, "\x1b7\x1b[1;302H\x1b[0mkubewalk class: your terminal is 5000×60", bound)
	if err := cs.sess.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	cs.waitOutput(t, "resized=120x40", bound)
	if !strings.Contains(c.log.String(), "terminal 4000×4000 clamped to at most 300×100") {
		t.Errorf("the class log does not say the terminal was clamped:\n%s", c.log)
	}
	cs.in.Write([]byte("q"))
	cs.wait(t, bound)
}

// TestTerminalClampedChinese: the note follows the student's language.
func TestTerminalClampedChinese(t *testing.T) {
	c := startClass(t, "tour", Config{})
	cl, err := c.dial("ana")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cs := open(t, cl, 400, 50, map[string]string{"LANG": "zh_CN.UTF-8"}, "")
	cs.waitOutput(t, "kubewalk class：你的终端是 400×50；导览最多只占用其中的 300×100", bound)
	cs.in.Write([]byte("q"))
	cs.wait(t, bound)
}

// TestClampNote drives the note's placement through terminal output split anywhere: it is
// written only at clean points and again after the display was erased.
func TestClampNote(t *testing.T) {
	const note = "\x1b7\x1b[102;1H\x1b[0mnote 1000×200 300×100\x1b8"
	cases := []struct {
		name   string
		chunks []string
		want   []bool // whether the note follows each chunk
	}{
		{"clean start", []string{"hello"}, []bool{true}},
		{"mid CSI", []string{"a\x1b[3", "1mb"}, []bool{false, true}},
		{"mid OSC", []string{"\x1b]11;rgb:0", "000/0000\x1b\\", "x"}, []bool{false, true, false}},
		{"mid UTF-8", []string{"\xe4\xbd", "\xa0"}, []bool{false, true}},
		{"repaint erases it", []string{"a", "b", "\x1b[2J\x1b[Hframe", "c"}, []bool{true, false, true, false}},
		{"erase below", []string{"a", "\x1b[J"}, []bool{true, true}},
		{"alternate screen", []string{"a", "\x1b[?1049h"}, []bool{true, true}},
		{"cursor moves do not", []string{"a", "\x1b[5;1Hx\x1b[K"}, []bool{true, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := newClampNote("note %d×%d %d×%d", ssh.Window{Width: 1000, Height: 200})
			for i, ch := range tc.chunks {
				got := n.after([]byte(ch))
				if (got != nil) != tc.want[i] {
					t.Fatalf("chunk %d %q: note %q, want it: %v", i, ch, got, tc.want[i])
				}
				if got != nil && string(got) != note {
					t.Fatalf("note %q, want %q", got, note)
				}
			}
		})
	}
	small := newClampNote("note %d×%d %d×%d", ssh.Window{Width: 120, Height: 40})
	if got := small.after([]byte("x\x1b[2J")); got != nil {
		t.Errorf("a terminal that fits got a note: %q", got)
	}
	narrow := newClampNote("note %d×%d %d×%d", ssh.Window{Width: 303, Height: 50})
	if got := narrow.after([]byte("x")); got != nil {
		t.Errorf("a note in a 2-column strip: %q", got)
	}
}

// TestPasswordGuessesLimited: guesses beyond the budget are refused without being checked,
// from one address and from all; the right password gets in once the budget refilled.
func TestPasswordGuessesLimited(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte("correct horse battery\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lim := ratelimit.Config{PerIP: 3, PerIPEvery: 400 * time.Millisecond, Global: 4, GlobalEvery: 300 * time.Millisecond}
	c := startClass(t, "tour", Config{PasswordFile: pw, PasswordLimit: lim})
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if cl, err := c.dial(fmt.Sprintf("guess%d", i), gossh.Password("wrong guess")); err == nil {
				cl.Close()
				t.Error("a wrong password got in")
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	// Every wrong guess that was checked took a token from 127.0.0.1's bucket: at most its burst
	// plus what refilled meanwhile.
	most := int64(lim.PerIP) + int64(elapsed/lim.PerIPEvery) + 1
	if got := c.srv.pwSeen.Load(); got > most || got < 1 {
		t.Errorf("%d of 20 guesses checked in %s; the budget allows %d", got, elapsed.Round(time.Millisecond), most)
	}
	if !strings.Contains(c.log.String(), "too many wrong passwords; guesses refused unchecked") {
		t.Errorf("the log does not say guesses were refused:\n%s", c.log)
	}
	// The right password: refused while the bucket is empty, let in once it has a token.
	deadline := time.Now().Add(bound)
	for {
		cl, err := c.dial("alice", gossh.Password("correct horse battery"))
		if err == nil {
			cl.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the right password still refused %s after the guesses: %v", bound, err)
		}
	}
}

// TestPasswordLimitGlobal: many addresses together share the global budget.
func TestPasswordLimitGlobal(t *testing.T) {
	l := ratelimit.New(withDefaults(ratelimit.Config{}, DefaultPasswordLimit))
	t0 := time.Unix(1000, 0)
	checked := 0
	for i := range 100 {
		ip := fmt.Sprintf("10.0.0.%d", i)
		if _, ok := l.Check(ip, t0); ok {
			checked++
			l.Fail(ip, t0)
		}
	}
	if checked != DefaultPasswordLimit.Global {
		t.Errorf("100 addresses at once: %d guesses checked, want the global burst %d", checked, DefaultPasswordLimit.Global)
	}
}

// dialRaw opens a TCP connection to the class from the local address ip.
func dialRaw(t *testing.T, c *testClass, ip string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: bound}
	conn, err := d.Dial("tcp", c.srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// closedByServer reports whether the server closed conn within d, reading what it sends: an
// end of stream, or a reset (the server closing a connection with unread bytes sends one).
func closedByServer(conn net.Conn, d time.Duration) (bool, []byte) {
	conn.SetReadDeadline(time.Now().Add(d))
	got, err := io.ReadAll(conn)
	return !errors.Is(err, os.ErrDeadlineExceeded), got
}

// TestUnauthenticatedCaps: the connections on their way in are bounded per address and in all.
func TestUnauthenticatedCaps(t *testing.T) {
	c := startClass(t, "tour", Config{MaxPendingPerIP: 3, MaxPending: 5, AuthDeadline: time.Minute})
	for range 3 {
		conn := dialRaw(t, c, "127.0.0.1")
		conn.SetReadDeadline(time.Now().Add(bound))
		if _, err := conn.Read(make([]byte, 64)); err != nil { // the server's version line
			t.Fatal(err)
		}
	}
	waitPending(t, c, "127.0.0.1", 3)
	if closed, got := closedByServer(dialRaw(t, c, "127.0.0.1"), bound); !closed || len(got) != 0 {
		t.Fatalf("a 4th connection from one address: closed %v, server said %q", closed, got)
	}
	for range 2 {
		conn := dialRaw(t, c, "127.0.0.2")
		conn.SetReadDeadline(time.Now().Add(bound))
		if _, err := conn.Read(make([]byte, 64)); err != nil {
			t.Fatal(err)
		}
	}
	waitPending(t, c, "127.0.0.2", 2)
	if closed, _ := closedByServer(dialRaw(t, c, "127.0.0.3"), bound); !closed {
		t.Fatal("a 6th connection in all was not closed")
	}
	if log := c.log.String(); !strings.Contains(log, "3 connections from 127.0.0.1 are on their way in already") ||
		!strings.Contains(log, "5 connections are on their way in already") {
		t.Errorf("the log does not say why connections were refused:\n%s", log)
	}
	// An authenticated session does not count: a student gets in past the trickle.
	cl, err := c.dial("ana")
	if err == nil {
		cl.Close()
		t.Fatal("a 7th connection got in while 5 are pending")
	}
}

// waitPending waits until the gate counts n connections from ip.
func waitPending(t *testing.T, c *testClass, ip string, n int) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for {
		if _, got := c.srv.gate.counts(ip); got == n {
			return
		}
		if time.Now().After(deadline) {
			_, got := c.srv.gate.counts(ip)
			t.Fatalf("%d pending from %s, want %d", got, ip, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTrickleCannotHold: a connection that sends a byte every 100 ms (which kept wish's idle
// timeout from ever firing) is closed at the deadline from accept; a student who authenticated
// keeps their session past it, and gives their slot back.
func TestTrickleCannotHold(t *testing.T) {
	const deadline = 400 * time.Millisecond
	c := startClass(t, "tour", Config{AuthDeadline: deadline})
	conn := dialRaw(t, c, "127.0.0.1")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		line := []byte("SSH-2.0-trickle-trickle-trickle-trickle-trickle-trickle\r\n")
		for _, b := range line {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			if _, err := conn.Write([]byte{b}); err != nil {
				return
			}
		}
	}()
	began := time.Now()
	if closed, _ := closedByServer(conn, bound); !closed {
		t.Fatal("a trickling connection was not closed")
	}
	if took := time.Since(began); took > deadline+bound/2 {
		t.Errorf("a trickling connection was closed after %s, deadline %s", took, deadline)
	}
	cl, err := c.dial("ana")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cs := open(t, cl, 80, 24, nil, "")
	cs.waitOutput(t, "ready", bound)
	waitPending(t, c, "127.0.0.1", 0)
	<-time.After(3 * deadline) // past the accept deadline: the session must not notice
	cs.in.Write([]byte("k"))
	cs.waitOutput(t, "key=k", bound)
	cs.in.Write([]byte("q"))
	if code := cs.wait(t, bound); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

// TestOrphansReaped: a tour's child in a session of its own outlives the tour; when it exits,
// the class server (its subreaper) waits for it at once instead of leaving a zombie.
func TestOrphansReaped(t *testing.T) {
	// Without the sandbox: the fake tour starts a program, which the no-exec layer forbids.
	c := startClass(t, "orphan", Config{Sandbox: sandbox.Off})
	cl, err := c.dial("ana")
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	cs := open(t, cl, 80, 24, nil, "")
	out := cs.waitOutput(t, "ready", bound)
	m := regexp.MustCompile(`grandchild=(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no grandchild in:\n%s", out)
	}
	gc, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { syscall.Kill(gc, syscall.SIGKILL) })
	cs.in.Write([]byte("q"))
	cs.wait(t, bound)
	// The grandchild is now the test process's (the class's) child; end it.
	waitFor(t, "the grandchild to be inherited", func() bool {
		st, ok := readStat(gc)
		return ok && st.ppid == os.Getpid()
	})
	if err := syscall.Kill(gc, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the orphan to be reaped (not left <defunct>)", func() bool {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", gc))
		return errors.Is(err, os.ErrNotExist)
	})
}

// waitFor polls cond within bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", bound, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReadStat(t *testing.T) {
	st, ok := readStat(os.Getpid())
	sid, _ := unix.Getsid(0)
	if !ok || st.state == 'Z' || st.ppid != os.Getppid() || st.sid != sid || st.pgrp != syscall.Getpgrp() {
		t.Errorf("readStat(self) = %+v, %v; want ppid %d sid %d", st, ok, os.Getppid(), sid)
	}
}

func TestNameKey(t *testing.T) {
	cases := []struct {
		name, key string
		ok        bool
	}{
		{"ana", "ana", true},
		{"ANA", "ana", true},
		{"Ana.B-c_d", "ana.b-c_d", true},
		{"_x", "_x", true},
		{"STRASSE", "strasse", true},
		{"straße", "strasse", true},
		{"Ｆｕｌｌ", "full", true}, // full-width letters are NFKC's plain ones
		{"李雷", "李雷", true},
		{"ΣΊΣΥΦΟΣ", "σίσυφοσ", true},
		{"", "", false},
		{".hidden", "", false},
		{"-x", "", false},
		{"a/b", "", false},
		{"a b", "", false},
		{"a\u202eb", "", false}, // a bidi override
		{"a\x00", "", false},
		{"\xff", "", false},
		{strings.Repeat("a", 32), strings.Repeat("a", 32), true},
		{strings.Repeat("a", 33), "", false},
		{strings.Repeat("李", 32), strings.Repeat("李", 32), true},
	}
	for _, tc := range cases {
		key, ok := nameKey(tc.name)
		if ok != tc.ok || key != tc.key {
			t.Errorf("nameKey(%q) = %q, %v; want %q, %v", tc.name, key, ok, tc.key, tc.ok)
		}
	}
}

// TestNamesFolded: ANA and ana are one student — one progress directory, one claim — and
// another key asking for Ana is refused; a claim and progress kept under `BOB` before names were
// folded belong to `bob` now.
func TestNamesFolded(t *testing.T) {
	c := startClass(t, "tour", Config{})
	other, line := newClientKey(t)
	f, err := os.OpenFile(c.srv.cfg.AuthorizedKeys, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line)
	f.Close()
	// What an older kubewalk left for BOB: his claim and his progress.
	users, names := filepath.Join(c.srv.cfg.StateDir, "users"), filepath.Join(c.srv.cfg.StateDir, "names")
	if err := os.MkdirAll(filepath.Join(users, "BOB"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(users, "BOB", "progress.json"), []byte("{}"), 0o600)
	os.WriteFile(filepath.Join(names, "BOB"), []byte(gossh.FingerprintSHA256(c.key.PublicKey())+"\n"), 0o600)

	stateOf := func(user string, key gossh.Signer) (string, int) {
		cl, err := c.dial(user, gossh.PublicKeys(key))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		cs := open(t, cl, 80, 24, nil, "")
		out := cs.waitAny(t, []string{"ready", "belongs to another"}, bound)
		if !strings.Contains(out, "ready") {
			return "", cs.wait(t, bound)
		}
		m := regexp.MustCompile(`dir XDG_STATE_HOME=(\S+)`).FindStringSubmatch(out)
		cs.in.Write([]byte("q"))
		cs.wait(t, bound)
		return m[1], 0
	}
	first, _ := stateOf("ANA", c.key)
	if first != filepath.Join(users, "ana") {
		t.Errorf("ANA's progress under %s, want users/ana", first)
	}
	if again, _ := stateOf("Ana", c.key); again != first {
		t.Errorf("Ana's progress under %s, ANA's under %s", again, first)
	}
	if _, err := os.Stat(filepath.Join(names, "ana")); err != nil {
		t.Errorf("the claim is not filed under the folded name: %v", err)
	}
	if st, code := stateOf("ana", other); st != "" || code != 1 {
		t.Errorf("another key as ana: state %q, exit %d; want refused", st, code)
	}
	bob, _ := stateOf("bob", c.key)
	if bob != filepath.Join(users, "bob") {
		t.Errorf("bob's progress under %s", bob)
	}
	if _, err := os.Stat(filepath.Join(users, "bob", "progress.json")); err != nil {
		t.Errorf("BOB's old progress did not come to bob: %v", err)
	}
	if st, code := stateOf("Bob", other); st != "" || code != 1 {
		t.Errorf("another key as Bob (BOB's old claim): state %q, exit %d; want refused", st, code)
	}
}

func TestSecretFileAdvice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Log("not root: /etc/passwd belongs to another user, which is refused first")
	}
	_, err := readSecretFile("/etc/passwd", "--password-file")
	if err == nil {
		t.Fatal("/etc/passwd accepted as a password file")
	}
	if strings.Contains(err.Error(), "chmod") {
		t.Errorf("advice to chmod a system file: %v", err)
	}
	own := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(own, []byte("a long password\n"), 0o644)
	if _, err := readSecretFile(own, "--password-file"); err == nil || !strings.Contains(err.Error(), "chmod 600 "+own) {
		t.Errorf("an own file others can read: %v; want the chmod to run", err)
	}
	for path, want := range map[string]bool{"/etc/passwd": true, "/usr/share/x": true, "/var/lib/x": true,
		"/var/tmp/pw": false, "/tmp/pw": false, "/home/ana/pw": false, "/etcetera/pw": false} {
		if got := systemFile(path); got != want {
			t.Errorf("systemFile(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestShorten(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	got := shorten(long, 40)
	if len(got) > 80 || !strings.Contains(got, "(102400 bytes)") {
		t.Errorf("shorten of 100 KB: %q", got)
	}
	if shorten("ana", 40) != "ana" {
		t.Error("a short name changed")
	}
	if got := shorten(strings.Repeat("李", 50), 40); !bytes.HasPrefix([]byte(got), []byte(strings.Repeat("李", 40)+"…")) {
		t.Errorf("cut mid-character: %q", got)
	}
}

// BenchmarkConnectionFlood measures what 500 trickling unauthenticated connections from one
// address hold in the class server: descriptors (the client ends live in this process too and
// are subtracted) and heap. Before the gate every one of them was held for as long as it kept
// trickling. Run: go test ./runtime/sshclass -run XXX -bench ConnectionFlood -benchtime 1x
func BenchmarkConnectionFlood(b *testing.B) {
	const n = 500
	for range b.N {
		c := startClass(b, "tour", Config{})
		fds := func() int { e, _ := os.ReadDir("/proc/self/fd"); return len(e) }
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		base := fds()
		var conns []net.Conn
		for range n {
			conn, err := net.Dial("tcp", c.srv.Addr().String())
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, conn)
			conn.Write([]byte("S")) // the start of a version line, and no more
		}
		// The server accepts them one by one and closes those over the limit at once: a
		// connection still open 3 s on is one it holds.
		until := time.Now().Add(3 * time.Second)
		var held atomic.Int64
		var wg sync.WaitGroup
		for _, conn := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn.SetReadDeadline(until)
				if _, err := io.ReadAll(conn); errors.Is(err, os.ErrDeadlineExceeded) { // still open
					held.Add(1)
				}
			}()
		}
		wg.Wait()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(fds()-base-n), "server-fds")
		b.ReportMetric(float64(held.Load()), "conns-held")
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "heap-MB")
		for _, conn := range conns {
			conn.Close()
		}
		c.close(b)
	}
}
