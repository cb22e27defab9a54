// Package sandbox confines a running kubewalk process with the kernel's own mechanisms, so that
// what it can reach is an allow-list the process chose before it met its user, not a list of
// refusals in its own code. `kubewalk class ssh` applies it to every student's tour (see
// runtime/sshclass and docs/classroom.md); each mechanism holds on its own:
//
//   - seccomp (Linux ≥ 3.17): the no_new_privs bit, then a filter on every thread (TSYNC) that
//     answers EPERM to execve and execveat — the process never starts another program — and to
//     ptrace, process_vm_readv and process_vm_writev, so that, even without Landlock, a tour
//     cannot read or steer another process of the same user (all students' tours run as one
//     unprivileged user). A second filter refuses system calls made through another
//     architecture's entry point (x86-64's int 0x80), which the first one, keyed on native
//     numbers, would not see.
//   - Landlock (github.com/landlock-lsm/go-landlock): file access only beneath the read-only and
//     read-write hierarchies given, with no execute right anywhere (the process already runs);
//     with ABI ≥ 4, TCP bind and connect only on the ports given; with ABI ≥ 6, no signal to and
//     no abstract unix socket of a process outside the sandbox. Before ABI 8 the rules reach
//     every OS thread through libpsx (cgo) or syscall.AllThreadsSyscall.
//
// Apply is one-way: nothing lifts a sandbox, and a process's children inherit it.
package sandbox

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is how much of a sandbox a caller insists on.
type Mode string

// The modes of `kubewalk class ssh --sandbox`.
const (
	// Auto applies what the kernel offers and says what is missing.
	Auto Mode = "auto"
	// Require refuses to run without Landlock with network rules (ABI ≥ 4) and seccomp.
	Require Mode = "require"
	// Off applies neither Landlock nor seccomp.
	Off Mode = "off"
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Auto, Require, Off:
		return m, nil
	}
	return "", fmt.Errorf("%q: want auto (use what the kernel offers), require (refuse to start without Landlock with network rules and seccomp) or off", s)
}

// Landlock ABI versions that add what the tour's rules use.
const (
	// ABINet adds TCP bind and connect rules.
	ABINet = 4
	// ABIScoped adds the scoping of signals and abstract unix sockets.
	ABIScoped = 6
	// maxABI is the newest ABI whose access rights Apply handles: V7's. A newer kernel is asked
	// for V7's set (it restricts the same operations; V9's pathname unix sockets and V10's UDP
	// are not handled yet).
	maxABI = 7
)

// Support is what the running kernel offers.
type Support struct {
	// OS is false where this package cannot sandbox at all (not Linux).
	OS bool
	// LandlockABI is the Landlock ABI version (0: none; an ABI ≥ 6 whose signal-scoping
	// erratum is not fixed counts as 5, as go-landlock does).
	LandlockABI int
	// Seccomp reports whether seccomp filters can be installed.
	Seccomp bool
}

// Landlock reports whether Landlock restricts files.
func (s Support) Landlock() bool { return s.LandlockABI >= 1 }

// Net reports whether Landlock restricts TCP bind and connect.
func (s Support) Net() bool { return s.LandlockABI >= ABINet }

// Scoped reports whether Landlock scopes signals and abstract unix sockets.
func (s Support) Scoped() bool { return s.LandlockABI >= ABIScoped }

// Missing names what Require needs and the kernel lacks, tersely ("" when nothing is): Landlock
// (not built in, or not in the lsm= boot list), Landlock's network rules (ABI 4, Linux 6.7),
// seccomp.
func (s Support) Missing() string {
	var m []string
	switch {
	case !s.OS:
		return "Landlock, seccomp (Linux only)"
	case !s.Landlock():
		m = append(m, "Landlock")
	case !s.Net():
		m = append(m, fmt.Sprintf("Landlock network rules (ABI %d < %d)", s.LandlockABI, ABINet))
	}
	if !s.Seccomp {
		m = append(m, "seccomp")
	}
	return strings.Join(m, ", ")
}

