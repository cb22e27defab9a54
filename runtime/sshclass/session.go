package sshclass

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
			s.logf("refused %s@%s: asked to run a command", sess.User(), sess.RemoteAddr())
			short := cmd
			if len(short) > 40 {
				short = short[:40] + "…"
			}
			s.refuse(sess, fmt.Sprintf(messagesFor(sess.Environ()).NoCommand, fmt.Sprintf("%q", short)))
			return
		}
		next(sess)
	}
}

// userName is what an SSH user name must look like: it names a directory under the class's
// state dir.
var userName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,31}$`)

// checkUser refuses a user name that cannot name the student's progress directory, and, with
// authorized keys, a name another key owns (see nameClaims).
func (s *Server) checkUser(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if !userName.MatchString(sess.User()) {
			s.logf("refused %q@%s: not a usable user name", sess.User(), sess.RemoteAddr())
			s.refuse(sess, fmt.Sprintf(messagesFor(sess.Environ()).BadUser, sess.User()))
			return
		}
		if s.claims != nil {
			// The key the connection authenticated with: with x/crypto ≥ v0.31 the last key
			// that passed the public key callback is the one the client signed with.
			key := sess.PublicKey()
			if key == nil {
				s.logf("refused %s@%s: no public key on an authenticated connection", sess.User(), sess.RemoteAddr())
				s.refuse(sess, messagesFor(sess.Environ()).Failed)
				return
			}
			if err := s.claims.claim(sess.User(), key); err != nil {
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
			s.wg.Done()
		}()
		next(sess)
	}
}

// tourMiddleware runs the session's tour; it is the end of the chain.
func (s *Server) tourMiddleware(ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) { _ = sess.Exit(s.runTour(sess)) }
}

// runTour runs one student's tour on a fresh pseudo-terminal in a temporary directory of its
// own, relays the terminal both ways until the tour or the connection ends, then stops the
// tour's processes, removes the directory and returns the exit status to report.
func (s *Server) runTour(sess ssh.Session) int {
	tr := messagesFor(sess.Environ())
	ptyReq, winch, _ := sess.Pty()
	user := sess.User()
	id := s.nextID.Add(1)
	began := time.Now()

	dir, err := os.MkdirTemp(s.cfg.TempDir, "kubewalk-ssh-")
	if err != nil {
		s.logf("session %d %s: temp dir: %v", id, user, err)
		wish.Errorln(sess, tr.Failed)
		return 1
	}
	defer s.removeDir(id, user, dir)
	state := filepath.Join(s.cfg.StateDir, "users", user)
	if err := os.MkdirAll(state, 0o700); err != nil {
		s.logf("session %d %s: state dir: %v", id, user, err)
		wish.Errorln(sess, tr.Failed)
		return 1
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		s.logf("session %d %s: pseudo-terminal: %v", id, user, err)
		wish.Errorln(sess, tr.Failed)
		return 1
	}
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
	resize(ptyReq.Window)

	cmd := exec.Command(s.cfg.Executable, s.childArgs(user, dir)...)
	cmd.Env = s.childEnv(sess.Environ(), ptyReq.Term, dir, state)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	// Its own session with the pty as controlling terminal: Ctrl-C, Ctrl-Z and SIGWINCH reach
	// the tour's foreground process group only, and the group can be ended as a whole.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	err = cmd.Start()
	tty.Close()
	if err != nil {
		s.logf("session %d %s: start %s: %v", id, user, s.cfg.Executable, err)
		wish.Errorln(sess, tr.Failed)
		return 1
	}
	pid := cmd.Process.Pid
	s.register(&SessionInfo{ID: id, User: user, Remote: sess.RemoteAddr().String(), Dir: dir, PID: pid, Started: began})
	defer s.unregister(id)
	s.logf("session %d %s from %s: started (pid %d, dir %s)", id, user, sess.RemoteAddr(), pid, dir)

	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()

	var lastInput atomic.Int64
	lastInput.Store(time.Now().UnixNano())
	outFailed := make(chan struct{})
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		relayOutput(ptmx, sess, outFailed)
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

	code := exitCode(cmd.ProcessState)
	if killed || !cleanExit(code) {
		s.keepLog(id, user, dir)
	}
	how := ""
	if killed {
		how = ", killed: it did not stop within " + s.cfg.StopBound.String()
	}
	s.logf("session %d %s: ended (%s), exit status %d%s", id, user, why, code, how)
	if tell != "" {
		// The tour put the terminal back as it stopped; after a SIGKILL nobody did.
		io.WriteString(sess, leaveScreen)
		fmt.Fprintln(sess.Stderr(), "\r\n"+tell)
	}
	return code
}

// childArgs are the tour's arguments: a server on an unused loopback port, its kubeconfig and
// log in the session's directory.
func (s *Server) childArgs(user, dir string) []string {
	var args []string
	if f := s.cfg.Follow; f != nil {
		args = []string{"join", f.Addr, "--code", f.Code, "--name", user}
	} else {
		args = []string{"tour"}
	}
	// The student is not this machine's user: the tour's kubectl must not read its files.
	args = append(args, "--kubectl-no-local-files", "--secure-port", "0", "--bind-address", "127.0.0.1",
		"--kubeconfig", filepath.Join(dir, "kubeconfig"), "--log-file", filepath.Join(dir, "kubewalk.log"))
	return append(args, s.cfg.Args...)
}

// safeValue is what an environment value from the student's client may contain.
var safeValue = regexp.MustCompile(`^[A-Za-z0-9_.@:+-]{1,64}$`)

// clientVars are the variables a student's ssh client may set for the tour (OpenSSH sends LANG
// and LC_* by default); nothing else of the client's environment is used.
var clientVars = map[string]bool{"LANG": true, "LANGUAGE": true, "LC_ALL": true, "LC_MESSAGES": true,
	"LC_CTYPE": true, "COLORTERM": true, "NO_COLOR": true}

// childEnv is the tour's whole environment: nothing of the class server's own but PATH, the
// session's directory as HOME, TMPDIR and XDG_RUNTIME_DIR, the student's XDG_STATE_HOME, the
// terminal type and locale from the client, then Config.Env.
func (s *Server) childEnv(client []string, term, dir, state string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	if !safeValue.MatchString(term) {
		term = "xterm-256color"
	}
	env := []string{"PATH=" + path, "HOME=" + dir, "TMPDIR=" + dir, "XDG_RUNTIME_DIR=" + dir,
		"XDG_STATE_HOME=" + state, "TERM=" + term}
	locale := false
	for _, kv := range client {
		k, v, _ := strings.Cut(kv, "=")
		if clientVars[k] && safeValue.MatchString(v) {
			env = append(env, k+"="+v)
			locale = locale || k == "LANG" || k == "LC_ALL" || k == "LC_CTYPE"
		}
	}
	if !locale {
		env = append(env, "LANG=C.UTF-8") // the screens draw box characters
	}
	return append(env, s.cfg.Env...)
}

// relayOutput copies the terminal's output to the session until the terminal fails (no process
// holds it any more). A failed write closes failed and the rest is read and dropped, so that the
// tour never blocks on a full terminal while it shuts down.
func relayOutput(ptmx io.Reader, sess io.Writer, failed chan struct{}) {
	buf := make([]byte, 32*1024)
	ok := true
	for {
		n, err := ptmx.Read(buf)
		if n > 0 && ok {
			if _, werr := sess.Write(buf[:n]); werr != nil {
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
// shuts its server down and its supervisor removes what the server made), then SIGKILL after
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

// removeDir removes the session's directory and checks that it is gone.
func (s *Server) removeDir(id int64, user, dir string) {
	err := os.RemoveAll(dir)
	if _, serr := os.Lstat(dir); err == nil && !errors.Is(serr, os.ErrNotExist) {
		err = fmt.Errorf("still there after removal (%v)", serr)
	}
	if err != nil {
		s.logf("session %d %s: could not remove %s: %v", id, user, dir, err)
	}
}

// keepLog copies the log of a tour that failed to the class's logs/ directory before its
// directory is removed.
func (s *Server) keepLog(id int64, user, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "kubewalk.log"))
	if err != nil {
		return
	}
	logs := filepath.Join(s.cfg.StateDir, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		s.logf("session %d %s: keep log: %v", id, user, err)
		return
	}
	path := filepath.Join(logs, fmt.Sprintf("%s-session%d-%s.log", time.Now().Format("20060102-150405"), id, user))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		s.logf("session %d %s: keep log: %v", id, user, err)
		return
	}
	s.logf("session %d %s: its tour failed; log kept at %s", id, user, path)
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

func winsize(w ssh.Window) *pty.Winsize {
	return &pty.Winsize{Rows: uint16(w.Height), Cols: uint16(w.Width)}
}
