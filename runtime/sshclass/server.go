// Package sshclass serves kubewalk's tour over SSH for a workshop (`kubewalk class ssh`): every
// SSH session gets a tour of its own — a child process running the real kubewalk binary on a
// real pseudo-terminal, with its own live API server and etcd on the class host's loopback —
// and nothing else. No shell, no command, no subsystem and no port forwarding is ever offered.
// The class server is each tour's supervisor, and with Config.Warm keeps tours started ahead of
// arrivals, so that a student's starts at once (see pool.go).
//
// A session ends when the student quits the tour, when the connection closes or stops answering
// keepalives, after
// the idle timeout, or when the class server stops; its child's process group is then ended
// (SIGTERM, then SIGKILL after a bound) and its temporary directory — etcd's data, the
// kubeconfig, the log — removed and checked gone. See docs/classroom.md for the threat model.
//
// The SSH server is github.com/charmbracelet/wish's (wish.NewServer, its options and
// middleware); what a class needs beyond them — the checks on the host key file, the
// authorized_keys reload, keepalives answered or not, the slots, the tour itself — is here.
package sshclass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	wishrecover "github.com/charmbracelet/wish/recover"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/ratelimit"
	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

// DefaultListen is where a class listens unless told otherwise: loopback only. Open it to the
// classroom network with --listen 0.0.0.0:2222 (or the LAN address of one interface).
const DefaultListen = "127.0.0.1:2222"

// Defaults for Config's zero values.
const (
	DefaultMaxSessions = 30
	DefaultStopBound   = 3 * time.Second
	DefaultKeepAlive   = 10 * time.Second
)

// Follow makes every session join a class host instead of walking on its own: the child runs
// `kubewalk join ADDR --code CODE --name USER` with the same per-session flags as the tour. It is
// set by `class ssh --follow ADDR --code CODE`.
type Follow struct {
	Addr string // the class host's address, as printed on its join line
	Code string // the join code
}

// Config configures a class server. Exactly one of AuthorizedKeys and PasswordFile is required.
type Config struct {
	// Listen is the TCP address to listen on; "" is DefaultListen.
	Listen string
	// HostKey is the path of the host key, generated there on first use (see
	// LoadOrCreateHostKey).
	HostKey string
	// AuthorizedKeys is an OpenSSH authorized_keys file: only these keys get in. It is read
	// again when it changes.
	AuthorizedKeys string
	// PasswordFile holds the class password on its first line (a file only its owner can read).
	PasswordFile string
	// MaxSessions bounds the tours running at once; 0 is DefaultMaxSessions. A session over the
	// limit is told so and closed.
	MaxSessions int
	// IdleTimeout ends a session that sent no key press (nor window change) for this long; 0
	// never does.
	IdleTimeout time.Duration
	// StateDir is the class's own directory: users/NAME is the XDG_STATE_HOME of the SSH user
	// NAME (their progress), logs/ keeps the log of a session whose tour failed.
	StateDir string
	// TempDir is where each session's temporary directory is made; "" is os.TempDir().
	TempDir string
	// Executable is the kubewalk binary a session runs; "" is this process's own executable.
	Executable string
	// Args are extra arguments for every session's tour (after the per-session ones).
	Args []string
	// Env is added to every session's environment (after the session's own variables).
	Env []string
	// Follow, if set, makes every session follow a class host (see Follow).
	Follow *Follow
	// KeepAlive is how often the server checks that a session's client still answers (an SSH
	// keepalive request); a client that does not answer within the same time is taken as gone
	// and its session ends, as when a laptop leaves the Wi-Fi without closing anything. 0 is
	// DefaultKeepAlive; negative turns it off.
	KeepAlive time.Duration
	// Warm is how many tours the class keeps started ahead of arrivals (see pool.go): a
	// session takes one and its tour starts without paying for a process start. Never more
	// than the free session slots are kept. 0 starts every session's tour on arrival. Each
	// waiting spare holds its Go heap after initialisation (see docs/performance.md).
	Warm int
	// LeanSpares makes the spares wait before kubewalk's package initialisation
	// (runtime/sshclass/sparewait): ~1.5 MB each instead of ~12, but each student's tour then
	// initialises after the handover (~0.1–0.2 CPU-seconds at arrival).
	LeanSpares bool
	// StopBound is how long a session's tour has to shut down after SIGTERM before its process
	// group gets SIGKILL; 0 is DefaultStopBound.
	StopBound time.Duration
	// Log receives one line per event (sessions starting and ending, refusals); nil discards.
	Log io.Writer

	// PasswordLimit bounds wrong passwords per source address and in total (with
	// PasswordFile); zero fields take DefaultPasswordLimit's.
	PasswordLimit ratelimit.Config
	// MaxPending and MaxPendingPerIP bound the connections that have not opened a session yet,
	// in all and from one address; AuthDeadline is how long a connection has from accept to
	// open one. Zero takes the defaults (see gate.go).
	MaxPending, MaxPendingPerIP int
	AuthDeadline                time.Duration
	// RunAs, if set, is the unprivileged user every tour runs as (the class must run as root,
	// or as that user). See confine.go for it and the following fields.
	RunAs *RunAs
	// Sandbox is how much of the OS sandbox (Landlock, seccomp) the class insists on; "" is
	// sandbox.Auto.
	Sandbox sandbox.Mode
	// Layers turns a student's layers off one by one (tests); nil is AllLayers.
	Layers *Layers
	// ModCache is the Go module cache the tours read for u and s; "" is ResolveModCache's.
	ModCache string
	// TourHasFlag reports whether the tour command of Executable has a flag (by name): the
	// class passes its optional flags (--kubectl-unguarded, --kubectl-no-exec-plugins) only
	// then. Nil: it has none of them.
	TourHasFlag func(name string) bool
}

