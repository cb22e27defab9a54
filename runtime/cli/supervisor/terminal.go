package supervisor

import (
	"os"
	"syscall"
	"unsafe"
)

// TerminalState is the terminal as kubewalk found it. (The ioctls are made here rather than
// through golang.org/x/term, whose dependencies Go initialises later: see the package doc.)
type TerminalState struct {
	in  *syscall.Termios // stdin's termios; nil when stdin is not a terminal
	out *os.File         // stdout, when it is a terminal
}

// SaveTerminal records stdin's terminal settings and whether stdout is a terminal.
func SaveTerminal() *TerminalState {
	t := &TerminalState{}
	if st, err := getTermios(int(os.Stdin.Fd())); err == nil {
		t.in = st
	}
	if _, err := getTermios(int(os.Stdout.Fd())); err == nil {
		t.out = os.Stdout
	}
	return t
}

// leaveScreen turns off what bubbletea turns on — mouse reporting (1000, 1002, 1003, SGR 1006),
// focus reporting, bracketed paste — leaves the alternate screen and shows the cursor.
const leaveScreen = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[?1049l\x1b[?25h"

// Restore puts the saved termios back and, if screen is set, the screen modes — only while this
// process group is the terminal's foreground (a background job must not touch the terminal). A
// nil *TerminalState does nothing.
func (t *TerminalState) Restore(screen bool) {
	if t == nil {
		return
	}
	if t.in != nil && foreground(int(os.Stdin.Fd())) {
		_ = setTermios(int(os.Stdin.Fd()), t.in)
	}
	if screen && t.out != nil && foreground(int(t.out.Fd())) {
		_, _ = t.out.WriteString(leaveScreen)
	}
}

// foreground reports whether fd is a terminal whose foreground process group is ours.
func foreground(fd int) bool {
	var pgrp int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); e != 0 {
		return false
	}
	return int(pgrp) == syscall.Getpgrp()
}

func getTermios(fd int) (*syscall.Termios, error) {
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return nil, e
	}
	return &t, nil
}

func setTermios(fd int, t *syscall.Termios) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCSETS, uintptr(unsafe.Pointer(t))); e != 0 {
		return e
	}
	return nil
}
