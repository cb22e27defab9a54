package classroom

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"sync"
	"time"
)

// StudentConfig configures a student's connection to a class.
type StudentConfig struct {
	// Addr is the host's address, as in the join line.
	Addr string
	// Code is the join code as typed (secret and certificate pin).
	Code string
	// Name is the name to show on the board; the host suffixes it if taken.
	Name string
	// AppVersion is the kubewalk version, shown on the board.
	AppVersion string
	// Progress is the student's progress when it joins; Following is set true (a student
	// starts by following).
	Progress Progress
	// Heartbeat is how often the student pings; default 10 s.
	Heartbeat time.Duration
	// DialTimeout bounds connecting, the TLS handshake and the welcome; default 10 s.
	DialTimeout time.Duration
	// BackoffMin and BackoffMax bound the wait between reconnection attempts, which doubles
	// from BackoffMin up to BackoffMax, each wait drawn at random in its upper half so that a
	// class does not reconnect in step. Defaults 250 ms and 10 s.
	BackoffMin, BackoffMax time.Duration
	// Logf receives diagnostics; nil discards them. The student never prints.
	Logf func(format string, args ...any)

	proto int // test hook: protocol version spoken, if not ProtocolVersion
}

// StudentState is a snapshot of a student's side of the class.
type StudentState struct {
	// Connected is true while the channel to the host is up.
	Connected bool
	// Name is the name the host gave this student (the requested one, perhaps suffixed).
	Name string
	// Title is the class title; HostApp the instructor's kubewalk version.
	Title, HostApp string
	// Instructor is the furthest checkpoint the instructor has published; it never goes back.
	Instructor Checkpoint
	// Progress is what this student last reported (including Stuck and Following).
	Progress
	// Messages are the instructor's recent messages, oldest first.
	Messages []Message
	// Assigned is the exercise the instructor assigned to the class (Seq 0: none yet; an
	// empty ID: taken back).
	Assigned Assignment
	// Ended is set when the host said the class ended (the instructor stopped it) and stays
	// set until a host admits the student again: the student keeps trying, slowly, so that a
	// class the instructor starts again picks it up.
	Ended bool
	// Reconnects counts connections re-established after a drop.
	Reconnects int
	// LastError is why the last connection ended or the last attempt failed; nil while
	// connected.
	LastError error
	// Err is set when the student has stopped following for good (wrong code, version
	// mismatch, certificate mismatch); Done is closed then.
	Err error
}

// Target is where the student's tour should run forward to: the instructor's checkpoint while
// following, nothing while detached.
func (s StudentState) Target() Checkpoint {
	if !s.Following {
		return Checkpoint{}
	}
	return s.Instructor
}

// Student is a follower's connection to a class. Create it with Join; always Stop it.
type Student struct {
	cfg  StudentConfig
	code joinCode

	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{}
	done   chan struct{}

	readyOnce sync.Once

	mu       sync.Mutex
	st       StudentState
	token    string // the host's token for this student, to resume its record
	pinned   bool   // a host with the pin has admitted us at least once
	unsent   bool   // progress changed since last sent
	wake     chan struct{}
	changed  chan struct{}
	connects int
}

// Join checks the join code and starts following the class at cfg.Addr in the background: a
// malformed code is an error here; everything else (an unreachable host included) is retried
// or, if fatal, reported by Err once Done closes. Ready closes when the host first admits the
// student. The student stops when ctx ends or Stop is called.
func Join(ctx context.Context, cfg StudentConfig) (*Student, error) {
	code, err := parseJoinCode(cfg.Code)
	if err != nil {
		return nil, fmt.Errorf("class join: %w", err)
	}
	if cfg.Addr == "" {
		return nil, errors.New("class join: no host address (the join line gives it, e.g. 192.168.1.20:7443)")
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return nil, fmt.Errorf("class join: host address %q: %w", cfg.Addr, err)
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 10 * time.Second
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = 250 * time.Millisecond
	}
	if cfg.BackoffMax < cfg.BackoffMin {
		cfg.BackoffMax = max(10*time.Second, cfg.BackoffMin)
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.proto == 0 {
		cfg.proto = ProtocolVersion
	}
	s := &Student{
		cfg:     cfg,
		code:    code,
		ready:   make(chan struct{}),
		done:    make(chan struct{}),
		wake:    make(chan struct{}, 1),
		changed: make(chan struct{}),
	}
	s.st.Progress = cfg.Progress.clean()
	s.st.Following = true
	s.st.Name = cleanText(cfg.Name, MaxNameRunes)
	s.ctx, s.cancel = context.WithCancel(ctx)
	go s.run()
	return s, nil
}

// Ready closes when the host has admitted the student for the first time.
func (s *Student) Ready() <-chan struct{} { return s.ready }

// Done closes when the student has stopped for good: Stop, the context, or a fatal error.
func (s *Student) Done() <-chan struct{} { return s.done }

// Err is the fatal error that stopped the student, or nil (also nil after Stop).
func (s *Student) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Err
}

