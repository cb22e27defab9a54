package classroom

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultListen is where a host listens unless told otherwise: loopback only. A class on a LAN
// passes an address such as 0.0.0.0:7443 explicitly.
const DefaultListen = "127.0.0.1:7443"

// alpn names the class channel in the TLS handshake. It carries no version (a mismatch there
// would fail the handshake with an obscure alert); the version is in every line.
const alpn = "kubewalk-class"

// HostConfig configures a class host. The zero value (plus a context) is a working host on
// DefaultListen with a fresh identity.
type HostConfig struct {
	// Listen is the address to listen on; default DefaultListen.
	Listen string
	// Title names the class on students' screens.
	Title string
	// AppVersion is the kubewalk version, quoted in version errors.
	AppVersion string
	// Identity is the certificate and join secret; nil generates a fresh one in memory (the
	// join line then changes if the host restarts). See LoadOrCreateIdentity to persist it.
	Identity *Identity
	// MaxStudents bounds the board; default 200.
	MaxStudents int
	// Heartbeat is how often each side pings; a connection silent for three heartbeats is
	// dropped. Default 10 s.
	Heartbeat time.Duration
	// WriteTimeout bounds one write to a student; a student that reads nothing for this long
	// is disconnected (it rejoins on its own). Default 15 s.
	WriteTimeout time.Duration
	// HelloTimeout bounds the TLS handshake plus the hello line. Default 10 s.
	HelloTimeout time.Duration
	// RateLimit bounds wrong join codes.
	RateLimit RateLimit
	// QueueLen bounds the messages waiting for one student; beyond it the oldest is dropped
	// (and counted in StudentStatus.Dropped). The instructor's checkpoint is not queued: only
	// the latest is kept per student. Default 16.
	QueueLen int
	// Logf receives diagnostics; nil discards them. The host never prints.
	Logf func(format string, args ...any)

	// Test hooks.
	now    func() time.Time // clock for rate limits and the board
	proto  int              // protocol version spoken, if not ProtocolVersion
	sndBuf int              // socket send buffer for accepted connections, if > 0
}

// maxPending bounds connections that have not yet said hello with the right code, in all and
// from one address (so one machine holding connections open cannot lock the class out).
const (
	maxPending      = 64
	maxPendingPerIP = 8
)

// maxBeat caps the heartbeat a peer may announce (it sets how long silence is tolerated).
const maxBeat = time.Minute

// StudentStatus is one row of the class board.
type StudentStatus struct {
	Name string
	// Addr is the student's address as the host sees it.
	Addr string
	// App is the student's kubewalk version.
	App string
	Progress
	// Connected is false while the student's connection is down (it may rejoin).
	Connected bool
	JoinedAt  time.Time
	// LastSeen is the last line received from the student (heartbeats included).
	LastSeen time.Time
	// LastActive is the last change in the student's progress or stuck flag; Idle is the time
	// since, as of Board.At.
	LastActive time.Time
	Idle       time.Duration
	// Dropped counts messages this student missed because its link could not keep up.
	Dropped int
}

// Board is a snapshot of the class.
type Board struct {
	Title    string
	JoinLine string
	// Checkpoint is the instructor's published checkpoint.
	Checkpoint Checkpoint
	// Message is the latest broadcast (Seq 0: none).
	Message Message
	// Assigned is the exercise assigned to the class (Seq 0: none yet; an empty ID: taken
	// back). A student's Progress.Exercise reports its state on it.
	Assigned Assignment
	Students []StudentStatus
	At       time.Time
}

// Host is a running class endpoint. Create it with StartHost; always Stop it.
type Host struct {
	cfg      HostConfig
	id       *Identity
	ln       net.Listener
	tlsConf  *tls.Config
	instance string
	limiter  *limiter

	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup
	stop   sync.Once

	mu       sync.Mutex
	sessions map[string]*record // by session token
	names    map[string]*record // by folded name
	conns    map[net.Conn]struct{}
	pending  int
	pendIP   map[string]int
	cp       Checkpoint
	msg      Message
	assigned Assignment
	changed  chan struct{}
	stopping bool
}

// record is what the host keeps about one student, across its reconnections.
type record struct {
	name, session, addr, app string
	progress                 Progress
	joined, seen, active     time.Time
	peer                     *peer // nil while disconnected
	dropped                  int   // from earlier connections
}

