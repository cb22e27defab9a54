// Package logs sends everything the server libraries print — klog, etcd's zap loggers, the
// storage layer's etcd client logger and anything written to fd 2 — into one log file, so a
// terminal owned by kubewalk only shows what kubewalk means to show.
package logs

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

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

	savedFD int // a dup of the original fd 2, restored by Close; -1 if not redirected
}

// DefaultPath returns $XDG_STATE_HOME/kubewalk/kubewalk.log (~/.local/state/... by default).
func DefaultPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return filepath.Join(os.TempDir(), "kubewalk.log")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "kubewalk", "kubewalk.log")
}

// Open creates (truncates) the log file at path and routes klog into it at verbosity v. When
// redirectStderr is true, fd 2 is pointed at the file too — the storage factory's etcd client
// logger was created in an init() with os.Stderr, and the TLS handshake error log writes there —
// and Sink.Stderr keeps a handle on the real terminal.
func Open(path string, v int, redirectStderr bool) (*Sink, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--log-file %s: %w", path, err)
	}
	s := &Sink{File: f, Stderr: os.Stderr, Path: path, savedFD: -1}
	if err := configureKlog(f, v); err != nil {
		f.Close()
		return nil, err
	}
	if redirectStderr {
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
	}
	return s, nil
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
	if s.savedFD >= 0 {
		_ = unix.Dup2(s.savedFD, int(os.Stderr.Fd()))
		s.Stderr.Close()
		s.Stderr = os.Stderr
		s.savedFD = -1
	}
	return s.File.Close()
}
