// Package supervisor is the crash guard of `kubewalk tour` and `kubewalk serve`: the first
// process of such a run, which starts the real run as its child and watches it.
//
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
//     over a socket; the child counts them apart from its own (runtime/cli's watchSignals);
//   - the supervisor exits with the child's code (128+n if a signal killed it);
//   - if the supervisor dies, the child sees its socket close and shuts down as on SIGHUP.
//
// The supervisor must not cost the run its start: the binary links k8s.io/apiserver, etcd,
// kubectl's commands, glamour and chroma, whose package initialisation takes tens of
// milliseconds, and Go runs all of it before main. So the supervisor never reaches main. Boot,
// called from the init function of runtime/cli/supervisor/boot (imported by cmd/kubewalk
// only), decides from the command line whether this process is a run to supervise; if so it
// starts the child, supervises it and exits, all inside that init function, before the
// libraries' initialisation. This package imports only the standard library packages that Go
// initialises first (not even strings, bufio, os/exec or path/filepath, which Go initialises
// only after some hundred other packages) and runtime/cli/earlysignal, so its init runs within
// the first fifty packages, a few milliseconds after exec (TestBootInitialisesEarly). The child
// pays the initialisation once, as any process does.
//
// Under `kubewalk class ssh` there is no second process: the class server supervises each
// session's tour itself, over the socket it hands the session over on (runtime/sshclass): the
// same messages, preceded by the spare's `ready "pid"` and the class server's `start "json"`.
// The spare says "ready" and waits for its session in Boot too, before the libraries
// initialise, so that a waiting spare holds little memory of its own (runtime/sshclass/sparewait).
//
// The protocol is one line per message. Child to supervisor: `log "path"`, `tui "1"|"0"`,
// `note "text"` (print after the terminal is back), `owns "path"` and `ownsdir "path"` (what the
// server created and would remove on Close: removed by the supervisor after a crash), `exit
// "code"`. Supervisor to child: `signal "n"`.
package supervisor

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/kubewalk/kubewalk/runtime/cli/earlysignal"
	"github.com/kubewalk/kubewalk/runtime/sshclass/sparewait"
)

// Env names the child's end of the socket (a file descriptor number). It is read and removed
// from the environment as the child starts (runtime/cli's attachSupervisor).
const Env = "KUBEWALK_SUPERVISOR_FD"

// SpareEnv is runtime/sshclass.SpareEnv: a class's spare is supervised by the class server.
const SpareEnv = sparewait.Env

// attempted is set once Boot tried to supervise this process's run.
var attempted bool

// Boot supervises this process's run if its command line starts a server and it is neither a
// supervised child nor a class's spare: it starts the child, waits for it and exits with its
// code. It returns if there is nothing to supervise or the child could not be started (the run
// then goes on in this process, without a crash guard). A class's spare waits here until the
// class server hands it a session, and returns then (or exits, if the class ended it first):
// see runtime/sshclass/sparewait. Call it from an init function, before the libraries
// initialise; Attempted tells main that it ran.
func Boot() {
	if _, child := os.LookupEnv(Env); child {
		return
	}
	if _, spare := os.LookupEnv(SpareEnv); spare {
		if !testBinary(os.Args) {
			sparewait.Park()
		}
		return
	}
	args := os.Args[1:]
	if testBinary(os.Args) || !Starts(args) {
		return
	}
	attempted = true
	if code, ok := Supervise(args); ok {
		os.Exit(code)
	}
}

// testBinary reports whether args are those of a go test binary: cmd/kubewalk's tests link
// package main, and with it the boot package, but the command line is go test's.
func testBinary(args []string) bool {
	if len(args) > 0 && len(args[0]) > len(".test") && args[0][len(args[0])-len(".test"):] == ".test" {
		return true
	}
	for _, a := range args[1:] {
		if len(a) > len("-test.") && a[:len("-test.")] == "-test." {
			return true
		}
	}
	return false
}

// Attempted reports whether Boot tried to supervise this process's run (and could not start a
// child, since it returned).
func Attempted() bool { return attempted }