// StartHost listens and starts accepting students. It returns once the listener is bound (so a
// busy port is an error here); Ready closes when the accept loop runs. The host stops when ctx
// ends or Stop is called.
func StartHost(ctx context.Context, cfg HostConfig) (*Host, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.MaxStudents <= 0 {
		cfg.MaxStudents = 200
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 10 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 15 * time.Second
	}
	if cfg.HelloTimeout <= 0 {
		cfg.HelloTimeout = 10 * time.Second
	}
	if cfg.QueueLen <= 0 {
		cfg.QueueLen = 16
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.proto == 0 {
		cfg.proto = ProtocolVersion
	}
	cfg.Title = cleanText(cfg.Title, MaxMessageRunes)
	id := cfg.Identity
	if id == nil {
		var err error
		if id, err = NewIdentity(); err != nil {
			return nil, fmt.Errorf("class host: %w", err)
		}
	}
	inst := make([]byte, 8)
	if _, err := rand.Read(inst); err != nil {
		return nil, fmt.Errorf("class host: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("class host: listen on %s (pass another address with --listen): %w", cfg.Listen, err)
	}
	h := &Host{
		cfg: cfg,
		id:  id,
		ln:  ln,
		tlsConf: &tls.Config{
			Certificates: []tls.Certificate{id.Cert},
			MinVersion:   tls.VersionTLS13,
			NextProtos:   []string{alpn},
		},
		instance: hex.EncodeToString(inst),
		limiter:  newLimiter(cfg.RateLimit),
		ready:    make(chan struct{}),
		done:     make(chan struct{}),
		sessions: map[string]*record{},
		names:    map[string]*record{},
		conns:    map[net.Conn]struct{}{},
		pendIP:   map[string]int{},
		changed:  make(chan struct{}),
	}
	h.ctx, h.cancel = context.WithCancel(ctx)
	h.wg.Add(1)
	go h.acceptLoop()
	go func() {
		<-h.ctx.Done()
		h.Stop()
	}()
	return h, nil
}

// Ready closes when the host accepts students.
func (h *Host) Ready() <-chan struct{} { return h.ready }

// Done closes when the host has stopped and every connection is closed.
func (h *Host) Done() <-chan struct{} { return h.done }

// Addr is the address the host listens on (with the real port if Listen asked for port 0).
func (h *Host) Addr() net.Addr { return h.ln.Addr() }

// JoinCode is the code students type: the join secret and the certificate pin.
func (h *Host) JoinCode() string { return h.id.JoinCode() }

// JoinLine is the exact line students type, e.g.
// "kubewalk join 192.168.1.20:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA". When the host listens
// on all interfaces, the address shown is the first non-loopback IPv4 address of this machine.
func (h *Host) JoinLine() string {
	return "kubewalk join " + h.joinAddr() + " --code " + h.JoinCode()
}

// LoopbackOnly reports whether the host listens on loopback only (students on other machines
// cannot join; the TUI says how to pass --listen).
func (h *Host) LoopbackOnly() bool {
	if ta, ok := h.ln.Addr().(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	return false
}

func (h *Host) joinAddr() string {
	ta, ok := h.ln.Addr().(*net.TCPAddr)
	if !ok {
		return h.ln.Addr().String()
	}
	port := strconv.Itoa(ta.Port)
	if !ta.IP.IsUnspecified() {
		return net.JoinHostPort(ta.IP.String(), port)
	}
	if ip := lanIP(); ip != nil {
		return net.JoinHostPort(ip.String(), port)
	}
	return net.JoinHostPort("127.0.0.1", port)
}

// lanIP is the first IPv4 address of an interface that is up, not loopback and not a
// container or VM bridge (students cannot reach those), or nil.
func lanIP() net.IP {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		virtual := false
		for _, pre := range []string{"docker", "br-", "veth", "virbr", "cni", "flannel", "cali", "vmnet", "vboxnet", "lxc", "lxd"} {
			virtual = virtual || strings.HasPrefix(ifc.Name, pre)
		}
		if virtual {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil && ipn.IP.IsGlobalUnicast() {
				return ipn.IP
			}
		}
	}
	return nil
}

// Changed returns a channel that closes at the next change of the board (a student joining,
// leaving or reporting, a publish or a broadcast). Take it before reading Board so that no
// change is missed.
func (h *Host) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// notifyLocked wakes Changed waiters; h.mu is held.
func (h *Host) notifyLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Board returns a snapshot of the class, students sorted by name.
func (h *Host) Board() Board {
	now := h.cfg.now()
	line := h.JoinLine()
	h.mu.Lock()
	defer h.mu.Unlock()
	b := Board{Title: h.cfg.Title, JoinLine: line, Checkpoint: h.cp, Message: h.msg, Assigned: h.assigned, At: now}
	for _, r := range h.sessions {
		st := StudentStatus{
			Name: r.name, Addr: r.addr, App: r.app, Progress: r.progress,
			Connected: r.peer != nil, JoinedAt: r.joined, LastSeen: r.seen, LastActive: r.active,
			Idle: now.Sub(r.active), Dropped: r.dropped,
		}
		if r.peer != nil {
			st.Dropped += r.peer.droppedCount()
		}
		b.Students = append(b.Students, st)
	}
	sort.Slice(b.Students, func(i, j int) bool { return b.Students[i].Name < b.Students[j].Name })
	return b
}

// Publish makes cp the instructor's checkpoint and sends it to every student. A checkpoint
// that does not advance (ordinal not above the current one) is ignored and Publish returns
// false: followers never go back.
func (h *Host) Publish(cp Checkpoint) bool {
	cp = cp.clean()
	h.mu.Lock()
	if !cp.advances(h.cp) {
		h.mu.Unlock()
		return false
	}
	h.cp = cp
	peers := h.peersLocked()
	h.notifyLocked()
	h.mu.Unlock()
	for _, p := range peers {
		p.setCheckpoint(cp)
	}
	return true
}

// Broadcast sends a one-line message to every student (and to those who join later, as the
// latest message). Control characters are dropped and white space folded; an empty message or
// one longer than MaxMessageRunes is refused.
func (h *Host) Broadcast(text string) error {
	clean := cleanText(text, MaxMessageRunes+1)
	switch n := len([]rune(clean)); {
	case n == 0:
		return errors.New("class message: empty")
	case n > MaxMessageRunes:
		return fmt.Errorf("class message: %d characters, at most %d", len([]rune(cleanText(text, 1<<20))), MaxMessageRunes)
	}
	h.mu.Lock()
	h.msg = Message{Seq: h.msg.Seq + 1, Text: clean, At: h.cfg.now(), Instance: h.instance}
	m := h.msg
	peers := h.peersLocked()
	h.notifyLocked()
	h.mu.Unlock()
	for _, p := range peers {
		p.addMessage(m)
	}
	return nil
}

// Assign makes exercise id the class's assignment and sends it to every student (and to those
// who join later); an empty id takes the assignment back. Control characters are dropped; an
// ID longer than 64 characters is refused. The host does not know the exercises: the caller
// checks that id names one.
func (h *Host) Assign(id string) (Assignment, error) {
	clean := cleanText(id, maxFieldRunes+1)
	if n := len([]rune(clean)); n > maxFieldRunes {
		return Assignment{}, fmt.Errorf("class assign: exercise ID of %d characters, at most %d", n, maxFieldRunes)
	}
	h.mu.Lock()
	h.assigned = Assignment{ID: clean, Seq: h.assigned.Seq + 1, At: h.cfg.now(), Instance: h.instance}
	a := h.assigned
	peers := h.peersLocked()
	h.notifyLocked()
	h.mu.Unlock()
	for _, p := range peers {
		p.setAssignment(a)
	}
	return a, nil
}

func (h *Host) peersLocked() []*peer {
	peers := make([]*peer, 0, len(h.sessions))
	for _, r := range h.sessions {
		if r.peer != nil {
			peers = append(peers, r.peer)
		}
	}
	return peers
}

// Stop tells every student the host is stopping, closes the listener and every connection,
// and waits for the host's goroutines. It is safe to call more than once.
func (h *Host) Stop() {
	h.stop.Do(func() {
		h.cancel()
		h.ln.Close()
		h.mu.Lock()
		h.stopping = true
		peers := h.peersLocked()
		h.mu.Unlock()
		// Each writer sends "bye" and closes its connection; give them a moment, then close
		// whatever remains (a stalled student must not hold the host up).
		for _, p := range peers {
			p.finish(envelope{T: tBye, Err: &wireError{Code: codeShutdown, Text: "the instructor ended the class (or is restarting it)"}})
		}
		grace := time.NewTimer(time.Second)
		for _, p := range peers {
			select {
			case <-p.closed:
			case <-grace.C:
			}
		}
		grace.Stop()
		h.mu.Lock()
		for c := range h.conns {
			c.Close()
		}
		h.mu.Unlock()
		h.wg.Wait()
		close(h.done)
	})
	<-h.done
}

func (h *Host) acceptLoop() {
	defer h.wg.Done()
	close(h.ready)
	for {
		c, err := h.ln.Accept()
		if err != nil {
			if h.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			h.cfg.Logf("class host: accept: %v", err)
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			select {
			case <-h.ctx.Done():
				return
			case <-time.After(50 * time.Millisecond): // e.g. out of file descriptors
			}
			continue
		}
		ip := remoteIP(c)
		h.mu.Lock()
		if h.stopping || h.pending >= maxPending || h.pendIP[ip] >= maxPendingPerIP {
			h.mu.Unlock()
			h.cfg.Logf("class host: too many connections waiting to join; closed one from %s", ip)
			c.Close()
			continue
		}
		h.pending++
		h.pendIP[ip]++
		h.conns[c] = struct{}{}
		h.mu.Unlock()
		if tc, ok := c.(*net.TCPConn); ok && h.cfg.sndBuf > 0 {
			tc.SetWriteBuffer(h.cfg.sndBuf)
		}
		h.wg.Add(1)
		go h.serve(c)
	}
}

// serve runs one connection: handshake, hello, then the student's session.
func (h *Host) serve(raw net.Conn) {
	defer h.wg.Done()
	ip := remoteIP(raw)
	pending := true
	donePending := func() { // h.mu held
		if pending {
			pending = false
			h.pending--
			if h.pendIP[ip]--; h.pendIP[ip] <= 0 {
				delete(h.pendIP, ip)
			}
		}
	}
	defer func() {
		raw.Close()
		h.mu.Lock()
		delete(h.conns, raw)
		donePending()
		h.mu.Unlock()
	}()
	tc := tls.Server(raw, h.tlsConf)
	tc.SetDeadline(time.Now().Add(h.cfg.HelloTimeout))
	if err := tc.HandshakeContext(h.ctx); err != nil {
		h.cfg.Logf("class host: TLS handshake from %s: %v", raw.RemoteAddr(), err)
		return
	}
	br := bufio.NewReaderSize(tc, maxLine)
	hello, _, err := readEnvelope(br)
	if err != nil {
		h.cfg.Logf("class host: hello from %s: %v", raw.RemoteAddr(), err)
		h.refuse(tc, codeBadRequest, fmt.Sprintf("the class host could not read your hello: %v", err), 0)
		return
	}
	if hello.V != h.cfg.proto {
		h.refuse(tc, codeVersion, fmt.Sprintf("this class speaks protocol v%d (kubewalk %s) and you speak v%d: install the instructor's kubewalk version to join",
			h.cfg.proto, orUnknown(h.cfg.AppVersion), hello.V), 0)
		return
	}
	if hello.T != tHello {
		h.refuse(tc, codeBadRequest, fmt.Sprintf("expected a hello, got %q", hello.T), 0)
		return
	}
	now := h.cfg.now()
	// A student rejoining with its session token (128 random bits, given in its welcome) has
	// already shown the code, so a flood of wrong codes cannot keep a class from rejoining
	// after a network blip; it still presents the code.
	h.mu.Lock()
	rejoin := hello.Session != "" && h.sessions[hello.Session] != nil
	h.mu.Unlock()
	if wait, ok := h.limiter.check(ip, now); !ok && !rejoin {
		h.refuse(tc, codeRateLimited, fmt.Sprintf("try again in %s", wait.Round(time.Second)), wait)
		return
	}
	got, err := normalise(hello.Code)
	want, _ := normalise(h.id.Secret)
	if err != nil || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		h.limiter.fail(ip, now)
		h.cfg.Logf("class host: wrong join code from %s", ip)
		h.refuse(tc, codeWrongCode, "check it against the join line on the instructor's screen", 0)
		return
	}

	p := newPeer(tc, h.cfg.QueueLen)
	welcome, rec, code, reason := h.admit(hello, p, raw.RemoteAddr().String())
	if rec == nil {
		h.refuse(tc, code, reason, 0)
		return
	}
	h.mu.Lock()
	donePending()
	h.mu.Unlock()

	buf, err := appendEnvelope(nil, welcome)
	if err == nil {
		tc.SetDeadline(time.Now().Add(h.cfg.WriteTimeout))
		_, err = tc.Write(buf)
	}
	tc.SetDeadline(time.Time{})
	if err != nil {
		h.cfg.Logf("class host: welcome to %s: %v", rec.name, err)
		p.close()
		h.leave(rec, p)
		return
	}
	h.cfg.Logf("class host: %s joined from %s", rec.name, ip)

	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		p.writeLoop(h.cfg.proto, h.cfg.Heartbeat, h.cfg.WriteTimeout)
	}()
	silence := 3 * max(h.cfg.Heartbeat, min(time.Duration(hello.Beat)*time.Millisecond, maxBeat))
	err = h.readLoop(br, tc, rec, p, silence)
	p.close()
	h.leave(rec, p)
	h.cfg.Logf("class host: %s left: %v", rec.name, err)
}

