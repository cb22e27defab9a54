package sshclass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/logging"
	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/sandbox"
)

// middleware is the session handler chain, in wish.WithMiddleware's order: the last runs first.
// A session is checked for a command and a usable user name, logged (wish's logging middleware,
// to the class's log: connect and disconnect), checked for a terminal and a free slot, and only
// then does its tour start.
func (s *Server) middleware() []wish.Middleware {
	return []wish.Middleware{
		s.tourMiddleware,
		s.limitSessions,
		s.requireTerminal,
		logging.MiddlewareWithLogger(logSink{s}),
		s.checkUser,
		s.refuseCommands,
	}
}

// refuse tells the student why the session ends, on the session's stderr, and ends it with exit
// status 1.
func (s *Server) refuse(sess ssh.Session, text string) {
	wish.Fatalln(sess, text)
}

// refuseCommands ends `ssh host cmd` (an exec request) with a message: no command ever runs on
// the class host. Subsystems (sftp, ...) are refused by the ssh layer, as none is registered.
func (s *Server) refuseCommands(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if cmd := sess.RawCommand(); cmd != "" {
			s.logf("refused %s@%s: asked to run a command", shorten(sess.User(), 40), sess.RemoteAddr())
			s.refuse(sess, fmt.Sprintf(messagesFor(sess.Environ()).NoCommand, fmt.Sprintf("%q", shorten(cmd, 40))))
			return
		}
		next(sess)
	}
}

// checkUser refuses a user name that cannot name the student's progress directory, and, with
// authorized keys, a name another key owns (see nameClaims). Names are compared by their key
// (see nameKey): `ANA` is `ana`.
func (s *Server) checkUser(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		nk, ok := nameKey(sess.User())
		if !ok {
			s.logf("refused %q@%s: not a usable user name", shorten(sess.User(), 40), sess.RemoteAddr())
			s.refuse(sess, fmt.Sprintf(messagesFor(sess.Environ()).BadUser, shorten(sess.User(), 40)))
			return
		}
		sess.Context().SetValue(userKey{}, nk)
		if s.claims != nil {
			// The key the connection authenticated with: with x/crypto ≥ v0.31 the last key
			// that passed the public key callback is the one the client signed with.
			key := sess.PublicKey()
			if key == nil {
				s.logf("refused %s@%s: no public key on an authenticated connection", sess.User(), sess.RemoteAddr())
				s.refuse(sess, messagesFor(sess.Environ()).Failed)
				return
			}
			if err := s.claims.claim(sessionKey(sess), key); err != nil {
				tr := messagesFor(sess.Environ())
				if errors.Is(err, errNameTaken) {
					s.logf("refused %s@%s: the name belongs to another key (this one is %s)", sess.User(), sess.RemoteAddr(), gossh.FingerprintSHA256(key))
					s.refuse(sess, fmt.Sprintf(tr.NameTaken, sess.User()))
				} else {
					s.logf("refused %s@%s: %v", sess.User(), sess.RemoteAddr(), err)
					s.refuse(sess, tr.Failed)
				}
				return
			}
		}
		next(sess)
	}
}

// requireTerminal refuses a session without a pseudo-terminal (ssh -T). It is wish's activeterm
// check with the class's message: activeterm.Middleware writes a fixed English "Requires an
// active PTY" to stdout, which neither says what to do nor follows the student's language.
func (s *Server) requireTerminal(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if _, _, ok := sess.Pty(); !ok {
			s.logf("refused %s@%s: no terminal requested", sess.User(), sess.RemoteAddr())
			s.refuse(sess, messagesFor(sess.Environ()).NeedTerminal)
			return
		}
		next(sess)
	}
}

// limitSessions holds one of MaxSessions slots for the whole session, cleanup included, and
// refuses a session when none is free or the class is closing.
func (s *Server) limitSessions(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		tr := messagesFor(sess.Environ())
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			s.refuse(sess, tr.ClassEnded)
			return
		}
		select {
		case s.slots <- struct{}{}:
		default:
			s.mu.Unlock()
			s.logf("refused %s@%s: class full (%d sessions)", sess.User(), sess.RemoteAddr(), s.cfg.MaxSessions)
			s.refuse(sess, fmt.Sprintf(tr.Full, s.cfg.MaxSessions))
			return
		}
		s.wg.Add(1)
		s.mu.Unlock()
		defer func() {
			<-s.slots
			if s.pool != nil {
				s.pool.wake() // a slot is free: a spare may be wanted
			}
			s.wg.Done()
		}()
		next(sess)
	}
}