// Supervise runs args in a child process of the same binary and supervises it. It returns
// false if the child could not be started (and nothing was printed).
func Supervise(args []string) (code int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
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

	tr := MessagesFor(DetectLang(args, os.Getenv))
	if s := earlysignal.Pending(); s != nil {
		childEnd.Close()
		fmt.Fprintln(os.Stderr, "kubewalk: "+tr.InterruptedShort)
		return SignalExitCode(s), true
	}
	saved := SaveTerminal()
	p, err := os.StartProcess(exe, append([]string{os.Args[0]}, args...), &os.ProcAttr{
		Env:   append(os.Environ(), Env+"=3"),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, childEnd}, // the socket is fd 3
	})
	childEnd.Close()
	if err != nil {
		return 0, false
	}

	rep := &childReport{tr: tr}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		rep.read(conn)
	}()
	var state *os.ProcessState
	waited := make(chan struct{})
	go func() {
		state, _ = p.Wait()
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
	ws := syscall.WaitStatus(255 << 8)
	if state != nil {
		ws = state.Sys().(syscall.WaitStatus)
	}
	return rep.conclude(ws, saved, os.Stderr), true
}

// childReport is what the child told its supervisor.
type childReport struct {
	tr      Messages // what the supervisor says it in; the zero value is English
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
	readLines(conn, func(line []byte) {
		kind, arg, ok := ParseReport(string(line))
		if !ok {
			return
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		switch kind {
		case "log":
			r.logPath = arg
		case "tui":
			r.tui = arg == "1"
		case "note":
			r.notes = append(r.notes, arg)
		case "owns", "ownsdir":
			if len(arg) > 0 && arg[0] == '/' { // absolute
				r.owned = append(r.owned, ownedPath{path: arg, dir: kind == "ownsdir"})
			}
		case "exit":
			r.exited = true
		}
	})
}

// maxLine bounds a protocol line; a longer one is skipped whole.
const maxLine = 64 << 10

// readLines calls fn with each line r delivers (without its newline) until r ends.
func readLines(r io.Reader, fn func([]byte)) {
	var buf []byte
	chunk := make([]byte, 4096)
	skipping := false
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if !skipping {
				fn(buf[:i])
			}
			skipping = false
			buf = buf[i+1:]
		}
		if len(buf) > maxLine {
			buf, skipping = buf[:0], true
		}
		if err != nil {
			if len(buf) > 0 && !skipping {
				fn(buf)
			}
			return
		}
	}
}

// conclude restores the terminal if the child left it taken over or died abnormally, prints the
// child's notes and, after a crash, where its log is; it returns the supervisor's exit code.
func (r *childReport) conclude(ws syscall.WaitStatus, saved *TerminalState, stderr io.Writer) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	tr := r.tr
	if tr == (Messages{}) {
		tr = english
	}
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = SignalExitCode(ws.Signal())
	}
	crashed := !r.exited
	if r.tui || crashed {
		saved.Restore(r.tui)
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
		fmt.Fprintln(stderr, "kubewalk: "+tr.InterruptedShort)
		return code
	}
	left := r.removeOwned()
	fmt.Fprintln(stderr, CrashMessage(tr, ws, r.logPath, left))
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

// CrashMessage says that the child crashed (how ws says) and where its log (with the trace)
// is, and what of the server's files could not be removed.
func CrashMessage(tr Messages, ws syscall.WaitStatus, logPath string, left []string) string {
	how := fmt.Sprintf(tr.ExitStatus, ws.ExitStatus())
	if ws.Signaled() {
		how = fmt.Sprintf(tr.Signal, ws.Signal().String())
	}
	if logPath == "" {
		return fmt.Sprintf(tr.CrashedNoLog, how)
	}
	msg := fmt.Sprintf(tr.Crashed, how, logPath)
	if line := lastPanicLine(logPath); line != "" {
		msg += fmt.Sprintf(tr.CrashedTrace, line)
	}
	if len(left) > 0 {
		msg += fmt.Sprintf(tr.CouldNotRemove, string(bytes.Join(toBytes(left), []byte(", "))))
	}
	return msg
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
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

// ParseReport splits a protocol line `kind "quoted arg"`.
func ParseReport(line string) (kind, arg string, ok bool) {
	k, quoted, found := bytes.Cut([]byte(line), []byte(" "))
	if !found {
		return "", "", false
	}
	arg, err := strconv.Unquote(string(quoted))
	if err != nil {
		return "", "", false
	}
	return string(k), arg, true
}

// SignalExitCode is the shell's code for a process ended by s: 128 + its number.
func SignalExitCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}