// DefaultPasswordLimit: 10 wrong passwords from one address, then one every 6 s (a class behind
// one NAT address mistyping now and then is not held up); 30 from everyone together, then one
// every 2 s — the pace class host allows wrong join codes. A guess beyond either budget is
// refused without being checked. Guessing a password of 8 random letters and digits at that
// pace takes some 3 million years on average; a dictionary word falls far sooner, which is why
// the password file wants 8 characters at least and keys are better.
var DefaultPasswordLimit = ratelimit.Config{PerIP: 10, PerIPEvery: 6 * time.Second, Global: 30, GlobalEvery: 2 * time.Second}

// Server is a running class server.
type Server struct {
	cfg    Config
	ssh    *ssh.Server
	ln     net.Listener
	signer gossh.Signer
	keys   *authorizedKeys // nil with a password
	claims *nameClaims     // user names bound to keys; nil with a password
	pass   *password       // nil with keys
	slots  chan struct{}   // one token per running session
	pool   *pool           // warm spares; nil when Config.Warm is 0
	gate   *gate           // connections on their way in
	reaper *reaper         // orphans the subreaper inherits
	pwTry  *ratelimit.Limiter
	pwSeen atomic.Int64 // passwords checked (not refused unchecked): for the tests

	confine *confinement // the layers around every tour (confine.go)

	ctx    context.Context // ended by Close: every session stops
	cancel context.CancelFunc
	wg     sync.WaitGroup // running session handlers
	nextID atomic.Int64
	closed atomic.Bool

	mu       sync.Mutex
	closing  bool // set by Close: no session starts any more (guards wg.Add)
	sessions map[int64]*SessionInfo

	logMu sync.Mutex
	quiet map[string]*quietLog // guarded by logMu: see logLimited

	goodbyeWait time.Duration // test hook: the goodbye screen's time, if not GoodbyeWait
}

// SessionInfo describes a running session.
type SessionInfo struct {
	ID      int64
	User    string
	Remote  string
	Dir     string // the session's temporary directory: TMPDIR, kubeconfig, log, etcd's data
	PID     int    // the tour's process, leader of its own process group and session
	Started time.Time
	Warm    bool // the tour was a spare started ahead of the session
}