// tourMiddleware runs the session's tour; it is the end of the chain.
func (s *Server) tourMiddleware(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) { _ = sess.Exit(s.runTour(sess)) }
}

// runTour runs one student's tour — a warm spare if one is ready, else a process started now —
// on its own pseudo-terminal in its own temporary directory, relays the terminal both ways
// until the tour or the connection ends, then stops the tour's processes, removes the directory
// and returns the exit status to report. The class server is the tour's supervisor: after a
// crash it puts the student's screen back and says where the log is kept.
func (s *Server) runTour(sess ssh.Session) int {
	tr := messagesFor(sess.Environ())
	ptyReq, winch, _ := sess.Pty()
	user := sess.User()
	id := s.nextID.Add(1)
	began := time.Now()

	users := filepath.Join(s.cfg.StateDir, "users")
	state := filepath.Join(users, sessionKey(sess))
	if err := adoptLegacy(users, sessionKey(sess)); err != nil {
		s.logf("session %d %s: %v", id, user, err)
	}
	if err := os.MkdirAll(state, 0o700); err != nil {
		s.logf("session %d %s: state dir: %v", id, user, err)
		wish.Errorln(sess, tr.Failed)
		return 1
	}
	sp, warm, err := s.handOver(sess, ptyReq, user, state)
	if err != nil {
		s.logf("session %d %s: %v", id, user, err)
		wish.Errorln(sess, tr.Failed)
		return 1
	}
	defer func() {
		if err := removeAll(sp.dir); err != nil {
			s.logf("session %d %s: could not remove %s: %v", id, user, sp.dir, err)
		}
	}()
	defer sp.conn.Close()
	ptmx := sp.ptmx
	// The master side is closed once, under ptyMu, which resizing holds too: pty.Setsize works
	// on the raw descriptor, which must not be closed (and reused) meanwhile.
	var ptyMu sync.Mutex
	ptyClosed := false
	resize := func(w ssh.Window) {
		ptyMu.Lock()
		defer ptyMu.Unlock()
		if !ptyClosed {
			_ = pty.Setsize(ptmx, winsize(w))
		}
	}
	closePty := func() {
		ptyMu.Lock()
		defer ptyMu.Unlock()
		if !ptyClosed {
			ptyClosed = true
			ptmx.Close()
		}
	}
	defer closePty()

	pid := sp.pid
	s.register(&SessionInfo{ID: id, User: user, Remote: sess.RemoteAddr().String(), Dir: sp.dir, PID: pid, Started: began, Warm: warm})
	defer s.unregister(id)
	how := "cold start"
	if warm {
		how = "warm spare"
	}
	s.logf("session %d %s from %s: started (pid %d, %s, dir %s)", id, user, sess.RemoteAddr(), pid, how, sp.dir)
	exited := sp.exited

	note := newClampNote(tr.Clamped, ptyReq.Window)
	if _, _, clamped := clampWindow(ptyReq.Window); clamped {
		s.logf("session %d %s: terminal %d×%d clamped to at most %d×%d", id, user, ptyReq.Window.Width, ptyReq.Window.Height, maxCols, maxRows)
	}
	var lastInput atomic.Int64
	lastInput.Store(time.Now().UnixNano())
	outFailed := make(chan struct{})
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		relayOutput(ptmx, sess, outFailed, note)
	}()
	inEnded := make(chan struct{})
	go func() {
		defer close(inEnded)
		buf := make([]byte, 4096)
		for {
			n, err := sess.Read(buf)
			if n > 0 {
				lastInput.Store(time.Now().UnixNano())
				if _, werr := ptmx.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		for w := range winch { // closed when the session's requests end
			lastInput.Store(time.Now().UnixNano())
			note.resized(w)
			resize(w)
		}
	}()
	watch, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	idle := idleAfter(watch, s.cfg.IdleTimeout, &lastInput)
	var silent atomic.Bool // the client stopped answering keepalives
	if conn, ok := sess.Context().Value(ssh.ContextKeyConn).(gossh.Conn); ok && s.cfg.KeepAlive > 0 {
		go keepAlive(watch, conn, s.cfg.KeepAlive, func() { silent.Store(true) })
	}

	why, tell := "quit", ""
	select {
	case <-exited:
	case <-sess.Context().Done():
		why = "connection closed"
	case <-inEnded:
		why = "input closed"
	case <-outFailed:
		why = "connection lost"
	case <-idle:
		why, tell = "idle", fmt.Sprintf(tr.Idle, s.cfg.IdleTimeout)
	case <-s.ctx.Done():
		why, tell = "class stopped", tr.ClassEnded
	}
	if silent.Load() {
		why = "client stopped answering"
	}
	killed := s.stopGroup(pid, exited)
	// Once no process holds the terminal, reading its master side fails: all output is relayed.
	select {
	case <-outDone:
	case <-time.After(time.Second):
	}
	closePty()
	<-outDone
	// The tour's end of the socket closed with it; its last reports are at most a read away.
	select {
	case <-sp.read:
	case <-time.After(time.Second):
	}

	code := exitCode(sp.cmd.ProcessState)
	sp.mu.Lock()
	reported, tui, notes := sp.exitRep, sp.tui, sp.notes
	sp.mu.Unlock()
	kept := ""
	if killed || !cleanExit(code) {
		kept = s.keepLog(id, user, sp.keptLogPath())
	}
	crashed := !reported && !killed && !cleanExit(code)
	suffix := ""
	if killed {
		suffix = ", killed: it did not stop within " + s.cfg.StopBound.String()
	}
	if crashed {
		suffix += ", crashed"
	}
	s.logf("session %d %s: ended (%s), exit status %d%s", id, user, why, code, suffix)
	// What the tour did not put back (it crashed, or it was killed with the full-screen UI
	// on), this server does, before saying anything.
	if crashed || tell != "" || (killed && tui) {
		io.WriteString(sess, leaveScreen)
	}
	if why == "class stopped" {
		tell = "" // the goodbye screen says it, after the rest
	}
	for _, n := range notes {
		fmt.Fprintln(sess.Stderr(), "\r\n"+n)
	}
	if crashed {
		fmt.Fprintln(sess.Stderr(), "\r\n"+crashText(sess.Environ(), sp.cmd.ProcessState, kept))
	}
	if tell != "" {
		fmt.Fprintln(sess.Stderr(), "\r\n"+tell)
	}
	if why == "class stopped" {
		_ = removeAll(sp.dir) // now, not after the goodbye: the deferred removal says if it fails
		s.goodbye(sess, tr, id, user, inEnded, crashed || len(notes) > 0)
	}
	return code
}

// handOver gives the session a tour process: a warm spare if one is ready (and still alive),
// else one started now. The terminal gets the client's size before the tour starts. The tour
// gets three ports of its own, its progress directory and the module cache as descriptors, and
// its sandbox.
func (s *Server) handOver(sess ssh.Session, ptyReq ssh.Pty, user, state string) (*spare, bool, error) {
	c := s.confine
	userDir, err := c.userDir(state)
	if err != nil {
		return nil, false, err
	}
	defer userDir.Close() // the spare has its own descriptor once it is sent
	dirs := []*os.File{userDir}
	handed := []HandedDir{{Env: "XDG_STATE_HOME", Write: true}}
	if c.modCache != nil {
		dirs = append(dirs, c.modCache)
		handed = append(handed, HandedDir{Env: "GOMODCACHE"})
	}
	for try := 0; ; try++ {
		var sp *spare
		warm := false
		if s.pool != nil && try == 0 {
			sp = s.pool.take()
			warm = sp != nil
		}
		if sp == nil {
			if sp, err = s.startSpare(); err != nil {
				return nil, false, err
			}
		}
		ports, err := c.sessionPorts()
		if err != nil {
			s.discard(sp)
			return nil, false, err
		}
		sp.holdPorts(ports)
		_ = pty.Setsize(sp.ptmx, winsize(ptyReq.Window))
		h := Handover{Args: s.childArgs(user, sp.dir, ports), Env: s.childEnv(sess.Environ(), ptyReq.Term, sp.dir, state),
			Dir: sp.dir, Dirs: handed, Sandbox: c.spec(sp.dir, ports)}
		err = sp.handover(h, dirs)
		if err == nil {
			return sp, warm, nil
		}
		s.discard(sp)
		if !warm {
			return nil, false, fmt.Errorf("hand the session to its tour: %w", err)
		}
		// The spare died just as it was taken: start one now.
	}
}

// childArgs are the tour's arguments: a server on the loopback ports chosen for it (the only
// ones its sandbox lets it bind), its kubeconfig and log in the session's directory, and the
// kubectl layers (see Layers).
func (s *Server) childArgs(user, dir string, ports [3]int) []string {
	var args []string
	if f := s.cfg.Follow; f != nil {
		args = []string{"join", f.Addr, "--code", f.Code, "--name", user}
	} else {
		args = []string{"tour"}
	}
	// The student is not this machine's user: the tour's kubectl must not read its files.
	layers := s.confine.info.Layers
	if layers.AllowList {
		args = append(args, "--kubectl-no-local-files")
	} else if s.confine.hasFlag(flagUnguarded) {
		args = append(args, "--"+flagUnguarded)
	}
	if layers.NoExec && s.confine.hasFlag(flagNoExecPlugins) {
		args = append(args, "--"+flagNoExecPlugins)
	}
	args = append(args, "--secure-port", strconv.Itoa(ports[0]), "--etcd-client-port", strconv.Itoa(ports[1]),
		"--etcd-peer-port", strconv.Itoa(ports[2]), "--bind-address", "127.0.0.1",
		"--kubeconfig", filepath.Join(dir, "kubeconfig"), "--log-file", filepath.Join(dir, "kubewalk.log"))
	return append(args, s.cfg.Args...)
}

// safeValue is what an environment value from the student's client may contain.
var safeValue = lazyRegexp(`^[A-Za-z0-9_.@:+-]{1,64}$`)

// clientVars are the variables a student's ssh client may set for the tour (OpenSSH sends LANG
// and LC_* by default); nothing else of the client's environment is used.
var clientVars = map[string]bool{"LANG": true, "LANGUAGE": true, "LC_ALL": true, "LC_MESSAGES": true,
	"LC_CTYPE": true, "COLORTERM": true, "NO_COLOR": true}

// childEnv is the tour's whole environment: nothing of the class server's own but PATH, the
// session's directory as HOME, TMPDIR and XDG_RUNTIME_DIR, the terminal type and locale from
// the client, with the no-exec layer editor and pager variables that name no program, then
// Config.Env. XDG_STATE_HOME (the student's progress) and GOMODCACHE are set by the spare to
// the directories handed over as descriptors; state is their path on the class host, for the
// record.
func (s *Server) childEnv(client []string, term, dir, state string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	if !safeValue().MatchString(term) {
		term = "xterm-256color"
	}
	env := []string{"PATH=" + path, "HOME=" + dir, "TMPDIR=" + dir, "XDG_RUNTIME_DIR=" + dir,
		"XDG_STATE_HOME=" + state, "TERM=" + term}
	if s.confine.info.ModCache != "" {
		env = append(env, "GOMODCACHE="+s.confine.info.ModCache)
	}
	locale := false
	for _, kv := range client {
		k, v, _ := strings.Cut(kv, "=")
		if clientVars[k] && safeValue().MatchString(v) {
			env = append(env, k+"="+v)
			locale = locale || k == "LANG" || k == "LC_ALL" || k == "LC_CTYPE"
		}
	}
	if !locale {
		env = append(env, "LANG=C.UTF-8") // the screens draw box characters
	}
	if s.confine.info.Layers.NoExec {
		env = append(env, sandbox.RefusingEnv()...)
	}
	return append(env, s.cfg.Env...)
}

// relayOutput copies the terminal's output to the session until the terminal fails (no process
// holds it any more), with the clamp note where it is due (see clampNote). A failed write closes
// failed and the rest is read and dropped, so that the tour never blocks on a full terminal
// while it shuts down.
func relayOutput(ptmx io.Reader, sess io.Writer, failed chan struct{}, note *clampNote) {
	buf := make([]byte, 32*1024)
	ok := true
	for {
		n, err := ptmx.Read(buf)
		if n > 0 && ok {
			out := buf[:n]
			if extra := note.after(out); extra != nil {
				out = append(out, extra...) // buf has room or append copies: buf is reused only after this write
			}
			if _, werr := sess.Write(out); werr != nil {
				ok = false
				close(failed)
			}
		}
		if err != nil {
			return
		}
	}
}

// idleAfter returns a channel closed once no input was seen for timeout (never if timeout is
// 0), checked whenever the timer fires, until ctx ends.
func idleAfter(ctx context.Context, timeout time.Duration, last *atomic.Int64) <-chan struct{} {
	ch := make(chan struct{})
	if timeout <= 0 {
		return ch
	}
	go func() {
		t := time.NewTimer(timeout)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				quiet := now.Sub(time.Unix(0, last.Load()))
				if quiet >= timeout {
					close(ch)
					return
				}
				t.Reset(timeout - quiet)
			}
		}
	}()
	return ch
}