// admit registers the student (a known session token resumes its record and name) and builds
// the welcome. A nil record means refused, with the error code and reason.
func (h *Host) admit(hello envelope, p *peer, addr string) (envelope, *record, string, string) {
	now := h.cfg.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopping {
		return envelope{}, nil, codeShutdown, "the class is ending"
	}
	r := h.sessions[hello.Session]
	if r == nil {
		if len(h.sessions) >= h.cfg.MaxStudents {
			return envelope{}, nil, codeFull, fmt.Sprintf("the class is full (%d students)", h.cfg.MaxStudents)
		}
		tok := make([]byte, 16)
		rand.Read(tok)
		r = &record{session: hex.EncodeToString(tok), joined: now, active: now}
		r.name = h.uniqueNameLocked(hello.Name)
		h.sessions[r.session] = r
		h.names[strings.ToLower(r.name)] = r
	}
	if old := r.peer; old != nil {
		r.dropped += old.droppedCount()
		old.finish(envelope{T: tError, Err: &wireError{Code: codeReplaced, Text: "you joined again from another connection"}})
	}
	r.peer = p
	r.addr = addr
	r.app = cleanText(hello.App, maxFieldRunes)
	r.seen = now
	if hello.Progress != nil {
		pr := hello.Progress.clean()
		if pr != r.progress {
			r.active = now
		}
		r.progress = pr
	}
	h.notifyLocked()
	w := envelope{V: h.cfg.proto, T: tWelcome, Name: r.name, Session: r.session, Title: h.cfg.Title, Instance: h.instance, App: h.cfg.AppVersion,
		Beat: h.cfg.Heartbeat.Milliseconds()}
	if !h.cp.IsZero() {
		cp := h.cp
		w.Checkpoint = &cp
	}
	if h.msg.Seq > 0 {
		m := h.msg
		w.Message = &m
	}
	if !h.assigned.IsZero() {
		a := h.assigned
		w.Assign = &a
	}
	return w, r, "", ""
}

