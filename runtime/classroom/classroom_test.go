package classroom

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// bound is how long any wait in these tests may take: generous for a loaded 2-core machine,
// and only ever reached when something is broken.
const bound = 20 * time.Second

func startHost(t *testing.T, cfg HostConfig) *Host {
	t.Helper()
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.Logf = t.Logf
	h, err := StartHost(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Stop)
	<-h.Ready()
	return h
}

func joinCfg(h *Host, name string) StudentConfig {
	return StudentConfig{
		Addr: h.Addr().String(), Code: h.JoinCode(), Name: name, AppVersion: "test",
		BackoffMin: 5 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
	}
}

func join(t *testing.T, cfg StudentConfig) *Student {
	t.Helper()
	cfg.Logf = t.Logf
	s, err := Join(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

func joined(t *testing.T, cfg StudentConfig) *Student {
	t.Helper()
	s := join(t, cfg)
	select {
	case <-s.Ready():
	case <-s.Done():
		t.Fatalf("student %s stopped before joining: %v", cfg.Name, s.Err())
	case <-time.After(bound):
		t.Fatalf("student %s not admitted within %s: %+v", cfg.Name, bound, s.State())
	}
	return s
}

// waitFor waits, at most bound, until cond holds, re-checking at each change notification.
func waitFor(t *testing.T, what string, changed func() <-chan struct{}, cond func() bool) {
	t.Helper()
	timeout := time.NewTimer(bound)
	defer timeout.Stop()
	for {
		ch := changed()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-timeout.C:
			t.Fatalf("timed out after %s waiting for %s", bound, what)
		}
	}
}

func student(b Board, name string) (StudentStatus, bool) {
	for _, s := range b.Students {
		if s.Name == name {
			return s, true
		}
	}
	return StudentStatus{}, false
}

func waitDone(t *testing.T, s *Student) error {
	t.Helper()
	select {
	case <-s.Done():
		return s.Err()
	case <-time.After(bound):
		t.Fatalf("student did not stop within %s: %+v", bound, s.State())
		return nil
	}
}

func TestJoinFollowAndReport(t *testing.T) {
	h := startHost(t, HostConfig{Title: "k8s apiserver workshop", AppVersion: "v0.test"})
	if !strings.HasPrefix(h.JoinLine(), "kubewalk join "+h.Addr().String()+" --code ") || !strings.HasSuffix(h.JoinLine(), h.JoinCode()) {
		t.Errorf("JoinLine() = %q", h.JoinLine())
	}
	if !h.LoopbackOnly() {
		t.Error("LoopbackOnly() = false on 127.0.0.1")
	}
	cp1 := Checkpoint{Phase: "config", ID: "config/scheme", Ordinal: 1}
	h.Publish(cp1)
	s := joined(t, joinCfg(h, "ana"))
	st := s.State()
	if st.Name != "ana" || st.Title != "k8s apiserver workshop" || st.HostApp != "v0.test" || st.Instructor != cp1 || st.Target() != cp1 {
		t.Fatalf("state after welcome = %+v", st)
	}

	cp2 := Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 9}
	if !h.Publish(cp2) {
		t.Fatal("Publish(cp2) = false")
	}
	waitFor(t, "student sees authz/rbac", s.Changed, func() bool { return s.State().Instructor == cp2 })

	s.Report(cp2, 3)
	waitFor(t, "board shows ana at authz/rbac with 3 done", h.Changed, func() bool {
		st, ok := student(h.Board(), "ana")
		return ok && st.Connected && st.Checkpoint == cp2 && st.Done == 3 && st.Following && st.App == "test"
	})
}

