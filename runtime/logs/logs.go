// Package logs sends everything the server libraries print — klog, etcd's zap loggers, the
// storage layer's etcd client logger and anything written to fd 2 — into one log file, so a
// terminal owned by kubewalk only shows what kubewalk means to show.
package logs

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
	"k8s.io/klog/v2"
)

// Sink is the open log file plus the terminal's original stderr.
type Sink struct {
	// File receives all library logs.
	File *os.File
	// Stderr is the terminal's stderr, still usable after fd 2 was redirected.
	Stderr *os.File
	// Path is the log file's path.
	Path string

	savedFD     int  // a dup of the original fd 2, restored by Close; -1 if not redirected
	crashOutput bool // the file is the runtime's crash output, undone by Close
}

// DefaultPath returns $XDG_STATE_HOME/kubewalk/kubewalk.log, else
// ~/.local/state/kubewalk/kubewalk.log; "" when neither $XDG_STATE_HOME nor the home directory
// is known (Open then asks for --log-file). There is deliberately no fallback in the shared
// temp dir, where another user could plant the file or a symlink first.
func DefaultPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "kubewalk", "kubewalk.log")
}

// Open empties (or creates, 0600) the log file at path and routes klog into it at verbosity v.
// The file must be a regular file of the current user: a symlink, a directory, a device or a
// FIFO is refused with an error naming --log-file.
//
// When redirectStderr is true, fd 2 is pointed at the file too — the storage factory's etcd
// client logger was created in an init() with os.Stderr, and the TLS handshake error log writes
// there — and Sink.Stderr keeps a handle on the real terminal; a Go crash trace (written to fd 2)
// then lands in the file. Otherwise the crash trace goes to the file as well as to fd 2.
func Open(path string, v int, redirectStderr bool) (*Sink, error) {
	if path == "" {
		return nil, errors.New("--log-file: no default location, as neither $XDG_STATE_HOME nor $HOME is set; pass --log-file PATH")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	s := &Sink{File: f, Stderr: os.Stderr, Path: path, savedFD: -1}
	if abs, err := filepath.Abs(path); err == nil {
		s.Path = abs
	}
	if err := configureKlog(f, v); err != nil {
		f.Close()
		return nil, err
	}
	if !redirectStderr {
		if err := debug.SetCrashOutput(f, debug.CrashOptions{}); err != nil {
			f.Close()
			return nil, fmt.Errorf("--log-file %s: send crash output there: %w", path, err)
		}
		s.crashOutput = true
		return s, nil
	}
	saved, err := unix.Dup(int(os.Stderr.Fd()))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--log-file: keep stderr: %w", err)
	}
	if err := unix.Dup2(int(f.Fd()), int(os.Stderr.Fd())); err != nil {
		unix.Close(saved)
		f.Close()
		return nil, fmt.Errorf("--log-file: redirect stderr: %w", err)
	}
	s.savedFD = saved
	s.Stderr = os.NewFile(uintptr(saved), "/dev/stderr")
	return s, nil
}

// openFile opens path for writing without following a symlink in its last element — O_NONBLOCK
// so that a FIFO without a reader fails instead of hanging — checks that it is a regular file
// owned by the current user, then empties it and sets its mode to 0600.
func openFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0o600)
	switch {
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("--log-file %s: is a symbolic link, which kubewalk does not follow; pass the path of a regular file", path)
	case errors.Is(err, unix.ENXIO):
		return nil, fmt.Errorf("--log-file %s: not a regular file", path)
	case errors.Is(err, unix.EISDIR):
		return nil, fmt.Errorf("--log-file %s: is a directory; pass a file path", path)
	case err != nil:
		return nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("--log-file %s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		f.Close()
		return nil, fmt.Errorf("--log-file %s: owned by another user (uid %d)", path, st.Uid)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("--log-file %s: empty it: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	return f, nil
}

// configureKlog points klog at w only, with verbosity v. klog's settings are process-global;
// this is the one place kubewalk sets them.
func configureKlog(w io.Writer, v int) error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{
		"logtostderr":     "false",
		"alsologtostderr": "false",
		"stderrthreshold": "FATAL",
		"one_output":      "true",
		"v":               strconv.Itoa(v),
	} {
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("klog flag %s: %w", name, err)
		}
	}
	klog.SetOutput(w)
	return nil
}

// Close flushes klog, puts fd 2 back on the terminal and closes the file.
func (s *Sink) Close() error {
	klog.Flush()
	if s.crashOutput {
		_ = debug.SetCrashOutput(nil, debug.CrashOptions{})
		s.crashOutput = false
	}
	if s.savedFD >= 0 {
		_ = unix.Dup2(s.savedFD, int(os.Stderr.Fd()))
		s.Stderr.Close()
		s.Stderr = os.Stderr
		s.savedFD = -1
	}
	return s.File.Close()
}
