package sshclass

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	gossh "golang.org/x/crypto/ssh"
)

// LoadOrCreateHostKey returns the SSH host key kept at path, which wish generates there (an
// Ed25519 key, mode 0600, with its public half in path.pub) the first time. A class keeps its
// host key across restarts so that students' ssh clients, which remember it, do not warn about a
// changed host key. The checks are hostKeyOption's.
func LoadOrCreateHostKey(path string) (gossh.Signer, error) {
	opt, err := hostKeyOption(path)
	if err != nil {
		return nil, err
	}
	var srv ssh.Server
	if err := srv.SetOption(opt); err != nil {
		return nil, err
	}
	return srv.HostSigners[0], nil
}

// hostKeyOption checks the host key at path and returns the option that gives it to the server:
// wish.WithHostKeyPath, which generates the key through github.com/charmbracelet/keygen when
// the file does not exist and loads it.
//
// A key file that is not a regular file, that belongs to another user, or that others may read
// (any group or other permission bit) is refused with an error that says how to fix it: the host
// key is what lets students tell this server from an impostor on the classroom network. Two of
// keygen's habits are dealt with here rather than let them surprise: it expands $VARIABLES
// in the path (so a path with a '$' would be written to one file and read from another) —
// refused —, and it sets an existing directory it writes a key into to mode 0700 — undone
// right after, so that generating a key in, say, the current directory changes nothing else.
func hostKeyOption(path string) (ssh.Option, error) {
	if path == "" {
		return nil, errors.New("--host-key: no path (set XDG_STATE_HOME or HOME, or pass --host-key FILE)")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("--host-key %s: %w", path, err)
	}
	if strings.Contains(abs, "$") {
		return nil, fmt.Errorf("--host-key %s: a path with '$' in it is not supported (the key generator expands it as a variable)", abs)
	}
	b, err := readSecretFile(abs, "--host-key")
	switch {
	case err == nil:
		if _, err := gossh.ParsePrivateKey(b); err != nil {
			return nil, fmt.Errorf("--host-key %s: not an unencrypted SSH private key: %w", abs, err)
		}
		return wish.WithHostKeyPath(abs), nil // it exists: wish only loads it
	case !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	dir := filepath.Dir(abs)
	before, statErr := os.Stat(dir)
	generated := wish.WithHostKeyPath(abs) // generates the key now; an error is the option's
	if statErr == nil && before.IsDir() && before.Mode().Perm() != 0o700 {
		// keygen made the directory 0700: give it back its mode.
		if err := os.Chmod(dir, before.Mode().Perm()); err != nil {
			return nil, fmt.Errorf("--host-key %s: restore the mode %#o of its directory: %w", abs, before.Mode().Perm(), err)
		}
	}
	return func(srv *ssh.Server) error {
		if err := generated(srv); err != nil {
			return fmt.Errorf("--host-key %s: generate: %w", abs, err)
		}
		_, err := readSecretFile(abs, "--host-key") // what keygen wrote must pass the same checks
		return err
	}, nil
}

// readSecretFile reads a file that must stay private: a regular file of the current user that
// neither its group nor others may read or write. flag names the option in errors.
func readSecretFile(path, flag string) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s %s: %w", flag, path, os.ErrNotExist)
		}
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file (%s)", flag, path, fi.Mode().Type())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return nil, fmt.Errorf("%s %s: belongs to uid %d, not to this user (uid %d)", flag, path, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if systemFile(path) {
			return nil, fmt.Errorf("%s %s: a system file others may read (mode %#o) is no place for a secret; put it in a file of your own that only you can read (install -m 600 /dev/null FILE, then write it there)", flag, path, fi.Mode().Perm())
		}
		return nil, fmt.Errorf("%s %s: mode %#o lets others read it; run chmod 600 %s", flag, path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return b, nil
}

// systemFile reports whether path lies in one of the system's own directories, where changing a
// file's mode to hide a secret would break the system (chmod 600 /etc/passwd) and is never the
// advice to give.
func systemFile(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if strings.HasPrefix(abs, "/var/tmp/") {
		return false
	}
	for _, dir := range []string{"/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/opt", "/srv", "/var", "/proc", "/sys", "/dev"} {
		if abs == dir || strings.HasPrefix(abs, dir+"/") {
			return true
		}
	}
	return false
}