func TestPublishNeverGoesBack(t *testing.T) {
	h := startHost(t, HostConfig{})
	s := joined(t, joinCfg(h, "ana"))
	later := Checkpoint{Phase: "storage", ID: "storage/etcd", Ordinal: 20}
	if !h.Publish(later) {
		t.Fatal("Publish(later) = false")
	}
	for _, cp := range []Checkpoint{
		{Phase: "config", ID: "config/scheme", Ordinal: 1},
		{Phase: "storage", ID: "storage/etcd-again", Ordinal: 20},
		{},
	} {
		if h.Publish(cp) {
			t.Errorf("Publish(%+v) after ordinal 20 = true", cp)
		}
	}
	waitFor(t, "student at storage/etcd", s.Changed, func() bool { return s.State().Instructor == later })
	// A host that somehow sends an earlier checkpoint does not move the student back.
	s.mu.Lock()
	moved := s.instructorLocked(Checkpoint{Phase: "config", ID: "config/scheme", Ordinal: 2})
	s.mu.Unlock()
	if moved || s.State().Instructor != later {
		t.Errorf("student went back: %+v", s.State().Instructor)
	}
}

func TestDetachResync(t *testing.T) {
	h := startHost(t, HostConfig{})
	s := joined(t, joinCfg(h, "ana"))
	cp := Checkpoint{Phase: "authn", ID: "authn/x509", Ordinal: 4}
	h.Publish(cp)
	waitFor(t, "target authn/x509", s.Changed, func() bool { return s.State().Target() == cp })

	s.Detach()
	if st := s.State(); st.Following || !st.Target().IsZero() || st.Instructor != cp {
		t.Fatalf("after Detach: %+v", st)
	}
	waitFor(t, "board shows ana detached", h.Changed, func() bool {
		st, ok := student(h.Board(), "ana")
		return ok && !st.Following
	})
	cp2 := Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 7}
	h.Publish(cp2)
	waitFor(t, "detached student still hears the instructor", s.Changed, func() bool { return s.State().Instructor == cp2 })
	if !s.State().Target().IsZero() {
		t.Fatal("detached student has a target")
	}
	s.Resync()
	if got := s.State().Target(); got != cp2 {
		t.Fatalf("after Resync Target() = %+v, want %+v", got, cp2)
	}
	waitFor(t, "board shows ana following", h.Changed, func() bool {
		st, ok := student(h.Board(), "ana")
		return ok && st.Following
	})
}

func TestWrongCodeRefused(t *testing.T) {
	h := startHost(t, HostConfig{})
	cfg := joinCfg(h, "mallory")
	other := "0000-00"
	if strings.HasPrefix(h.JoinCode(), other) {
		other = "1111-11"
	}
	cfg.Code = other + h.JoinCode()[len(other):] // right pin, wrong secret
	s := join(t, cfg)
	err := waitDone(t, s)
	// One sentence: what went wrong, once, and what to do.
	if !errors.Is(err, ErrWrongCode) || strings.Count(err.Error(), "wrong join code") != 1 ||
		!strings.Contains(err.Error(), "check it against the join line on the instructor's screen") {
		t.Fatalf("Err() = %v, want ErrWrongCode saying once what is wrong and what to do", err)
	}
	if b := h.Board(); len(b.Students) != 0 {
		t.Errorf("board after a wrong code: %+v", b.Students)
	}
}

func TestBadFingerprintRefused(t *testing.T) {
	h := startHost(t, HostConfig{})
	other, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	cfg := joinCfg(h, "ana")
	cfg.Code = h.id.Secret + "-" + other.Fingerprint() // right secret, another class's pin
	s := join(t, cfg)
	err = waitDone(t, s)
	if !errors.Is(err, ErrFingerprint) || !strings.Contains(err.Error(), other.Fingerprint()) || !strings.Contains(err.Error(), h.id.Fingerprint()) {
		t.Fatalf("Err() = %v, want ErrFingerprint naming both fingerprints", err)
	}
	if b := h.Board(); len(b.Students) != 0 {
		t.Errorf("the secret reached the host: board %+v", b.Students)
	}
}

