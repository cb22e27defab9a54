package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/kubewalk/kubewalk/runtime/cli/earlysignal"
	"github.com/kubewalk/kubewalk/runtime/cli/supervisor"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/sshclass"
	"github.com/kubewalk/kubewalk/runtime/sshclass/sparewait"
)

// Main runs kubewalk as a process and returns its exit code.
//
// tour and serve start a server and may take the terminal over: they run in a child process
// watched by a supervisor (runtime/cli/supervisor), which puts the terminal back and says where
// the log is if the child crashes, and they shut down cleanly on SIGINT, SIGTERM or SIGHUP; a
// second SIGINT or SIGTERM during the shutdown exits at once. The supervisor is the first
// process, and never gets here: it is started from an init function, before the libraries
// initialise (runtime/cli/supervisor/boot). Main runs in the child, or in a process that
// supervisor.Boot found nothing to supervise in. The other commands hold nothing to clean up
// and keep the default signal behaviour.
//
// Started by `class ssh` as a warm spare (see runtime/sshclass/pool.go), the process first
// waits for its session: the class server then hands it the command line and environment to
// run, and is its supervisor.
func Main(args []string) int {
	if _, isSpare := os.LookupEnv(sshclass.SpareEnv); isSpare && !sparewait.Parked() {
		// A class's spare that has initialised and waits: give the heap the initialisation no
		// longer needs back to the system before waiting (24 → 12 MB of its own). It no longer
		// lexes the server's source ahead (tui.PrewarmSource), which kept ~4 MB more of its own
		// (docs/performance.md, "class ssh memory"). A lean spare (parked in supervisor.Boot:
		// runtime/sshclass/sparewait) has its session already.
		debug.FreeOSMemory()
	}
	if args, link, code, isSpare := awaitSession(); isSpare {
		if link == nil {
			return code
		}
		return runSupervised(args, link)
	}
	if link, isChild := attachSupervisor(); isChild {
		return runSupervised(args, link)
	}
	if !startsServer(args) {
		if s := earlysignal.Release(); s != nil {
			return supervisor.SignalExitCode(s)
		}
		return Execute(context.Background(), args, os.Stdout, os.Stderr)
	}
	if !supervisor.Attempted() {
		// A server command that supervisor.Boot did not see as one (it follows cobra's parsing
		// of the command line; TestStartsAsCobra holds the two together), or a binary without
		// runtime/cli/supervisor/boot: supervise from here, paying the libraries'
		// initialisation once more.
		if code, ok := supervisor.Supervise(args); ok {
			return code
		}
	}
	// The supervisor could not start a child: run here, without crash recovery.
	return runServerCommand(args, nil)
}

// runSupervised runs args in a supervised process (a child, or a class's session) and tells
// the supervisor how it ended. The supervisor decided from the command line, without kubewalk's
// command tree, that args run a server; a command line that does not (bad flags, for one) runs
// as any command does.
func runSupervised(args []string, link *supervisorLink) int {
	if !startsServer(args) {
		var code int
		if s := earlysignal.Release(); s != nil {
			code = signalExitCode(s)
		} else {
			code = Execute(context.Background(), args, os.Stdout, os.Stderr)
		}
		link.exit(code)
		return code
	}
	return runServerCommand(args, link)
}

// awaitSession waits, in a process started as a class's spare, until the class server hands a
// session over, and returns the session's arguments and the link to the class server, which is
// this process's supervisor from then on. isSpare is false for any other process. A nil link
// means there is nothing to run: the class ended the spare (code 0) or the handover failed.
func awaitSession() (args []string, link *supervisorLink, code int, isSpare bool) {
	h, conn, isSpare, err := sshclass.AwaitHandover()
	if !isSpare {
		return nil, nil, 0, false
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubewalk: "+err.Error())
		return nil, nil, 1, true
	}
	if h == nil {
		return nil, nil, 0, true
	}
	os.Args = append([]string{os.Args[0]}, h.Args...)
	l := &supervisorLink{conn: conn, signals: make(chan os.Signal, 8)}
	go l.readSignals()
	return h.Args, l, 0, true
}

// startsServer reports whether args run tour or serve (the root command runs the tour), or a
// tour of a class (class host, join ADDR). Bad flags or arguments do not: Execute reports them.
func startsServer(args []string) bool {
	root := NewRootCommand(io.Discard, io.Discard)
	// Execute adds these on the fly; without them "help" and "completion" look like arguments.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return false
	}
	args0 := 0
	switch cmd.Name() {
	case "kubewalk", "tour", "serve":
	case "host":
		if cmd.Parent() == nil || cmd.Parent().Name() != "class" {
			return false
		}
	case "join":
		args0 = 1
	default:
		return false
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return false
	}
	return len(cmd.Flags().Args()) == args0
}

// runServerCommand runs tour or serve with the signal handling described at Main.
func runServerCommand(args []string, link *supervisorLink) int {
	sess := &session{link: link, term: supervisor.SaveTerminal(), stderr: terminalStderr(), uiInterrupt: make(chan struct{}, 1),
		tr: msgs(langArg(args))}
	e2eHooks.start()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := func(s os.Signal) { cancel(stopSignal{s}) }
	go watchSignals(stop, earlysignal.Stops(), link.forwarded(), sess.uiInterrupt, sess.hardExit)
	code := execute(ctx, args, os.Stdout, os.Stderr, sess)
	var sig stopSignal
	if code == 130 && errors.As(context.Cause(ctx), &sig) {
		// Interrupted by a signal: exit as the shell reports a process the signal ended (143
		// for SIGTERM, 129 for SIGHUP), once everything is shut down.
		code = signalExitCode(sig.Signal)
	}
	link.exit(code)
	return code
}

