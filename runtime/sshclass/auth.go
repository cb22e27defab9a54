package sshclass

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// authorizedKeys is the set of public keys allowed in, read from an OpenSSH authorized_keys
// file. The file is read again when its size or modification time changes, so an instructor can
// add a latecomer's key during the class; a file that no longer parses keeps the previous keys
// (and the error is reported once).
type authorizedKeys struct {
	path string
	warn func(string) // reports a reload that failed

	mu      sync.Mutex
	keys    [][]byte // each key's wire encoding
	size    int64
	modTime time.Time
	lastErr string
}

// loadAuthorizedKeys reads path; an unreadable file, a line that does not parse (named by its
// number) or a file without any key is an error.
func loadAuthorizedKeys(path string, warn func(string)) (*authorizedKeys, error) {
	a := &authorizedKeys{path: path, warn: warn}
	if err := a.reload(); err != nil {
		return nil, err
	}
	return a, nil
}

// reload reads the file again if it changed since the last read.
func (a *authorizedKeys) reload() error {
	fi, err := os.Stat(a.path)
	if err != nil {
		return fmt.Errorf("--authorized-keys: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("--authorized-keys %s: not a regular file", a.path)
	}
	if a.keys != nil && fi.Size() == a.size && fi.ModTime().Equal(a.modTime) {
		return nil
	}
	b, err := os.ReadFile(a.path)
	if err != nil {
		return fmt.Errorf("--authorized-keys: %w", err)
	}
	keys, err := parseAuthorizedKeys(b)
	if err != nil {
		return fmt.Errorf("--authorized-keys %s: %w", a.path, err)
	}
	a.keys, a.size, a.modTime = keys, fi.Size(), fi.ModTime()
	return nil
}

// parseAuthorizedKeys returns the keys of an authorized_keys file. Options before a key
// (command=, from=, restrict, ...) are accepted and ignored: every session runs the tour only.
func parseAuthorizedKeys(b []byte) ([][]byte, error) {
	var keys [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, _, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		keys = append(keys, k.Marshal())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, errors.New("no public keys in it (one OpenSSH public key a line, as in ~/.ssh/authorized_keys)")
	}
	return keys, nil
}

// allowed reports whether key is one of the authorized keys, reading the file again first if it
// changed.
func (a *authorizedKeys) allowed(key gossh.PublicKey) bool {
	a.mu.Lock()
	if err := a.reload(); err != nil {
		if msg := err.Error(); msg != a.lastErr {
			a.lastErr = msg
			a.warn("keeping the previous keys: " + msg)
		}
	} else {
		a.lastErr = ""
	}
	keys := a.keys
	a.mu.Unlock()
	want := key.Marshal()
	found := 0
	for _, k := range keys {
		found |= subtle.ConstantTimeCompare(k, want)
	}
	return found == 1
}

// minPasswordLen is the shortest class password accepted.
const minPasswordLen = 8

// password is the class password, read from a private file; only its hash is kept.
type password struct {
	sum [sha256.Size]byte
}

// loadPassword reads the password from the first line of path, a private file (see
// readSecretFile): the password is a secret shared by the class and must not be readable by
// other users of the instructor's machine.
func loadPassword(path string) (*password, error) {
	b, err := readSecretFile(path, "--password-file")
	if err != nil {
		return nil, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	if len(line) < minPasswordLen {
		return nil, fmt.Errorf("--password-file %s: the password on its first line must be at least %d characters", path, minPasswordLen)
	}
	return &password{sum: sha256.Sum256(line)}, nil
}

// matches compares in constant time.
func (p *password) matches(given string) bool {
	sum := sha256.Sum256([]byte(given))
	return subtle.ConstantTimeCompare(sum[:], p.sum[:]) == 1
}

// nameClaims binds SSH user names to public keys, first come first served: the first key that
// connects as a name owns it for the class (its progress, its line on the board), and another
// key asking for that name is refused. Each claim is a file STATE/names/NAME holding the key's
// SHA256 fingerprint, written whole to a temporary file and then hard-linked into place, which
// fails if the name exists: two first connections cannot both win, and a crash never leaves a
// half-written claim. An instructor releases a name by deleting its file. With a class password
// there is no key to bind a name to: see docs/classroom.md.
type nameClaims struct {
	dir string
}

// errNameTaken is claim's answer when another key owns the name.
var errNameTaken = errors.New("the name belongs to another key")

// claim binds name to key if nobody has it yet; it fails with errNameTaken if another key owns
// it. name is a name key (see nameKey): it names a file.
func (n *nameClaims) claim(name string, key gossh.PublicKey) error {
	want := gossh.FingerprintSHA256(key)
	if err := adoptLegacy(n.dir, name); err != nil {
		return err
	}
	path := filepath.Join(n.dir, name)
	for range 3 {
		b, err := os.ReadFile(path)
		if err == nil {
			if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(string(b))), []byte(want)) != 1 {
				return errNameTaken
			}
			return nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("user name %q: read its claim: %w", name, err)
		}
		err = n.create(path, want)
		if err == nil || !errors.Is(err, os.ErrExist) {
			return err
		}
		// Another connection claimed it meanwhile: read whose it is.
	}
	return errNameTaken
}

// create writes the claim for fingerprint at path unless path exists (os.ErrExist).
func (n *nameClaims) create(path, fingerprint string) error {
	f, err := os.CreateTemp(n.dir, ".claim-*")
	if err != nil {
		return fmt.Errorf("user name claim: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = f.WriteString(fingerprint + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("user name claim: %w", err)
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return fmt.Errorf("user name claim: %w", err)
	}
	return nil
}
