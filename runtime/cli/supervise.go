package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/kubewalk/kubewalk/runtime/cli/earlysignal"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// A panic in any goroutine — also one kubewalk does not own, in a library — ends a Go program
// with no user code running: the terminal stays in raw mode on the alternate screen with mouse
// reporting on, and the trace goes to fd 2, which runtime/logs has pointed at the log file. So
// tour and serve run in a child process of the same binary and the first process only
// supervises:
//
//   - it saves the terminal's state before the child starts, and after the child ends abnormally
//     (no "exit" report: a panic, a fatal error, a signal) or while it still held the terminal,
//     it puts the terminal back (termios, main screen, cursor, mouse and paste modes) and says
//     "kubewalk crashed; the log is at …", with the panic line from the log;
//   - the child shares its stdin, stdout, stderr and process group, so the terminal, its
//     Ctrl-C, Ctrl-Z and window size reach the child directly;
//   - signals sent to the supervisor's pid (kill, a closing terminal, a test) are forwarded
//     over a socket; the child counts them apart from its own (see watchSignals);
//   - the supervisor exits with the child's code (128+n if a signal killed it);
//   - if the supervisor dies, the child sees its socket close and shuts down as on SIGHUP.
//
// Under `kubewalk class ssh` there is no second process: the class server supervises each
// session's tour itself, over the socket it hands the session over on (see
// runtime/sshclass/pool.go and awaitSession): the same messages, preceded by the spare's
// `ready "pid"` and the class server's `start "json"`.
//
// The protocol is one line per message. Child to supervisor: `log "path"`, `tui "1"|"0"`,
// `note "text"` (print after the terminal is back), `owns "path"` and `ownsdir "path"` (what the
// server created and would remove on Close: removed by the supervisor after a crash), `exit
// "code"`. Supervisor to child: `signal "n"`.

// supervisorEnv names the child's end of the socket (a file descriptor number). It is read and
// removed from the environment as the child starts.
const supervisorEnv = "KUBEWALK_SUPERVISOR_FD"

// supervise runs args in a child process and supervises it. It returns false if the child could
// not be started (and nothing was printed).
func supervise(args []string) (code int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	conn := os.NewFile(uintptr(fds[0]), "kubewalk-supervisor")
	childEnd := os.NewFile(uintptr(fds[1]), "kubewalk-child")
	defer conn.Close()

	// Ctrl-\ reaches both processes: the child dumps its goroutines and dies (reported as a
	// crash below); the supervisor must outlive it.
	quit := make(chan os.Signal, 1)
	signal.Notify(quit, syscall.SIGQUIT)
	defer signal.Stop(quit)

	tr := msgs(langArg(args))
	if s := earlysignal.Pending(); s != nil {
		childEnd.Close()
		fmt.Fprintln(os.Stderr, "kubewalk: "+tr.CLIInterruptedShort)
		return signalExitCode(s), true
	}
	saved := saveTerminal()
	cmd := exec.Command(exe, args...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{childEnd} // fd 3
	cmd.Env = append(os.Environ(), supervisorEnv+"=3")
	if err := cmd.Start(); err != nil {
		childEnd.Close()
		return 0, false
	}
	childEnd.Close()

	rep := &childReport{tr: tr}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		rep.read(conn)
	}()
	waited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(waited)
	}()
	for running := true; running; {
		select {
		case s := <-earlysignal.Stops():
			if n, ok := s.(syscall.Signal); ok {
				fmt.Fprintf(conn, "signal %q\n", strconv.Itoa(int(n)))
			}
		case <-waited:
			running = false
		}
	}
	// The child's end closed with it; the last reports are at most a read away.
	select {
	case <-readDone:
	case <-time.After(2 * time.Second):
	}
	return rep.conclude(cmd.ProcessState.Sys().(syscall.WaitStatus), saved, os.Stderr), true
}