// New checks cfg, loads (or creates) the host key, reads the authorized keys or the password,
// and listens. Nothing is served until Serve.
func New(cfg Config) (*Server, error) {
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.StopBound <= 0 {
		cfg.StopBound = DefaultStopBound
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	cfg.PasswordLimit = withDefaults(cfg.PasswordLimit, DefaultPasswordLimit)
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = defaultMaxPending
	}
	if cfg.MaxPendingPerIP <= 0 {
		cfg.MaxPendingPerIP = defaultMaxPendingPerIP
	}
	if cfg.AuthDeadline <= 0 {
		cfg.AuthDeadline = keyAuthDeadline
		if cfg.PasswordFile != "" {
			cfg.AuthDeadline = passwordAuthDeadline
		}
	}
	var errs []error
	if cfg.MaxSessions < 0 {
		errs = append(errs, fmt.Errorf("--max-sessions %d: must be at least 1", cfg.MaxSessions))
	}
	if cfg.Warm < 0 || cfg.Warm > max(cfg.MaxSessions, 0) {
		errs = append(errs, fmt.Errorf("--warm %d: must be between 0 (start each tour on arrival) and --max-sessions (%d)", cfg.Warm, cfg.MaxSessions))
	}
	if cfg.IdleTimeout < 0 {
		errs = append(errs, fmt.Errorf("--idle-timeout %s: must not be negative (0 turns it off)", cfg.IdleTimeout))
	}
	switch {
	case cfg.AuthorizedKeys != "" && cfg.PasswordFile != "":
		errs = append(errs, errors.New("--authorized-keys and --password-file: choose one"))
	case cfg.AuthorizedKeys == "" && cfg.PasswordFile == "":
		errs = append(errs, errors.New("say who may connect: --authorized-keys FILE (students' public keys) or --password-file FILE (a class password)"))
	}
	if !filepath.IsAbs(cfg.StateDir) {
		errs = append(errs, fmt.Errorf("class state dir %q: must be an absolute path", cfg.StateDir))
	}
	if cfg.Follow != nil && (cfg.Follow.Addr == "" || cfg.Follow.Code == "") {
		errs = append(errs, errors.New("follow: a class host needs both its address and its code"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if cfg.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("class ssh: find the kubewalk binary to run for each session: %w", err)
		}
		cfg.Executable = exe
	}
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	s := &Server{cfg: cfg, slots: make(chan struct{}, cfg.MaxSessions), sessions: map[int64]*SessionInfo{}}
	s.reaper = newReaper()
	s.gate = newGate(cfg.MaxPendingPerIP, cfg.MaxPending, cfg.AuthDeadline, s.logRefusedConn)
	s.pwTry = ratelimit.New(cfg.PasswordLimit)
	if cfg.Warm > 0 {
		s.pool = newPool(s, cfg.Warm)
	}
	var err error
	if cfg.AuthorizedKeys != "" {
		if s.keys, err = loadAuthorizedKeys(cfg.AuthorizedKeys, func(m string) { s.logf("--authorized-keys: %s", m) }); err != nil {
			return nil, err
		}
	} else if s.pass, err = loadPassword(cfg.PasswordFile); err != nil {
		return nil, err
	}
	dirs := []string{cfg.StateDir, filepath.Join(cfg.StateDir, "users")}
	if s.keys != nil {
		s.claims = &nameClaims{dir: filepath.Join(cfg.StateDir, "names")}
		dirs = append(dirs, s.claims.dir)
	}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("class state dir: %w", err)
		}
	}
	hostKey, err := hostKeyOption(cfg.HostKey)
	if err != nil {
		return nil, err
	}

	opts := []ssh.Option{
		wish.WithAddress(cfg.Listen),
		wish.WithVersion("kubewalk"),
		hostKey,
		// The whole chain runs under wish's recover middleware: a panic in a session's handler
		// is logged and ends that session only (the tour itself is a child process anyway).
		wish.WithMiddleware(wishrecover.MiddlewareWithLogger(logSink{s}, s.middleware()...)),
		s.sessionChannelsOnly,
		s.gateOption,
	}
	// Authentication is ours, through wish's options: wish.WithAuthorizedKeys would read the
	// file again at every attempt, accept a file that does not parse at start and report
	// through charmbracelet/log's standard logger (stderr), not the class's log.
	if s.keys != nil {
		opts = append(opts, wish.WithPublicKeyAuth(func(ctx ssh.Context, key ssh.PublicKey) bool {
			ok := s.keys.allowed(key)
			if !ok {
				s.logf("refused %s@%s: unknown key %s", shorten(ctx.User(), 40), ctx.RemoteAddr(), gossh.FingerprintSHA256(key))
			}
			return ok
		}))
	} else {
		opts = append(opts, wish.WithPasswordAuth(s.checkPassword))
	}
	if cfg.KeepAlive > 0 {
		// A connection with no traffic either way for three keepalive periods is closed: one
		// that never authenticates (which would otherwise hold its descriptor for good) or one
		// whose client is gone. A live session always has traffic: its keepalives. This timeout
		// alone does not find a client that vanished mid-session — the keepalives written to it
		// count as traffic — which is why sessions also watch the answers (see keepAlive).
		opts = append(opts, wish.WithIdleTimeout(3*cfg.KeepAlive))
	}
	if s.ssh, err = wish.NewServer(opts...); err != nil {
		return nil, fmt.Errorf("class ssh: %w", err)
	}
	s.signer = s.ssh.HostSigners[0]
	// Orphans of a session's process group (its tour's own child, after a SIGKILL) become this
	// process's children, so that stopGroup can reap them and know the group is gone.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("class ssh: become the sessions' subreaper: %w", err)
	}
	// The server is given its listener rather than left to ListenAndServe: a busy port is then
	// New's error, and Addr is known (the real port when Listen asks for port 0).
	ln, err := net.Listen("tcp", s.ssh.Addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %s: %w", cfg.Listen, err)
	}
	if s.cfg.ModCache == "" {
		s.cfg.ModCache = ResolveModCache()
	}
	if s.confine, err = newConfinement(s.cfg); err != nil {
		ln.Close()
		return nil, err
	}
	s.ln = ln
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// HostKeyFingerprint is the host key's SHA256 fingerprint, as ssh shows it on first contact.
func (s *Server) HostKeyFingerprint() string { return gossh.FingerprintSHA256(s.signer.PublicKey()) }

