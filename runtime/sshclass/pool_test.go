package sshclass

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// These tests run the real kubewalk binary as warm spares and cold starts (the fake tour of
// helpers_test.go covers the SSH server's side of both in sshclass_test.go).

// tourBound bounds a real tour's start on a loaded machine: a few hundred milliseconds alone.
const tourBound = 2 * time.Minute

// tourStudent is a student's SSH session running the real tour on a 120×40 terminal.
type tourStudent struct {
	client *gossh.Client
	sess   *gossh.Session
	in     io.WriteCloser
	term   *fakeTerminal
	done   chan error
}

// connectTour connects as user, sends env (as OpenSSH's SetEnv does) and opens the tour.
func connectTour(t testing.TB, c *testClass, user string, env map[string]string) *tourStudent {
	t.Helper()
	client, err := c.dial(user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range env {
		if err := sess.Setenv(k, v); err != nil {
			t.Fatalf("setenv %s: %v", k, err)
		}
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	ts := &tourStudent{client: client, sess: sess, in: in, term: &fakeTerminal{answer: in, seen: make(chan struct{}, 1)}, done: make(chan error, 1)}
	sess.Stdout, sess.Stderr = ts.term, ts.term
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() { ts.done <- sess.Wait() }()
	return ts
}

// await waits for text on the student's screen.
func (ts *tourStudent) await(t testing.TB, text string) {
	t.Helper()
	if err := ts.term.await(text, tourBound); err != nil {
		t.Fatal(err)
	}
}

// output is everything the student's terminal received.
func (ts *tourStudent) output() string {
	ts.term.mu.Lock()
	defer ts.term.mu.Unlock()
	return string(ts.term.raw)
}

// waitWarm waits, within a bound, until n spares are ready.
func (c *testClass) waitWarm(t testing.TB, n int) {
	t.Helper()
	deadline := time.Now().Add(tourBound)
	for c.srv.WarmSpares() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d spares ready, want %d, after %s; log:\n%s", c.srv.WarmSpares(), n, tourBound, c.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spares returns the ready spares' processes and directories.
func (c *testClass) spares() (pids []int, dirs []string) {
	p := c.srv.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, sp := range p.ready {
		pids, dirs = append(pids, sp.pid), append(dirs, sp.dir)
	}
	return pids, dirs
}

// colour matches an SGR sequence that sets a foreground or background colour.
var colour = regexp.MustCompile(`\x1b\[(?:[0-9]*;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;[0-9]*)*m`)

// TestWarmHandover runs the real tour from warm spares and from cold starts and checks that
// a tour handed over behaves like one started for the session: the language the client sends
// (zh-CN), NO_COLOR, colour for a 256-colour terminal otherwise, and progress kept in the
// student's own directory. The spares start with TERM=dumb, LANG=C and no XDG_STATE_HOME, so
// anything read before the handover and kept would show here.
func TestWarmHandover(t *testing.T) {
	bin := requireBinary(t)
	for _, tc := range []struct {
		name string
		warm int
	}{{"cold", 0}, {"warm", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			c := startClass(t, "", Config{Executable: bin, MaxSessions: 3, Warm: tc.warm})
			if tc.warm > 0 {
				c.waitWarm(t, tc.warm)
			}
			alice := connectTour(t, c, "alice", map[string]string{"LANG": "zh_CN.UTF-8"})
			bob := connectTour(t, c, "bob", map[string]string{"NO_COLOR": "1"})
			carol := connectTour(t, c, "carol", nil)
			alice.await(t, "暂停于 config/scheme")
			bob.await(t, "PAUSED at config/scheme")
			carol.await(t, "PAUSED at config/scheme")
			for _, si := range c.waitSessions(t, 3, bound) {
				if si.Warm != (tc.warm > 0) {
					t.Errorf("session of %s: warm=%v, want %v", si.User, si.Warm, tc.warm > 0)
				}
			}
			if colour.MatchString(bob.output()) {
				t.Errorf("NO_COLOR session drew colours: %q", colour.FindString(bob.output()))
			}
			for name, s := range map[string]*tourStudent{"alice": alice, "carol": carol} {
				if !colour.MatchString(s.output()) {
					t.Errorf("%s's session (xterm-256color) drew no colour", name)
				}
			}

			fmt.Fprint(carol.in, "\r")
			carol.await(t, "space next")
			fmt.Fprint(carol.in, "E")
			carol.await(t, "SERVING")
			fmt.Fprint(carol.in, "q")
			select {
			case err := <-carol.done:
				if err != nil {
					t.Errorf("carol's session after q: %v", err)
				}
			case <-time.After(tourBound):
				t.Fatalf("carol's session still runs after q; screen:\n%s", carol.output())
			}
			users := filepath.Join(c.srv.cfg.StateDir, "users")
			if b, err := os.ReadFile(filepath.Join(users, "carol", "kubewalk", "progress.json")); err != nil || !strings.Contains(string(b), "serve") {
				t.Errorf("carol's progress: %v\n%s", err, b)
			}
			for _, u := range []string{"alice", "bob"} {
				if b, err := os.ReadFile(filepath.Join(users, u, "kubewalk", "progress.json")); err == nil && strings.Contains(string(b), "serve") {
					t.Errorf("%s's progress has carol's serve:\n%s", u, b)
				}
			}
		})
	}
}

// TestWarmSpareReplaced kills a waiting spare: it is replaced (and its directory removed), and
// the next session gets the new spare and reaches the first pause.
func TestWarmSpareReplaced(t *testing.T) {
	bin := requireBinary(t)
	c := startClass(t, "", Config{Executable: bin, MaxSessions: 2, Warm: 1})
	c.waitWarm(t, 1)
	pids, dirs := c.spares()
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pids[0], dirs[0], bound)
	deadline := time.Now().Add(tourBound)
	for {
		now, _ := c.spares()
		if len(now) == 1 && now[0] != pids[0] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("spare %d not replaced within %s; log:\n%s", pids[0], tourBound, c.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(c.log.String(), fmt.Sprintf("warm spare %d: exited while waiting", pids[0])) {
		t.Errorf("log:\n%s", c.log)
	}
	s := connectTour(t, c, "alice", nil)
	s.await(t, "PAUSED at config/scheme")
	if si := c.waitSessions(t, 1, bound)[0]; !si.Warm {
		t.Errorf("session not served by the replacement spare: %+v", si)
	}
}

// TestWarmExhausted: with one spare and two students arriving at once, one gets the spare and
// the other a cold start; both reach the first pause.
func TestWarmExhausted(t *testing.T) {
	bin := requireBinary(t)
	c := startClass(t, "", Config{Executable: bin, MaxSessions: 2, Warm: 1})
	c.waitWarm(t, 1)
	a := connectTour(t, c, "alice", nil)
	b := connectTour(t, c, "bob", nil)
	a.await(t, "PAUSED at config/scheme")
	b.await(t, "PAUSED at config/scheme")
	warm := 0
	for _, si := range c.waitSessions(t, 2, bound) {
		if si.Warm {
			warm++
		}
	}
	if warm != 1 {
		t.Errorf("%d sessions served warm, want 1; log:\n%s", warm, c.log)
	}
	if got := strings.Count(c.log.String(), "cold start"); got != 1 {
		t.Errorf("%d cold starts logged, want 1; log:\n%s", got, c.log)
	}
}

// TestWarmCloseEndsSpares: stopping the class ends the waiting spares and removes their
// directories, within the bounds of sessions.
func TestWarmCloseEndsSpares(t *testing.T) {
	bin := requireBinary(t)
	c := startClass(t, "", Config{Executable: bin, MaxSessions: 3, Warm: 3})
	c.waitWarm(t, 3)
	pids, dirs := c.spares()
	s := connectTour(t, c, "alice", nil)
	s.await(t, "PAUSED at config/scheme")
	ss := c.waitSessions(t, 1, bound)
	c.close(t) // checks that no kubewalk-ssh-* directory is left
	for i := range pids {
		waitGone(t, pids[i], dirs[i], bound)
	}
	waitGone(t, ss[0].PID, ss[0].Dir, bound)
	if n := c.srv.WarmSpares(); n != 0 {
		t.Errorf("%d spares after Close", n)
	}
}