// childReport is what the child told its supervisor.
type childReport struct {
	tr      *i18n.Strings // what the supervisor says it in; nil is English
	mu      sync.Mutex
	logPath string
	tui     bool
	notes   []string
	owned   []ownedPath // what the child's server created, in order
	exited  bool        // the child reported its exit code: it did not crash
}

// ownedPath is a path the child's server created and would have removed on Close.
type ownedPath struct {
	path string
	dir  bool // remove with its contents (the work dir); otherwise a file, or an empty directory
}

// read records the child's reports until its end closes.
func (r *childReport) read(conn io.Reader) {
	sc := bufio.NewScanner(conn)
	for sc.Scan() {
		kind, arg, ok := parseReport(sc.Text())
		if !ok {
			continue
		}
		r.mu.Lock()
		switch kind {
		case "log":
			r.logPath = arg
		case "tui":
			r.tui = arg == "1"
		case "note":
			r.notes = append(r.notes, arg)
		case "owns", "ownsdir":
			if filepath.IsAbs(arg) {
				r.owned = append(r.owned, ownedPath{path: arg, dir: kind == "ownsdir"})
			}
		case "exit":
			r.exited = true
		}
		r.mu.Unlock()
	}
}

// conclude restores the terminal if the child left it taken over or died abnormally, prints the
// child's notes and, after a crash, where its log is; it returns the supervisor's exit code.
func (r *childReport) conclude(ws syscall.WaitStatus, saved *terminalState, stderr io.Writer) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.tr
	if tr == nil {
		tr = i18n.For(i18n.English)
	}
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = signalExitCode(ws.Signal())
	}
	crashed := !r.exited
	if r.tui || crashed {
		saved.restore(r.tui)
	}
	for _, n := range r.notes {
		fmt.Fprintln(stderr, n)
	}
	if !crashed {
		return code
	}
	if ws.Signaled() && (ws.Signal() == syscall.SIGINT || ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGHUP) {
		// Killed by the signal's default action, before its handler was installed: nothing had
		// been started yet.
		fmt.Fprintln(stderr, "kubewalk: "+tr.CLIInterruptedShort)
		return code
	}
	left := r.removeOwned()
	fmt.Fprintln(stderr, crashMessage(tr, ws, r.logPath, left))
	return code
}

// removeOwned removes, newest first, what the crashed child's server had created (its work
// dir with etcd's data, the kubeconfig and its lock) and returns what could not be removed.
func (r *childReport) removeOwned() []string {
	var left []string
	for i := len(r.owned) - 1; i >= 0; i-- {
		o := r.owned[i]
		var err error
		if o.dir {
			err = os.RemoveAll(o.path)
		} else {
			err = os.Remove(o.path)
			var pe *os.PathError
			if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOTEMPTY) {
				err = nil // a directory someone else uses now: not ours to empty
			}
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			left = append(left, o.path)
		}
	}
	return left
}

// crashMessage says that the child crashed and where its log (with the trace) is.
func crashMessage(tr *i18n.Strings, ws syscall.WaitStatus, logPath string, left []string) string {
	how := fmt.Sprintf(tr.CLIExitStatus, ws.ExitStatus())
	if ws.Signaled() {
		how = fmt.Sprintf(tr.CLISignal, ws.Signal().String())
	}
	if logPath == "" {
		return fmt.Sprintf(tr.CLICrashedNoLog, how)
	}
	msg := fmt.Sprintf(tr.CLICrashed, how, logPath)
	if line := lastPanicLine(logPath); line != "" {
		msg += fmt.Sprintf(tr.CLICrashedTrace, line)
	}
	if len(left) > 0 {
		msg += fmt.Sprintf(tr.CLICouldNotRemove, strings.Join(left, ", "))
	}
	return msg
}

// lastPanicLine returns the last "panic: …" or "fatal error: …" line in the log's tail.
func lastPanicLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 1 << 20
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		_, _ = f.Seek(fi.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, tail))
	var last string
	for _, l := range bytes.Split(b, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("panic: ")) || bytes.HasPrefix(l, []byte("fatal error: ")) {
			last = string(l)
		}
	}
	if len(last) > 300 {
		last = last[:300] + "…"
	}
	return last
}