// Serve starts the warm spares (one at a time, in the background) and accepts connections
// until Close. It returns nil after Close.
func (s *Server) Serve() error {
	s.reaper.run()
	if s.pool != nil {
		s.pool.start()
	}
	err := s.ssh.Serve(s.ln)
	if s.closed.Load() || errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("class ssh: serve: %w", err)
}

// Close stops accepting connections, ends every session (each student is told the class
// ended), waits until their tours have stopped and their directories are removed — bounded by
// ctx — and then drops the connections.
func (s *Server) Close(ctx context.Context) error {
	if s.closed.Swap(true) {
		return nil
	}
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	// Shutdown with a context already ended closes the listeners and returns at once.
	now, cancel := context.WithCancel(context.Background())
	cancel()
	_ = s.ssh.Shutdown(now)
	// Shutdown closes only the listeners Serve has begun tracking: when Close comes before
	// Serve's goroutine got that far, Serve would accept on for ever. The listener is ours.
	_ = s.ln.Close()
	s.cancel()
	done := make(chan struct{})
	go func() {
		if s.pool != nil {
			s.pool.close()
		}
		s.wg.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("class ssh: %d sessions still stopping: %w", len(s.Sessions()), ctx.Err())
	}
	s.ssh.Close()
	s.reaper.close()
	if err == nil {
		s.confine.close()
	}
	return err
}