// keepAlive sends an SSH keepalive request every interval and closes conn when one is not
// answered within interval (any answer will do: OpenSSH answers "failure"). Closing the
// connection ends its sessions as if the client had closed it.
func keepAlive(ctx context.Context, conn gossh.Conn, interval time.Duration, dropped func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		answered := make(chan error, 1)
		go func() {
			_, _, err := conn.SendRequest("keepalive@openssh.com", true, nil)
			answered <- err
		}()
		wait := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			wait.Stop()
			return
		case err := <-answered:
			wait.Stop()
			if err != nil { // the connection is closed already
				return
			}
		case <-wait.C:
			dropped()
			conn.Close()
			return
		}
	}
}

// stopGroup ends the tour's process group unless the tour already exited: SIGTERM (the tour
// shuts its server down and removes what the server made), then SIGKILL after
// StopBound. It then reaps what is left of the group and reports whether SIGKILL was needed.
func (s *Server) stopGroup(pgid int, exited <-chan struct{}) (killed bool) {
	select {
	case <-exited:
	default:
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		t := time.NewTimer(s.cfg.StopBound)
		select {
		case <-exited:
			t.Stop()
		case <-t.C:
			killed = true
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-exited
		}
	}
	// The leader is gone; the tour's own child normally went before it. After a SIGKILL it may
	// linger: as the process's child subreaper this server reaps it here.
	deadline := time.Now().Add(s.cfg.StopBound)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			killed = true
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			deadline = time.Now().Add(s.cfg.StopBound)
		}
		time.Sleep(10 * time.Millisecond) // polling the group, within the deadline above
	}
	return killed
}