// parseReport splits a protocol line `kind "quoted arg"`.
func parseReport(line string) (kind, arg string, ok bool) {
	kind, quoted, found := strings.Cut(line, " ")
	if !found {
		return "", "", false
	}
	arg, err := strconv.Unquote(quoted)
	if err != nil {
		return "", "", false
	}
	return kind, arg, true
}

// supervisorLink is the child's end of the socket. A nil *supervisorLink does nothing.
type supervisorLink struct {
	mu      sync.Mutex
	conn    *os.File
	signals chan os.Signal
}

// attachSupervisor connects to the supervisor named by supervisorEnv. isChild is true when
// the variable was set, even if its descriptor is unusable (link is nil then): a child never
// starts a supervisor of its own.
func attachSupervisor() (link *supervisorLink, isChild bool) {
	v, isChild := os.LookupEnv(supervisorEnv)
	if !isChild {
		return nil, false
	}
	os.Unsetenv(supervisorEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil, true
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, true
	}
	unix.CloseOnExec(fd)
	l := &supervisorLink{conn: os.NewFile(uintptr(fd), "kubewalk-supervisor"), signals: make(chan os.Signal, 8)}
	go l.readSignals()
	return l, true
}

// readSignals turns the supervisor's forwarded signals into l.signals, closed when the
// supervisor's end closes.
func (l *supervisorLink) readSignals() {
	defer close(l.signals)
	sc := bufio.NewScanner(l.conn)
	for sc.Scan() {
		kind, arg, ok := parseReport(sc.Text())
		if !ok || kind != "signal" {
			continue
		}
		if n, err := strconv.Atoi(arg); err == nil {
			l.signals <- syscall.Signal(n)
		}
	}
}

// forwarded delivers the signals the supervisor forwards; nil (never) without a supervisor.
func (l *supervisorLink) forwarded() <-chan os.Signal {
	if l == nil {
		return nil
	}
	return l.signals
}

// report sends one message to the supervisor.
func (l *supervisorLink) report(kind, arg string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.conn, "%s %q\n", kind, arg)
}

// exit tells the supervisor that the process is about to exit with code on purpose.
func (l *supervisorLink) exit(code int) { l.report("exit", strconv.Itoa(code)) }

// terminalState is the terminal as kubewalk found it.
type terminalState struct {
	in  *term.State // stdin's termios; nil when stdin is not a terminal
	out *os.File    // stdout, when it is a terminal
}

// saveTerminal records stdin's terminal settings and whether stdout is a terminal.
func saveTerminal() *terminalState {
	t := &terminalState{}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		t.in, _ = term.GetState(int(os.Stdin.Fd()))
	}
	if term.IsTerminal(int(os.Stdout.Fd())) {
		t.out = os.Stdout
	}
	return t
}

// leaveScreen turns off what bubbletea turns on — mouse reporting (1000, 1002, 1003, SGR 1006),
// focus reporting, bracketed paste — leaves the alternate screen and shows the cursor.
const leaveScreen = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[?1049l\x1b[?25h"

// restore puts the saved termios back and, if screen is set, the screen modes — only while this
// process group is the terminal's foreground (a background job must not touch the terminal).
func (t *terminalState) restore(screen bool) {
	if t == nil {
		return
	}
	if t.in != nil && foreground(int(os.Stdin.Fd())) {
		_ = term.Restore(int(os.Stdin.Fd()), t.in)
	}
	if screen && t.out != nil && foreground(int(t.out.Fd())) {
		_, _ = t.out.WriteString(leaveScreen)
	}
}

// foreground reports whether fd is a terminal whose foreground process group is ours.
func foreground(fd int) bool {
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pgrp == unix.Getpgrp()
}
