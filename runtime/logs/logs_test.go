package logs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDefaultPath(t *testing.T) {
	tests := []struct {
		name, state, home, want string
	}{
		{"xdg state dir", "/state", "/home/x", "/state/kubewalk/kubewalk.log"},
		{"home", "", "/home/x", "/home/x/.local/state/kubewalk/kubewalk.log"},
		{"neither: no temp dir fallback", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", tt.state)
			t.Setenv("HOME", tt.home)
			if got := DefaultPath(); got != tt.want {
				t.Errorf("DefaultPath() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOpenRefuses checks that Open never follows a symlink, never writes into anything but a
// regular file, never hangs on a FIFO, and leaves what it refused untouched.
func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the --log-file path
		want  string
	}{
		{"no default location", func(t *testing.T, dir string) string { return "" }, "neither $XDG_STATE_HOME nor $HOME"},
		{"symlink to a file", func(t *testing.T, dir string) string {
			target := filepath.Join(dir, "precious")
			if err := os.WriteFile(target, []byte("keep me"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, "kubewalk.log")
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "symbolic link"},
		{"dangling symlink", func(t *testing.T, dir string) string {
			link := filepath.Join(dir, "kubewalk.log")
			if err := os.Symlink(filepath.Join(dir, "created-through-link"), link); err != nil {
				t.Fatal(err)
			}
			return link
		}, "symbolic link"},
		{"directory", func(t *testing.T, dir string) string { return dir }, "is a directory"},
		{"fifo without a reader", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not a regular file"},
		{"fifo with a reader", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "fifo")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			return p
		}, "not a regular file"},
		{"device", func(t *testing.T, dir string) string { return os.DevNull }, "not a regular file"},
		{"parent is a file", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "file")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(p, "kubewalk.log")
		}, "--log-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tt.setup(t, dir)
			before := snapshot(t, dir)
			s, err := Open(path, 0, false)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded, want an error containing %q", path, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--log-file") {
				t.Errorf("Open(%q) = %v, want an error naming --log-file and containing %q", path, err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if after := snapshot(t, dir); after != before {
				t.Errorf("Open changed the directory:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestOpenRegularFile checks creation with 0600 and that an old log is emptied and tightened.
func TestOpenRegularFile(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "state", "kubewalk", "kubewalk.log")
	old := filepath.Join(dir, "old.log")
	if err := os.WriteFile(old, []byte("last run's log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(old, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fresh, old} {
		s, err := Open(p, 0, false)
		if err != nil {
			t.Fatalf("Open(%q): %v", p, err)
		}
		if _, err := s.File.WriteString("hello\n"); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, perm)
		}
		if b, _ := os.ReadFile(p); string(b) != "hello\n" {
			t.Errorf("%s: content %q, want only this run's", p, b)
		}
		if !filepath.IsAbs(s.Path) {
			t.Errorf("Sink.Path %q is not absolute", s.Path)
		}
	}
	if fi, err := os.Stat(filepath.Dir(fresh)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("log dir: %v, %v; want 0700", fi.Mode(), err)
	}
}

// snapshot lists dir's entries with their kind, size and mode, and the content of small files.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			b.WriteString(" " + string(c))
		}
		b.WriteString("; ")
		return nil
	})
	return b.String()
}
