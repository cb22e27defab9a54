package sshclass

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	gossh "golang.org/x/crypto/ssh"
)

// LoadOrCreateHostKey returns the SSH host key kept at path, generating an Ed25519 key there
// (mode 0600, its directory 0700) the first time. A class keeps its host key across restarts so
// that students' ssh clients, which remember it, do not warn about a changed host key.
//
// A key file that is not a regular file, that belongs to another user, or that others may read
// (any group or other permission bit) is refused with an error that says how to fix it: the host
// key is what lets students tell this server from an impostor on the classroom network.
func LoadOrCreateHostKey(path string) (gossh.Signer, error) {
	if path == "" {
		return nil, errors.New("--host-key: no path (set XDG_STATE_HOME or HOME, or pass --host-key FILE)")
	}
	b, err := readSecretFile(path, "--host-key")
	if errors.Is(err, os.ErrNotExist) {
		return createHostKey(path)
	}
	if err != nil {
		return nil, err
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("--host-key %s: not an unencrypted SSH private key: %w", path, err)
	}
	return signer, nil
}

// createHostKey writes a new Ed25519 key to path, failing if a file appeared there meanwhile.
func createHostKey(path string) (gossh.Signer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("--host-key: create its directory: %w", err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("--host-key: generate: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "kubewalk class ssh host key")
	if err != nil {
		return nil, fmt.Errorf("--host-key: encode: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--host-key: create %s: %w", path, err)
	}
	if _, err := f.Write(pem.EncodeToMemory(block)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("--host-key: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("--host-key: write %s: %w", path, err)
	}
	return gossh.NewSignerFromKey(priv)
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
		return nil, fmt.Errorf("%s %s: mode %#o lets others read it; run chmod 600 %s", flag, path, fi.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return b, nil
}