func TestVersionMismatch(t *testing.T) {
	for _, tc := range []struct {
		name          string
		host, student int
	}{
		{"student older", 2, 1},
		{"student newer", 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := startHost(t, HostConfig{proto: tc.host, AppVersion: "v9.9"})
			cfg := joinCfg(h, "ana")
			cfg.proto = tc.student
			s := join(t, cfg)
			err := waitDone(t, s)
			if !errors.Is(err, ErrVersion) {
				t.Fatalf("Err() = %v, want ErrVersion", err)
			}
			for _, want := range []string{fmt.Sprintf("v%d", tc.host), fmt.Sprintf("v%d", tc.student)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Err() = %q, does not name %s", err, want)
				}
			}
		})
	}
	t.Run("foreign client", func(t *testing.T) {
		// Whatever a future version's hello holds, the host answers with a version error
		// instead of waiting for more.
		h := startHost(t, HostConfig{})
		env := rawExchange(t, h, `{"v":7,"t":"hello","name":{"first":"a"},"code":42}`+"\n")
		if env.T != tError || env.Err == nil || env.Err.Code != codeVersion || !strings.Contains(env.Err.Text, "v7") {
			t.Fatalf("answer = %+v", env)
		}
	})
	t.Run("oversized line", func(t *testing.T) {
		h := startHost(t, HostConfig{})
		env := rawExchange(t, h, strings.Repeat("x", 2*maxLine)+"\n")
		if env.T != tError || env.Err == nil || env.Err.Code != codeBadRequest {
			t.Fatalf("answer = %+v", env)
		}
	})
}