// Stop closes the connection and stops reconnecting. Local work is not affected.
func (s *Student) Stop() {
	s.cancel()
	<-s.done
}

// State returns a snapshot.
func (s *Student) State() StudentState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.st
	st.Messages = slices.Clone(s.st.Messages)
	return st
}

// Changed returns a channel that closes at the next change of State. Take it before reading
// State so that no change is missed.
func (s *Student) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *Student) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// update changes the student's own progress and sends it when connected (or with the next
// hello). It never blocks on the network.
func (s *Student) update(f func(p *Progress)) {
	s.mu.Lock()
	before := s.st.Progress
	f(&s.st.Progress)
	s.st.Progress = s.st.Progress.clean()
	if s.st.Progress != before {
		s.unsent = true
		s.notifyLocked()
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Report sets where the student's own tour is and how many exercises it has done.
func (s *Student) Report(cp Checkpoint, done int) {
	s.update(func(p *Progress) { p.Checkpoint, p.Done = cp, done })
}

// ReportExercise sets the student's state on the assigned exercise (see ExerciseProgress;
// an empty id: nothing to report).
func (s *Student) ReportExercise(ex ExerciseProgress) {
	s.update(func(p *Progress) { p.Exercise = ex })
}

// SetStuck raises or lowers the student's stuck flag on the instructor's board.
func (s *Student) SetStuck(stuck bool) { s.update(func(p *Progress) { p.Stuck = stuck }) }

// Detach stops following (the student goes at its own pace; Target becomes zero) but stays
// connected: the instructor's checkpoint and messages still arrive.
func (s *Student) Detach() { s.update(func(p *Progress) { p.Following = false }) }

// Resync follows the instructor again: Target becomes the instructor's checkpoint.
func (s *Student) Resync() { s.update(func(p *Progress) { p.Following = true }) }

// hostError is an error line from the host.
type hostError struct {
	sentinel error
	text     string
	retry    time.Duration
}

// Error is the sentinel's words and the host's explanation, once: a host of an earlier build
// repeats the sentinel's words at the start of its text ("wrong join code: check it …"), which
// are then not said twice.
func (e *hostError) Error() string {
	what := e.sentinel.Error()
	if e.text == "" {
		return what
	}
	if short := strings.TrimPrefix(what, "classroom: "); strings.HasPrefix(strings.ToLower(e.text), short) {
		return "classroom: " + e.text
	}
	return what + ": " + e.text
}
func (e *hostError) Unwrap() error { return e.sentinel }

func fromWire(w *wireError, addr string) error {
	if w == nil {
		return fmt.Errorf("%w: the host at %s closed the channel without saying why", ErrProtocol, addr)
	}
	text := cleanText(w.Text, MaxMessageRunes)
	e := &hostError{text: text, retry: time.Duration(w.RetryMS) * time.Millisecond}
	switch w.Code {
	case codeVersion:
		e.sentinel = ErrVersion
	case codeWrongCode:
		e.sentinel = ErrWrongCode
	case codeRateLimited:
		e.sentinel = ErrRateLimited
	case codeFull:
		e.sentinel = ErrClassFull
	case codeShutdown:
		e.sentinel = ErrHostStopped
	default:
		e.sentinel = ErrProtocol
	}
	return e
}

// fatal errors stop the student: retrying cannot help.
func fatal(err error) bool {
	for _, f := range []error{ErrVersion, ErrWrongCode, ErrFingerprint, ErrHostChanged} {
		if errors.Is(err, f) {
			return true
		}
	}
	return false
}

func (s *Student) run() {
	defer close(s.done)
	defer s.cancel()
	failures := 0
	for {
		established, err := s.session()
		if s.ctx.Err() != nil {
			s.disconnected(nil, false)
			return
		}
		if fatal(err) {
			s.cfg.Logf("class join: %v", err)
			s.disconnected(err, true)
			return
		}
		if established {
			failures = 0
		}
		if errors.Is(err, ErrHostStopped) {
			// The instructor ended the class: try again only now and then, in case it
			// starts again.
			failures = max(failures, 30)
			s.ended()
		}
		wait := backoff(failures, s.cfg.BackoffMin, s.cfg.BackoffMax)
		failures++
		var he *hostError
		if errors.As(err, &he) && he.retry > wait {
			wait = he.retry
		}
		s.cfg.Logf("class join: %v; retrying in %s", err, wait.Round(time.Millisecond))
		s.disconnected(err, false)
		t := time.NewTimer(wait)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.disconnected(nil, false)
			return
		case <-t.C:
		}
	}
}

// backoff is the wait before attempt n+1: doubling from lo to hi, drawn in its upper half.
func backoff(n int, lo, hi time.Duration) time.Duration {
	d := hi
	if n < 30 {
		if x := lo << n; x > 0 && x < hi {
			d = x
		}
	}
	return d/2 + rand.N(d/2+1)
}

// ended notes that the host said the class ended.
func (s *Student) ended() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.st.Ended {
		s.st.Ended = true
		s.notifyLocked()
	}
}

