package kubectl

import (
	"os"
	"syscall"
	_ "unsafe" // for go:linkname

	// The package whose signal list is replaced below. kubectl's commands import it anyway;
	// importing it here makes sure it is initialised before this package's init runs.
	_ "k8s.io/kubectl/pkg/util/interrupt"
)

// kubectl's commands that wait — get -w, wait, rollout status -w, logs -f, events -w, delete
// --wait (through wait), run --attach and debug --attach — guard the wait with
// k8s.io/kubectl/pkg/util/interrupt (v0.37.2): interrupt.New(nil, cancel).Run(fn), whose Run
// calls signal.Notify for SIGHUP, SIGINT, SIGTERM and SIGQUIT and, on the first one, calls
// cancel and then, since no final function is given, os.Exit(1). In the kubectl binary that is
// right. In kubewalk, where kubectl runs in-process, it ends kubewalk in the middle of its own
// shutdown: kubewalk catches the same signal, but os.Exit(1) wins the race — the server's
// temporary files and kubectl's cache directory stay behind, the supervisor (or the class
// server) reports a crash, and SIGQUIT no longer dumps the goroutines.
//
// The package offers no option to switch that off, and its callers pass nil as the final
// function, so the list of signals Run notifies is replaced with one that cannot be caught:
// signal.Notify with SIGKILL installs nothing ("SIGKILL and SIGSTOP may not be caught",
// os/signal), so Run's goroutine never receives a signal and the handler never exits the
// process. Run still calls its notify functions (the command's cancel) when fn returns. A
// command ends when kubewalk cancels the context its requests carry (Runner.Run), which is
// what kubewalk's shutdown does on a signal; kubewalk then exits with its own code.
//
// The list is package state of a non-standard package (a go:linkname pull, which the Go linker
// allows outside the standard library); TestInterruptSignalsReplaced checks that the symbol
// exists and held kubectl's four signals, so an upgrade that renames or changes it fails there.

//go:linkname kubectlInterruptSignals k8s.io/kubectl/pkg/util/interrupt.terminationSignals
var kubectlInterruptSignals []os.Signal

// uncatchable is what kubectl's interrupt handler listens for instead: a signal no handler can
// receive.
var uncatchable = []os.Signal{syscall.SIGKILL}

// kubectlInterruptWas is the list kubectl's interrupt package had before init replaced it, for
// the test that checks the symbol.
var kubectlInterruptWas []os.Signal

func init() {
	kubectlInterruptWas = kubectlInterruptSignals
	kubectlInterruptSignals = uncatchable
}