// Sandbox says how the students' tours are confined.
func (s *Server) Sandbox() SandboxInfo { return s.confine.info }

// WarmSpares is the number of spares ready for the next sessions.
func (s *Server) WarmSpares() int {
	if s.pool == nil {
		return 0
	}
	return s.pool.count()
}

// Sessions returns the running sessions, oldest first.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SessionInfo, 0, len(s.sessions))
	for _, si := range s.sessions {
		out = append(out, *si)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// checkPassword is the password callback: a guess from an address (or a class) over its budget
// of wrong passwords is refused unchecked; a wrong one takes from both budgets; either way the
// answer comes after a second, which slows guessing on one connection too (ssh allows a few
// tries per connection).
func (s *Server) checkPassword(ctx ssh.Context, pw string) bool {
	ip := hostOf(ctx.RemoteAddr())
	now := time.Now()
	if wait, ok := s.pwTry.Check(ip, now); !ok {
		s.logLimited("password", ip, fmt.Sprintf("refused %s@%s: too many wrong passwords; guesses refused unchecked for %s", shorten(ctx.User(), 40), ctx.RemoteAddr(), wait.Round(time.Second)))
		pause(ctx, time.Second)
		return false
	}
	s.pwSeen.Add(1)
	if s.pass.matches(pw) {
		return true
	}
	s.pwTry.Fail(ip, now)
	s.logf("refused %s@%s: wrong password", shorten(ctx.User(), 40), ctx.RemoteAddr())
	pause(ctx, time.Second)
	return false
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// logRefusedConn logs a connection closed at accept by the gate.
func (s *Server) logRefusedConn(ip string, total bool) {
	why := fmt.Sprintf("%d connections from %s are on their way in already", s.cfg.MaxPendingPerIP, ip)
	if total {
		why = fmt.Sprintf("%d connections are on their way in already", s.cfg.MaxPending)
	}
	s.logLimited("conn", ip, "refused a connection from "+ip+": "+why)
}

// logLimited writes line unless a line of the same kind about the same address was written in
// the last 10 s; it then says how many it left out. A flood costs one line every 10 s.
func (s *Server) logLimited(kind, ip, line string) {
	key := kind + " " + ip
	s.logMu.Lock()
	if s.quiet == nil {
		s.quiet = map[string]*quietLog{}
	}
	q := s.quiet[key]
	now := time.Now()
	if q != nil && now.Sub(q.at) < 10*time.Second {
		q.skipped++
		s.logMu.Unlock()
		return
	}
	skipped := 0
	if q != nil {
		skipped = q.skipped
	}
	if len(s.quiet) > 1024 {
		clear(s.quiet)
	}
	s.quiet[key] = &quietLog{at: now}
	s.logMu.Unlock()
	if skipped > 0 {
		line += fmt.Sprintf(" (and %d more like it in the last seconds)", skipped)
	}
	s.logf("%s", line)
}

// quietLog is when a kind of line was last written and how many were left out since.
type quietLog struct {
	at      time.Time
	skipped int
}

// withDefaults fills c's zero fields from d.
func withDefaults(c, d ratelimit.Config) ratelimit.Config {
	if c.PerIP <= 0 {
		c.PerIP = d.PerIP
	}
	if c.PerIPEvery <= 0 {
		c.PerIPEvery = d.PerIPEvery
	}
	if c.Global <= 0 {
		c.Global = d.Global
	}
	if c.GlobalEvery <= 0 {
		c.GlobalEvery = d.GlobalEvery
	}
	return c
}

// logSink is the class's log as the Logger of wish's logging and recover middlewares (which
// would otherwise write to charmbracelet/log's standard logger, stderr).
type logSink struct{ s *Server }

// Printf writes one line to the class's log.
func (l logSink) Printf(format string, args ...any) {
	l.s.logf("%s", strings.TrimRight(fmt.Sprintf(format, args...), "\n"))
}

// logf writes one line to the log.
func (s *Server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}