func (s *Student) disconnected(err error, isFatal bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.Connected = false
	s.st.LastError = err
	if isFatal {
		s.st.Err = err
	}
	s.notifyLocked()
}

// session runs one connection: dial, verify, hello, welcome, then lines until it drops.
// established reports whether the host admitted the student.
func (s *Student) session() (established bool, err error) {
	addr := s.cfg.Addr
	d := net.Dialer{Timeout: s.cfg.DialTimeout, KeepAlive: 15 * time.Second}
	raw, err := d.DialContext(s.ctx, "tcp", addr)
	if err != nil {
		return false, fmt.Errorf("class join: connect to %s: %w", addr, err)
	}
	defer raw.Close()
	stop := context.AfterFunc(s.ctx, func() { raw.Close() })
	defer stop()

	var pinErr error
	tc := tls.Client(raw, &tls.Config{
		// The chain is not verified against any CA: the class certificate is self-signed and
		// the join code pins its key, which VerifyConnection checks before anything is sent.
		InsecureSkipVerify: true,
		MinVersion:         tls.VersionTLS13,
		NextProtos:         []string{alpn},
		ServerName:         "kubewalk-class",
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				pinErr = fmt.Errorf("%w: the host at %s sent no certificate", ErrFingerprint, addr)
				return pinErr
			}
			got := pinOf(cs.PeerCertificates[0])
			if got == s.code.pin {
				return nil
			}
			s.mu.Lock()
			pinned := s.pinned
			s.mu.Unlock()
			if pinned {
				pinErr = fmt.Errorf("%w: the host at %s now has fingerprint %s, not %s; ask the instructor for the new join line",
					ErrHostChanged, addr, group(encodePin(got), 4, 4, 4, 4), group(encodePin(s.code.pin), 4, 4, 4, 4))
			} else {
				pinErr = fmt.Errorf("%w: the host at %s has fingerprint %s but the code says %s; check the code against the instructor's screen (if it is right, someone may be intercepting the connection)",
					ErrFingerprint, addr, group(encodePin(got), 4, 4, 4, 4), group(encodePin(s.code.pin), 4, 4, 4, 4))
			}
			return pinErr
		},
	})
	tc.SetDeadline(time.Now().Add(s.cfg.DialTimeout))
	if err := tc.HandshakeContext(s.ctx); err != nil {
		if pinErr != nil {
			return false, pinErr
		}
		return false, fmt.Errorf("class join: TLS handshake with %s: %w", addr, err)
	}

	s.mu.Lock()
	pr := s.st.Progress
	hello := envelope{V: s.cfg.proto, T: tHello, Name: cleanText(s.cfg.Name, MaxNameRunes), Code: s.code.secret,
		App: s.cfg.AppVersion, Session: s.token, Progress: &pr, Beat: s.cfg.Heartbeat.Milliseconds()}
	s.unsent = false
	s.mu.Unlock()
	buf, err := appendEnvelope(nil, hello)
	if err != nil {
		return false, fmt.Errorf("class join: %w", err)
	}
	if _, err := tc.Write(buf); err != nil {
		return false, fmt.Errorf("class join: send hello to %s: %w", addr, err)
	}
	br := bufio.NewReaderSize(tc, maxLine)
	w, _, err := readEnvelope(br)
	if err != nil {
		return false, fmt.Errorf("class join: waiting for the welcome from %s: %w", addr, err)
	}
	if w.T == tError || w.T == tBye {
		return false, fromWire(w.Err, addr)
	}
	if w.V != s.cfg.proto {
		return false, fmt.Errorf("%w: the class host speaks protocol v%d and this kubewalk (%s) speaks v%d: install the instructor's kubewalk version to join",
			ErrVersion, w.V, orUnknown(s.cfg.AppVersion), s.cfg.proto)
	}
	if w.T != tWelcome {
		return false, fmt.Errorf("%w: expected a welcome from %s, got %q", ErrProtocol, addr, w.T)
	}
	tc.SetDeadline(time.Time{})
	s.welcomed(w)

	silence := 3 * max(s.cfg.Heartbeat, min(time.Duration(w.Beat)*time.Millisecond, maxBeat))
	wdone := make(chan struct{})
	wstop := make(chan struct{})
	go func() {
		defer close(wdone)
		s.writeLoop(tc, wstop)
	}()
	err = s.readLoop(br, tc, silence)
	close(wstop)
	raw.Close()
	<-wdone
	return true, err
}

