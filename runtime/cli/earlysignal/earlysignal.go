// Package earlysignal catches the signals that end kubewalk — SIGINT, SIGTERM and SIGHUP — and
// SIGPIPE from package initialisation on, before the libraries' own init functions run.
//
// Those take tens of milliseconds (chroma parses every embedded lexer, glamour, bluemonday and
// client-go build their tables) and Go runs every linked package's init whatever the command.
// Go initialises a package as soon as its imports are, in import-path order, so this package —
// which imports only the standard library's signal handling — runs within the first couple of
// milliseconds (see GODEBUG=inittrace=1). That matters for a process started in the background
// by a non-interactive shell: it inherits SIGINT as ignored and the kernel drops an ignored
// signal, so before Notify un-ignores it a Ctrl-C or kill -INT is lost for good.
//
// The signal handlers are process-wide, so the channels here are too: they are filled by the
// runtime and read by runtime/cli only.
package earlysignal

import (
	"os"
	"os/signal"
	"syscall"
)

var (
	// stops buffers the ending signals until main reads them.
	stops = make(chan os.Signal, 16)
	// pipes is never read: notifying SIGPIPE is what keeps a write to a closed stdout or stderr
	// pipe from killing the process (Go raises SIGPIPE for fd 1 and 2 unless it is notified);
	// the write then fails with EPIPE and the cleanup goes on.
	pipes = make(chan os.Signal, 1)
)

func init() {
	signal.Notify(stops, Ending()...)
	signal.Notify(pipes, syscall.SIGPIPE)
}

// Ending returns the signals that end kubewalk: SIGINT, SIGTERM and SIGHUP.
func Ending() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
}

// Stops delivers each ending signal caught since the process started, in order.
func Stops() <-chan os.Signal { return stops }

// Pending returns an ending signal already caught, or nil, without waiting.
func Pending() os.Signal {
	select {
	case s := <-stops:
		return s
	default:
		return nil
	}
}

// Release gives the ending signals and SIGPIPE back their original dispositions — die, or stay
// ignored if the process was started with them ignored — for commands that hold nothing to
// clean up. It returns an ending signal that arrived before, or nil.
func Release() os.Signal {
	signal.Reset(append(Ending(), syscall.SIGPIPE)...)
	return Pending()
}