// stopSignal is the cause of a run's context cancelled by an ending signal.
type stopSignal struct{ os.Signal }

func (s stopSignal) Error() string { return "stopped by " + s.Signal.String() }

// watchSignals cancels the run (stop, with the signal) on the first ending signal and calls
// hardExit on a second SIGINT or SIGTERM. SIGHUP never forces: the terminal is gone, nobody is
// waiting, the cleanup matters more. Signals the supervisor forwards are counted apart from
// those the process got itself: a Ctrl-C reaches both processes (the terminal signals its whole
// foreground process group), and the supervisor forwards it too, so one Ctrl-C must not count
// twice. The supervisor's end closing (it died) counts as SIGHUP. A Ctrl-C pressed in the
// full-screen UI (a key in raw mode, not a signal) counts as a first SIGINT in both tallies.
func watchSignals(stop func(os.Signal), own, forwarded <-chan os.Signal, pressed <-chan struct{}, hardExit func(os.Signal)) {
	cancelled := false
	var count [2]int // own, forwarded
	for {
		var s os.Signal
		from := 0
		select {
		case s = <-own:
		case sig, ok := <-forwarded:
			from = 1
			if s = sig; !ok {
				forwarded, s = nil, syscall.SIGHUP
			}
		case <-pressed:
			pressed = nil
			count[0]++
			count[1]++
			continue
		}
		switch s {
		case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		default:
			continue // not an ending signal (a supervisor speaking a newer protocol)
		}
		if !cancelled {
			cancelled = true
			stop(s)
		}
		if s == syscall.SIGHUP {
			continue
		}
		if count[from]++; count[from] >= 2 {
			hardExit(s)
			return
		}
	}
}

// signalExitCode is the shell's code for a process ended by s: 128 + its number.
func signalExitCode(s os.Signal) int { return supervisor.SignalExitCode(s) }

// session is what tour and serve need from the process around them: a supervisor to tell where
// the log is and when the terminal is taken over, and a way out on a second Ctrl-C. A nil
// *session (Execute) does none of it.
type session struct {
	link   *supervisorLink
	term   *supervisor.TerminalState
	stderr *os.File // the terminal's stderr, even after fd 2 is sent to the log file
	tuiOn  atomic.Bool
	// uiInterrupt receives one value when Ctrl-C is pressed in the full-screen UI.
	uiInterrupt chan struct{}
	// tr is the language of what the process says outside the commands (nil: English).
	tr *i18n.Strings
}

// interruptedInUI notes a Ctrl-C pressed in the full-screen UI (see watchSignals).
func (s *session) interruptedInUI() {
	if s == nil {
		return
	}
	select {
	case s.uiInterrupt <- struct{}{}:
	default:
	}
}

// logFile reports the log file's path to the supervisor.
func (s *session) logFile(path string) {
	if s != nil {
		s.link.report("log", path)
	}
}

// owns tells the supervisor about a path the server created (see server.Options.Track), so it
// can remove it if this process dies before the server's Close does.
func (s *session) owns(path string, dir bool) {
	if s == nil {
		return
	}
	kind := "owns"
	if dir {
		kind = "ownsdir"
	}
	s.link.report(kind, path)
}

// terminalTaken tells the supervisor whether the full-screen UI holds the terminal (raw mode,
// alternate screen, mouse reporting), so it can put it back if the process dies meanwhile.
func (s *session) terminalTaken(on bool) {
	if s == nil {
		return
	}
	s.tuiOn.Store(on)
	v := "0"
	if on {
		v = "1"
	}
	s.link.report("tui", v)
}

// hardExit ends the process at once, on a second SIGINT or SIGTERM while the first one's
// shutdown runs: it skips the rest of the cleanup, says so and exits 128 + the signal's number
// (130, 143). The supervisor, if any, puts the
// terminal back and prints the message once this process is gone (so no frame of the UI can be
// drawn after it); without one, this process does both.
func (s *session) hardExit(sig os.Signal) {
	tr := s.tr
	if tr == nil {
		tr = i18n.For(i18n.English)
	}
	again := tr.CLIAgainInterrupted
	if sig == syscall.SIGTERM {
		again = tr.CLIAgainTerminated
	}
	msg := "kubewalk: " + fmt.Sprintf(again, os.TempDir())
	if s.link != nil {
		s.link.report("note", msg)
	} else {
		if s.tuiOn.Load() {
			s.term.Restore(true)
		}
		fmt.Fprintln(s.stderr, msg)
	}
	code := signalExitCode(sig)
	s.link.exit(code)
	os.Exit(code)
}

// terminalStderr returns a handle on the current fd 2 that stays on the terminal after
// runtime/logs points fd 2 at the log file.
func terminalStderr() *os.File {
	fd, err := unix.Dup(int(os.Stderr.Fd()))
	if err != nil {
		return os.Stderr
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "/dev/stderr")
}