// uniqueNameLocked cleans the requested name and suffixes it (-2, -3, …) if another student
// has it already (names compare case-insensitively).
func (h *Host) uniqueNameLocked(want string) string {
	base := cleanText(want, MaxNameRunes-3)
	if base == "" {
		base = "student"
	}
	name := base
	for i := 2; h.names[strings.ToLower(name)] != nil; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	return name
}

// leave marks the student disconnected if p is still its connection.
func (h *Host) leave(r *record, p *peer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.peer == p {
		r.dropped += p.droppedCount()
		r.peer = nil
		h.notifyLocked()
	}
}

// readLoop reads the student's lines until the connection ends.
func (h *Host) readLoop(br *bufio.Reader, c net.Conn, r *record, p *peer, silence time.Duration) error {
	for {
		c.SetReadDeadline(time.Now().Add(silence))
		env, _, err := readEnvelope(br)
		if err != nil {
			return err
		}
		if env.V != h.cfg.proto {
			return fmt.Errorf("%w: line of protocol v%d", ErrProtocol, env.V)
		}
		now := h.cfg.now()
		h.mu.Lock()
		if r.peer != p {
			h.mu.Unlock()
			return errors.New("replaced by a newer connection")
		}
		r.seen = now
		switch env.T {
		case tProgress:
			// Only a change wakes the board: heartbeats would otherwise redraw it for
			// every student every few seconds.
			if env.Progress != nil {
				if pr := env.Progress.clean(); pr != r.progress {
					r.active = now
					r.progress = pr
					h.notifyLocked()
				}
			}
		case tBye:
			h.mu.Unlock()
			return errors.New("said bye")
		}
		// Pings and types from later minor additions only refresh LastSeen.
		h.mu.Unlock()
	}
}

// refuse writes one error line and ends the connection.
func (h *Host) refuse(c *tls.Conn, code, text string, retry time.Duration) {
	buf, err := appendEnvelope(nil, envelope{V: h.cfg.proto, T: tError, Err: &wireError{Code: code, Text: text, RetryMS: retry.Milliseconds()}})
	if err != nil {
		return
	}
	c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	c.Write(buf)
	c.CloseWrite()
}

func remoteIP(c net.Conn) string {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return host
}

func orUnknown(s string) string {
	if s == "" {
		return "of unknown version"
	}
	return s
}