// rawExchange sends line to h over TLS (no pin check) and returns the first line back.
func rawExchange(t *testing.T, h *Host, line string) envelope {
	t.Helper()
	c, err := tls.Dial("tcp", h.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{alpn}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(bound))
	go io.WriteString(c, line) // the host may answer before reading an oversized line in full
	env, _, err := readEnvelope(bufio.NewReaderSize(c, maxLine))
	if err != nil {
		t.Fatalf("reading the host's answer: %v", err)
	}
	return env
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func TestRateLimit(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	h := startHost(t, HostConfig{now: clock.Now, RateLimit: RateLimit{PerIP: 3, PerIPEvery: time.Minute, Global: 100, GlobalEvery: time.Second}})
	right := joinCfg(h, "ana")
	// bo joined before the flood of wrong codes, through a link that will drop.
	px := newProxy(t, h.Addr().String())
	boCfg := joinCfg(h, "bo")
	boCfg.Addr = px.ln.Addr().String()
	bo := joined(t, boCfg)
	wrong := right
	wrong.Code = "ZZZZ-ZZ" + right.Code[len("ZZZZ-ZZ"):]
	if strings.HasPrefix(right.Code, "ZZZZ-ZZ") {
		wrong.Code = "YYYY-YY" + right.Code[len("YYYY-YY"):]
	}
	for i := 0; i < 3; i++ {
		if err := waitDone(t, join(t, wrong)); !errors.Is(err, ErrWrongCode) {
			t.Fatalf("wrong code %d: Err() = %v, want ErrWrongCode", i+1, err)
		}
	}
	// The bucket for 127.0.0.1 is empty: even the right code is refused, with the wait.
	s := join(t, right)
	waitFor(t, "rate-limited refusal", s.Changed, func() bool { return errors.Is(s.State().LastError, ErrRateLimited) })
	var he *hostError
	if err := s.State().LastError; !errors.As(err, &he) || he.retry <= 0 || he.retry > time.Minute || !strings.Contains(err.Error(), "try again in") ||
		strings.Count(err.Error(), "too many wrong join codes") != 1 {
		t.Fatalf("LastError = %v, want a retry time up to a minute", err)
	}
	s.Stop()
	// A student rejoining with its session token is not held up by the limit.
	px.cut()
	waitFor(t, "bo rejoined despite the limit", bo.Changed, func() bool {
		st := bo.State()
		return st.Connected && st.Reconnects >= 1
	})
	if _, ok := h.limiter.check("127.0.0.1", clock.Now()); ok {
		t.Fatal("the limit was lifted meanwhile; the rejoin proves nothing")
	}
	// One token comes back after PerIPEvery.
	clock.Add(time.Minute)
	joined(t, right)
}

func TestLimiterPerIPAndGlobal(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	l := newLimiter(RateLimit{PerIP: 2, PerIPEvery: 10 * time.Second, Global: 3, GlobalEvery: 5 * time.Second})
	steps := []struct {
		ip     string
		at     time.Duration
		fail   bool
		wantOK bool
	}{
		{"10.0.0.1", 0, true, true},
		{"10.0.0.1", 0, true, true},
		{"10.0.0.1", 0, false, false}, // per-IP bucket empty
		{"10.0.0.2", 0, true, true},   // another address is not affected…
		{"10.0.0.3", 0, false, false}, // …until the global bucket is empty
		{"10.0.0.3", 5 * time.Second, false, true},
		{"10.0.0.1", 5 * time.Second, false, false}, // half a token back, not enough
		{"10.0.0.1", 10 * time.Second, false, true},
	}
	for i, s := range steps {
		_, ok := l.check(s.ip, t0.Add(s.at))
		if ok != s.wantOK {
			t.Fatalf("step %d (%s at %s): allowed = %v, want %v", i, s.ip, s.at, ok, s.wantOK)
		}
		if s.fail {
			l.fail(s.ip, t0.Add(s.at))
		}
	}
}

func TestBroadcast(t *testing.T) {
	h := startHost(t, HostConfig{})
	var students []*Student
	for _, n := range []string{"ana", "bo", "chen"} {
		students = append(students, joined(t, joinCfg(h, n)))
	}
	if err := h.Broadcast("take a 5 minute\nbreak \x1b[31m"); err != nil {
		t.Fatal(err)
	}
	for _, s := range students {
		waitFor(t, "message on "+s.State().Name, s.Changed, func() bool {
			m := s.State().Messages
			return len(m) == 1 && m[0].Text == "take a 5 minute break [31m" && m[0].Seq == 1
		})
	}
	// A latecomer gets the latest message in its welcome.
	late := joined(t, joinCfg(h, "dee"))
	if m := late.State().Messages; len(m) != 1 || m[0].Seq != 1 {
		t.Errorf("latecomer messages = %+v", m)
	}
	for _, bad := range []string{"", " \n\t", strings.Repeat("x", MaxMessageRunes+1)} {
		if err := h.Broadcast(bad); err == nil {
			t.Errorf("Broadcast(%.20q) = nil, want an error", bad)
		}
	}
}

func TestStuckFlagOnBoard(t *testing.T) {
	h := startHost(t, HostConfig{})
	s := joined(t, joinCfg(h, "ana"))
	joined(t, joinCfg(h, "bo"))
	s.SetStuck(true)
	waitFor(t, "ana stuck, bo not", h.Changed, func() bool {
		a, _ := student(h.Board(), "ana")
		b, ok := student(h.Board(), "bo")
		return a.Stuck && ok && !b.Stuck
	})
	s.SetStuck(false)
	waitFor(t, "ana no longer stuck", h.Changed, func() bool {
		a, _ := student(h.Board(), "ana")
		return !a.Stuck
	})
}

func TestNamesUniqueAndClean(t *testing.T) {
	h := startHost(t, HostConfig{})
	want := []struct{ asked, got string }{
		{"ana", "ana"},
		{"Ana", "Ana-2"},
		{"ana", "ana-3"},
		{"\x1b]0;pwned\x07bo\u202e", "]0;pwnedbo"},
		{"   ", "student"},
	}
	for _, w := range want {
		s := joined(t, joinCfg(h, w.asked))
		if got := s.State().Name; got != w.got {
			t.Errorf("name asked %q: got %q, want %q", w.asked, got, w.got)
		}
	}
	if n := len(h.Board().Students); n != len(want) {
		t.Errorf("board has %d students, want %d", n, len(want))
	}
}

// TestSlowReaderDoesNotDelayOthers joins a student that never reads after its welcome, on a
// tiny socket buffer, then publishes far more than fits. The others still get everything
// latest, Publish and Broadcast never block, and the board counts what the stalled one lost.
func TestSlowReaderDoesNotDelayOthers(t *testing.T) {
	h := startHost(t, HostConfig{sndBuf: 4096, WriteTimeout: 5 * time.Minute, Heartbeat: time.Minute})
	fast := joined(t, joinCfg(h, "fast"))

	stalled := stalledStudent(t, h)
	defer stalled.Close()
	// From here on the stalled student reads nothing.

	const n = 2000
	text := strings.Repeat("m", MaxMessageRunes-10)
	var last Checkpoint
	for i := 1; i <= n; i++ {
		if err := h.Broadcast(fmt.Sprintf("%s %05d", text, i)); err != nil {
			t.Fatal(err)
		}
		last = Checkpoint{Phase: "serve", ID: fmt.Sprintf("serve/step-%d", i), Ordinal: i}
		h.Publish(last)
	}
	waitFor(t, "fast student at the last checkpoint and message", fast.Changed, func() bool {
		st := fast.State()
		return st.Instructor == last && len(st.Messages) > 0 && st.Messages[len(st.Messages)-1].Seq == n
	})
	b := h.Board()
	st, ok := student(b, "stalled")
	if !ok || !st.Connected || st.Dropped == 0 {
		t.Fatalf("stalled student on the board: %+v (want connected with dropped messages)", st)
	}
	t.Logf("stalled student dropped %d of %d messages", st.Dropped, n)
}

// stalledStudent joins h with a tiny receive buffer and returns the connection, which the
// caller never reads from.
func stalledStudent(tb testing.TB, h *Host) net.Conn {
	tb.Helper()
	raw, err := net.Dial("tcp", h.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	raw.(*net.TCPConn).SetReadBuffer(4096)
	c := tls.Client(raw, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{alpn}})
	buf, _ := appendEnvelope(nil, envelope{V: ProtocolVersion, T: tHello, Name: "stalled", Code: h.id.Secret, Beat: time.Minute.Milliseconds()})
	c.SetDeadline(time.Now().Add(bound))
	if _, err := c.Write(buf); err != nil {
		tb.Fatal(err)
	}
	if w, _, err := readEnvelope(bufio.NewReaderSize(c, maxLine)); err != nil || w.T != tWelcome {
		tb.Fatalf("stalled student's welcome: %+v, %v", w, err)
	}
	return c
}

// proxy forwards TCP connections to a target and can cut them all, like a flaky Wi-Fi.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Add(2)
			go func() { defer p.wg.Done(); io.Copy(up, c); up.Close() }()
			go func() { defer p.wg.Done(); io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close(); p.cut(); p.wg.Wait() })
	return p
}