// groupAlive reaps the group's exited processes that are this process's children and reports
// whether any process of the group remains.
func groupAlive(pgid int) bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-pgid, &ws, unix.WNOHANG, nil)
		if err != nil || pid <= 0 {
			break
		}
	}
	return syscall.Kill(-pgid, 0) == nil
}

// keepLog copies the log of a tour that failed to the class's logs/ directory before its
// directory is removed, and returns where it is kept ("" if it could not be).
func (s *Server) keepLog(id int64, user, log string) string {
	// The tour may run as another user, who owns its directory: never follow a link there.
	f, err := os.OpenFile(log, os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return ""
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	f.Close()
	if err != nil {
		return ""
	}
	logs := filepath.Join(s.cfg.StateDir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		s.logf("session %d %s: keep log: %v", id, user, err)
		return ""
	}
	path := filepath.Join(logs, fmt.Sprintf("%s-session%d-%s.log", time.Now().Format("20060102-150405"), id, user))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		s.logf("session %d %s: keep log: %v", id, user, err)
		return ""
	}
	s.logf("session %d %s: its tour failed; log kept at %s", id, user, path)
	return path
}

// crashText tells the student, in their language, that their tour crashed and where the
// instructor finds its log.
func crashText(environ []string, ps *os.ProcessState, kept string) string {
	tr := i18n.For(langOf(environ))
	how := fmt.Sprintf(tr.CLIExitStatus, exitCode(ps))
	if ps == nil {
		how = "?"
	} else if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		how = fmt.Sprintf(tr.CLISignal, ws.Signal().String())
	}
	if kept == "" {
		return fmt.Sprintf(tr.CLICrashedNoLog, how)
	}
	return fmt.Sprintf(tr.CLICrashed, how, kept)
}

func (s *Server) register(si *SessionInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[si.ID] = si
}

func (s *Server) unregister(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
}

// exitCode is the shell's status for a finished process: 128+n when signal n ended it.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// cleanExit reports whether the tour ended as intended: quit (0), interrupted by Ctrl-C (130),
// or stopped by the hangup or SIGTERM this server sends (129, 143).
func cleanExit(code int) bool {
	switch code {
	case 0, 128 + int(syscall.SIGHUP), 130, 128 + int(syscall.SIGTERM):
		return true
	}
	return false
}

// leaveScreen turns off what the full-screen tour turns on (mouse and focus reporting, bracketed
// paste, the alternate screen) and shows the cursor: the student's terminal after a tour that
// could not put it back.
const leaveScreen = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[?1049l\x1b[?25h"

// langOf is the language the student's client asked for (LC_ALL, LC_MESSAGES, LANG), as the
// tour picks it.
func langOf(environ []string) string {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return lessons.DetectLang("", func(k string) string { return env[k] })
}

// lazyRegexp compiles expr when it is first used rather than during package initialisation,
// which every kubewalk command pays.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