// String says what the kernel offers, in one line.
func (s Support) String() string {
	if !s.OS {
		return "no sandbox on this operating system"
	}
	var parts []string
	if s.Landlock() {
		what := "files"
		if s.Net() {
			what += ", TCP ports"
		}
		if s.Scoped() {
			what += ", signals and abstract sockets"
		}
		parts = append(parts, fmt.Sprintf("Landlock ABI %d (%s)", s.LandlockABI, what))
	} else {
		parts = append(parts, "no Landlock")
	}
	if s.Seccomp {
		parts = append(parts, "seccomp")
	} else {
		parts = append(parts, "no seccomp")
	}
	return strings.Join(parts, ", ")
}

// Spec is a sandbox to apply. Paths must be absolute; a path of /proc/self/fd/N names a
// directory this process holds open (one it could not reach by its path).
type Spec struct {
	// Landlock turns the Landlock rules on.
	Landlock bool `json:"landlock,omitempty"`
	// Seccomp turns the seccomp filter on.
	Seccomp bool `json:"seccomp,omitempty"`
	// Require makes Apply fail rather than apply less than asked: Landlock must have network
	// rules (ABI ≥ 4) and is applied at the kernel's ABI exactly, not downgraded.
	Require bool `json:"require,omitempty"`
	// ReadOnly are files and directories (with what is beneath them) the process may read.
	// One that does not exist is left out.
	ReadOnly []string `json:"ro,omitempty"`
	// ReadWrite are directories (or files) the process may read, write, create in and remove
	// from: regular files and directories only (no device, socket, pipe or symbolic link).
	ReadWrite []string `json:"rw,omitempty"`
	// BindTCP are the only TCP ports the process may bind (none: no listener at all, not even
	// on port 0).
	BindTCP []uint16 `json:"bind,omitempty"`
	// ConnectTCP are the only TCP ports the process may connect to, on any address.
	ConnectTCP []uint16 `json:"connect,omitempty"`
}

// Applied is what Apply enforced.
type Applied struct {
	// LandlockABI is the ABI whose rules are enforced (0: no Landlock).
	LandlockABI int
	// Seccomp reports whether the seccomp filter is installed.
	Seccomp bool
}

// String says what is enforced, for a log line.
func (a Applied) String() string {
	if a.LandlockABI == 0 && !a.Seccomp {
		return "no sandbox"
	}
	var parts []string
	if a.LandlockABI > 0 {
		parts = append(parts, fmt.Sprintf("Landlock ABI %d", min(a.LandlockABI, maxABI)))
	}
	if a.Seccomp {
		parts = append(parts, "seccomp")
	}
	return strings.Join(parts, " + ")
}

// ErrUnsupported is returned by Apply, wrapped, when Require asks for what the kernel lacks.
var ErrUnsupported = errors.New("the kernel cannot sandbox this process as required")

// RefusedProgram is the value RefusingEnv gives the variables that name a program: an absolute
// path nothing can ever create (procfs's root takes no new files), with no shell word in it
// (kubectl runs an editor value that contains a space through a shell), which reads as the
// reason when kubectl shows it ("… \"/proc/kubewalk-starts-no-program-here\": …").
const RefusedProgram = "/proc/kubewalk-starts-no-program-here"

// programVars are the environment variables through which a Go program (kubectl) is told which
// program to start for the user.
var programVars = []string{"EDITOR", "KUBE_EDITOR", "VISUAL", "PAGER", "KUBECTL_EXTERNAL_DIFF"}

// RefusingEnv returns NAME=RefusedProgram for every variable that names a program to start
// (EDITOR, KUBE_EDITOR, VISUAL, PAGER, KUBECTL_EXTERNAL_DIFF): `kubectl edit` and `apply
// edit-last-applied` then fail with a message instead of starting vi, and `kubectl diff` (which
// the class allow-list refuses anyway) could not start the diff program the host names.
func RefusingEnv() []string {
	env := make([]string, len(programVars))
	for i, k := range programVars {
		env[i] = k + "=" + RefusedProgram
	}
	return env
}