func (p *proxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	return n / 2
}

func TestDropAndAutoRejoin(t *testing.T) {
	h := startHost(t, HostConfig{})
	px := newProxy(t, h.Addr().String())
	cfg := joinCfg(h, "ana")
	cfg.Addr = px.ln.Addr().String()
	s := joined(t, cfg)
	s.SetStuck(true)
	waitFor(t, "ana stuck", h.Changed, func() bool { a, _ := student(h.Board(), "ana"); return a.Stuck })

	if px.cut() != 1 {
		t.Fatal("no connection to cut")
	}
	waitFor(t, "board shows ana disconnected", h.Changed, func() bool { a, _ := student(h.Board(), "ana"); return !a.Connected })
	// Work goes on while disconnected: what the student does now is sent on rejoining, and
	// what the instructor does now reaches the student then.
	s.Report(Checkpoint{Phase: "authn", ID: "authn/x509", Ordinal: 5}, 2)
	cp := Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 9}
	h.Publish(cp)

	waitFor(t, "student rejoined and caught up", s.Changed, func() bool {
		st := s.State()
		return st.Connected && st.Reconnects >= 1 && st.Instructor == cp
	})
	waitFor(t, "board: one ana, connected, still stuck, with the new progress", h.Changed, func() bool {
		b := h.Board()
		a, _ := student(b, "ana")
		return len(b.Students) == 1 && a.Connected && a.Stuck && a.Done == 2 && a.Checkpoint.ID == "authn/x509"
	})
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
}