func (s *Student) welcomed(w envelope) {
	s.mu.Lock()
	s.token = w.Session
	s.pinned = true
	s.st.Connected = true
	s.st.Ended = false
	s.st.LastError = nil
	s.st.Name = cleanText(w.Name, MaxNameRunes)
	s.st.Title = cleanText(w.Title, MaxMessageRunes)
	s.st.HostApp = cleanText(w.App, maxFieldRunes)
	if s.connects > 0 {
		s.st.Reconnects++
	}
	s.connects++
	if w.Checkpoint != nil {
		s.instructorLocked(*w.Checkpoint)
	}
	if w.Message != nil {
		s.messageLocked(*w.Message)
	}
	if w.Assign != nil {
		s.assignLocked(*w.Assign)
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.readyOnce.Do(func() { close(s.ready) })
}

func (s *Student) instructorLocked(cp Checkpoint) bool {
	cp = cp.clean()
	if !cp.advances(s.st.Instructor) {
		return false
	}
	s.st.Instructor = cp
	return true
}

// assignLocked takes an assignment unless it is the one the student has, or an older one of
// the same host run.
func (s *Student) assignLocked(a Assignment) bool {
	a.ID = cleanText(a.ID, maxFieldRunes)
	cur := s.st.Assigned
	if a.Seq <= 0 || (a.Instance == cur.Instance && a.Seq <= cur.Seq) {
		return false
	}
	s.st.Assigned = a
	return true
}

func (s *Student) messageLocked(m Message) bool {
	m.Text = cleanText(m.Text, MaxMessageRunes)
	for _, old := range s.st.Messages {
		if old.Seq == m.Seq && old.Instance == m.Instance {
			return false
		}
	}
	s.st.Messages = append(s.st.Messages, m)
	if n := len(s.st.Messages) - keepMessages; n > 0 {
		s.st.Messages = slices.Delete(s.st.Messages, 0, n)
	}
	return true
}

func (s *Student) readLoop(br *bufio.Reader, c net.Conn, silence time.Duration) error {
	for {
		c.SetReadDeadline(time.Now().Add(silence))
		env, _, err := readEnvelope(br)
		if err != nil {
			return fmt.Errorf("class join: connection to %s lost: %w", s.cfg.Addr, err)
		}
		if env.T == tError || env.T == tBye {
			return fromWire(env.Err, s.cfg.Addr)
		}
		if env.V != s.cfg.proto {
			return fmt.Errorf("%w: the class host switched to protocol v%d; this kubewalk speaks v%d", ErrVersion, env.V, s.cfg.proto)
		}
		s.mu.Lock()
		changed := false
		switch env.T {
		case tCheckpoint:
			if env.Checkpoint != nil {
				changed = s.instructorLocked(*env.Checkpoint)
			}
		case tMessage:
			if env.Message != nil {
				changed = s.messageLocked(*env.Message)
			}
		case tAssign:
			if env.Assign != nil {
				changed = s.assignLocked(*env.Assign)
			}
		}
		if changed {
			s.notifyLocked()
		}
		s.mu.Unlock()
	}
}

// writeLoop sends the student's progress when it changes and a ping every heartbeat.
func (s *Student) writeLoop(c net.Conn, stop <-chan struct{}) {
	tick := time.NewTicker(s.cfg.Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-s.wake:
		case <-tick.C:
		}
		s.mu.Lock()
		env := envelope{V: s.cfg.proto, T: tPing}
		if s.unsent {
			pr := s.st.Progress
			env = envelope{V: s.cfg.proto, T: tProgress, Progress: &pr}
			s.unsent = false
		}
		s.mu.Unlock()
		buf, err := appendEnvelope(nil, env)
		if err != nil {
			return
		}
		c.SetWriteDeadline(time.Now().Add(s.cfg.DialTimeout))
		if _, err := c.Write(buf); err != nil {
			c.Close()
			return
		}
	}
}
