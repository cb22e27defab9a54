package sshclass

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// concurrentStudents is how many students TestConcurrentStudentsServe connects at once: as
// many real tours as a 2-core CI machine starts to serving within a couple of minutes.
const concurrentStudents = 10

// TestConcurrentStudentsServe is BenchmarkSessions' class in small, as a test: students
// connect at once over SSH to the real class server running the real tour — half of them get
// a warm spare, half a tour started on arrival — and each dismisses the welcome and runs to the
// end (E). Every one must reach SERVING; a screen that says FAILED ends the wait at once.
//
// Under load, one student in 30 used to stay at serve with "bind: address already in use":
// the config phase checked that its --secure-port 0 was free and released it, and by the serve
// phase another tour's connection had taken it (see server/port.go).
func TestConcurrentStudentsServe(t *testing.T) {
	bin := requireBinary(t)
	warm := concurrentStudents / 2
	c := startClass(t, "", Config{Executable: bin, MaxSessions: concurrentStudents, Warm: warm})
	c.waitWarm(t, warm)

	var wg sync.WaitGroup
	errs := make([]error, concurrentStudents)
	clients := make([]*gossh.Client, concurrentStudents)
	for i := range concurrentStudents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clients[i], errs[i] = reachServing(c, fmt.Sprintf("student%02d", i))
		}()
	}
	wg.Wait()
	defer func() {
		for _, cl := range clients {
			if cl != nil {
				cl.Close()
			}
		}
	}()
	failed := 0
	for i, err := range errs {
		if err != nil {
			failed++
			user := fmt.Sprintf("student%02d", i)
			t.Errorf("%s: %v\n%s", user, err, tourLog(c, user))
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d students did not reach serving; class log:\n%s", failed, concurrentStudents, c.log)
	}
	ss := c.srv.Sessions()
	if len(ss) != concurrentStudents {
		t.Fatalf("%d sessions running, want %d; class log:\n%s", len(ss), concurrentStudents, c.log)
	}
	warmed := 0
	for _, si := range ss {
		if si.Warm {
			warmed++
		}
	}
	if warmed == 0 || warmed == concurrentStudents {
		t.Errorf("%d of %d sessions had a warm spare: want both kinds", warmed, concurrentStudents)
	}
}

// reachServing connects as user with a 120×40 terminal, waits for the first pause, dismisses
// the welcome, runs to the end (E) and waits for SERVING, each wait bounded by tourBound.
func reachServing(c *testClass, user string) (*gossh.Client, error) {
	client, err := c.dial(user)
	if err != nil {
		return nil, err
	}
	sess, err := client.NewSession()
	if err != nil {
		return client, err
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
		return client, err
	}
	in, err := sess.StdinPipe()
	if err != nil {
		return client, err
	}
	term := &fakeTerminal{answer: in, seen: make(chan struct{}, 1)}
	sess.Stdout, sess.Stderr = term, term
	if err := sess.Shell(); err != nil {
		return client, err
	}
	for _, step := range []struct{ wait, then string }{
		{"PAUSED at config/scheme", "\r"},
		{"space next", "E"},
		{"SERVING", ""},
	} {
		if err := term.awaitUnlessFailed(step.wait, tourBound); err != nil {
			return client, err
		}
		if step.then != "" {
			if _, err := fmt.Fprint(in, step.then); err != nil {
				return client, err
			}
		}
	}
	return client, nil
}

// awaitUnlessFailed waits, within a bound, until text appears on the screen, and fails at once
// when the status line says the startup FAILED.
func (f *fakeTerminal) awaitUnlessFailed(text string, within time.Duration) error {
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	// As await does: each look strips what arrived since the last one, with an overlap for
	// text split across writes (the students share the machine with the tours they measure).
	f.mu.Lock()
	from := max(0, len(f.raw)-256*1024)
	f.mu.Unlock()
	for {
		f.mu.Lock()
		screen := ansi.Strip(string(f.raw[from:]))
		from = max(from, len(f.raw)-4096)
		f.mu.Unlock()
		if strings.Contains(screen, text) {
			return nil
		}
		if i := strings.Index(screen, "✗ FAILED"); i >= 0 {
			line, _, _ := strings.Cut(screen[i:], "\n")
			return fmt.Errorf("waiting for %q: the screen says %s", text, line)
		}
		select {
		case <-f.seen:
		case <-deadline.C:
			f.mu.Lock()
			defer f.mu.Unlock()
			return fmt.Errorf("no %q within %s; screen text:\n%s", text, within, ansi.Strip(string(f.raw[max(0, len(f.raw)-4096):])))
		}
	}
}