func TestHostRestart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		persist bool
	}{{"persisted identity", true}, {"new identity", false}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "class.pem")
			id, created, err := LoadOrCreateIdentity(path)
			if err != nil || !created {
				t.Fatalf("LoadOrCreateIdentity: %v, created %v", err, created)
			}
			h1, err := StartHost(context.Background(), HostConfig{Listen: "127.0.0.1:0", Identity: id, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			addr := h1.Addr().String()
			s := joined(t, StudentConfig{Addr: addr, Code: h1.JoinCode(), Name: "ana", BackoffMin: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond, Logf: t.Logf})
			h1.Publish(Checkpoint{Phase: "config", ID: "config/scheme", Ordinal: 1})
			waitFor(t, "first checkpoint", s.Changed, func() bool { return s.State().Instructor.Ordinal == 1 })

			h1.Stop()
			waitFor(t, "student sees the host stop", s.Changed, func() bool { return !s.State().Connected })

			id2 := id
			if tc.persist {
				if id2, created, err = LoadOrCreateIdentity(path); err != nil || created {
					t.Fatalf("reload: %v, created %v", err, created)
				}
			} else if id2, err = NewIdentity(); err != nil {
				t.Fatal(err)
			}
			h2 := startHost(t, HostConfig{Listen: addr, Identity: id2})
			if tc.persist {
				if h2.JoinLine() != h1.JoinLine() {
					t.Fatalf("join line changed across a restart with a persisted identity: %q → %q", h1.JoinLine(), h2.JoinLine())
				}
				cp := Checkpoint{Phase: "authn", ID: "authn/x509", Ordinal: 3}
				h2.Publish(cp)
				waitFor(t, "student back on the restarted host", s.Changed, func() bool {
					st := s.State()
					return st.Connected && st.Instructor == cp
				})
				return
			}
			err = waitDone(t, s)
			if !errors.Is(err, ErrHostChanged) || !strings.Contains(err.Error(), "new join line") {
				t.Fatalf("Err() = %v, want ErrHostChanged telling the student what to do", err)
			}
			// The student's own work is unaffected: reporting after the end does not block.
			s.Report(Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 9}, 1)
			s.SetStuck(true)
		})
	}
}

func TestStartHostBusyPort(t *testing.T) {
	h := startHost(t, HostConfig{})
	_, err := StartHost(context.Background(), HostConfig{Listen: h.Addr().String()})
	if err == nil || !strings.Contains(err.Error(), "--listen") {
		t.Fatalf("StartHost on a busy port: %v", err)
	}
}

func TestHostStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h, err := StartHost(ctx, HostConfig{Listen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	s := joined(t, joinCfg(h, "ana"))
	cancel()
	select {
	case <-h.Done():
	case <-time.After(bound):
		t.Fatal("host did not stop with its context")
	}
	waitFor(t, "student told the host stopped", s.Changed, func() bool { return errors.Is(s.State().LastError, ErrHostStopped) || !s.State().Connected })
}

func TestParseJoinCode(t *testing.T) {
	id, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	full := id.JoinCode()
	for _, tc := range []struct {
		in      string
		wantErr string
	}{
		{full, ""},
		{strings.ToLower(full), ""},
		{strings.ReplaceAll(full, "-", " "), ""},
		{strings.ReplaceAll(strings.ReplaceAll(full, "0", "o"), "1", "l"), ""},
		{id.Secret, "not the certificate fingerprint"},
		{full[:len(full)-1], "has 21 symbols, want 22"},
		{full + "X", "has 23 symbols"},
		{"4F7K-Q2-8K3M-T9QX-2HVD-R4NU", `contains 'U'`},
		{"4F7K-Q2-8K3M-T9QX-2HVD-R4N!", `contains '!'`},
		{"", "has 0 symbols"},
	} {
		jc, err := parseJoinCode(tc.in)
		if tc.wantErr == "" {
			if err != nil || jc.secret != id.Secret || jc.pin != pinOf(id.Cert.Leaf) {
				t.Errorf("parseJoinCode(%q) = %+v, %v", tc.in, jc, err)
			}
			continue
		}
		if !errors.Is(err, ErrBadJoinCode) || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("parseJoinCode(%q) error = %v, want ErrBadJoinCode mentioning %q", tc.in, err, tc.wantErr)
		}
	}
	if _, err := Join(context.Background(), StudentConfig{Addr: "127.0.0.1:1", Code: "4F7K-Q2"}); !errors.Is(err, ErrBadJoinCode) {
		t.Errorf("Join with half a code: %v", err)
	}
}

func TestIdentitySaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "class.pem")
	id, created, err := LoadOrCreateIdentity(path)
	if err != nil || !created {
		t.Fatalf("create: %v %v", err, created)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("identity file mode: %v %v", fi.Mode(), err)
	}
	again, created, err := LoadOrCreateIdentity(path)
	if err != nil || created || again.JoinCode() != id.JoinCode() {
		t.Fatalf("reload: %v created=%v %q vs %q", err, created, again.JoinCode(), id.JoinCode())
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("world-readable identity: %v", err)
	}
	os.Chmod(path, 0o600)
	if err := os.WriteFile(path, []byte("not pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(path); err == nil {
		t.Error("garbage identity loaded")
	}
}

func TestCleanText(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		max      int
	}{
		{"hello", "hello", 10},
		{"  a \n\t b  ", "a b", 10},
		{"\x1b[2Jclear", "[2Jclear", 20},
		{"rtl\u202eevil\u200b", "rtlevil", 20},
		{"abcdef", "abc", 3},
		{"ab cd", "ab", 3},
		{"\xff\xfe", "\uFFFD", 5}, // a run of invalid bytes becomes one replacement
		{"中文名字", "中文名", 3},
	} {
		if got := cleanText(tc.in, tc.max); got != tc.want {
			t.Errorf("cleanText(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestPendingConnectionsBoundedPerAddress(t *testing.T) {
	h := startHost(t, HostConfig{})
	var idle []net.Conn
	for i := 0; i < maxPendingPerIP; i++ {
		c, err := net.Dial("tcp", h.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		idle = append(idle, c)
	}
	// The host counts a connection when it accepts it; one over the limit is closed at once.
	extra, err := net.Dial("tcp", h.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	extra.SetReadDeadline(time.Now().Add(bound))
	if _, err := extra.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("connection over the per-address limit: read = %v, want EOF", err)
	}
	for _, c := range idle {
		c.Close()
	}
	// Once they are gone, a student from the same address joins.
	joined(t, joinCfg(h, "ana"))
}

func TestJoinLineOnAllInterfaces(t *testing.T) {
	h := startHost(t, HostConfig{Listen: "0.0.0.0:0"})
	line := h.JoinLine()
	if h.LoopbackOnly() || strings.Contains(line, "0.0.0.0") || !strings.Contains(line, " --code "+h.JoinCode()) {
		t.Fatalf("JoinLine() = %q, LoopbackOnly() = %v", line, h.LoopbackOnly())
	}
	addr := strings.Fields(line)[2]
	_, port, _ := net.SplitHostPort(addr)
	cfg := joinCfg(h, "ana")
	cfg.Addr = net.JoinHostPort("127.0.0.1", port)
	joined(t, cfg)
	t.Logf("join line: %s", line)
}

// TestHostErrorSaysItOnce: an error line reads as one sentence, also from a host of an earlier
// build whose text began with the sentinel's words.
func TestHostErrorSaysItOnce(t *testing.T) {
	for _, tc := range []struct {
		code, text, want string
	}{
		{codeWrongCode, "check it against the join line on the instructor's screen",
			"classroom: wrong join code: check it against the join line on the instructor's screen"},
		{codeWrongCode, "wrong join code: check it against the instructor's screen",
			"classroom: wrong join code: check it against the instructor's screen"},
		{codeRateLimited, "try again in 12s", "classroom: too many wrong join codes: try again in 12s"},
		{codeRateLimited, "too many wrong join codes; try again in 12s", "classroom: too many wrong join codes; try again in 12s"},
		{codeShutdown, "the instructor ended the class (or is restarting it)",
			"classroom: the class host stopped: the instructor ended the class (or is restarting it)"},
		{codeFull, "", "classroom: the class is full"},
		{codeFull, "the class is full (40 students)", "classroom: the class is full (40 students)"},
	} {
		err := fromWire(&wireError{Code: tc.code, Text: tc.text}, "127.0.0.1:1")
		if got := err.Error(); got != tc.want {
			t.Errorf("%s %q: Error() = %q, want %q", tc.code, tc.text, got, tc.want)
		}
	}
}
