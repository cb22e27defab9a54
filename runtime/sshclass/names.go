package sshclass

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/ssh"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// maxNameRunes bounds a user name.
const maxNameRunes = 32

// nameKey turns the SSH user name a student connected as into the key their progress directory
// and their name claim are filed under, or says why it cannot be one. A name is 1–32 letters
// and digits of any script, '.', '_' and '-', starting with a letter, digit or '_' (so it never
// names "." or ".."). The key is the name in Unicode NFKC with its case folded: `ANA`, `Ana` and
// `ana` are one student, and so are `STRASSE` and `straße`, as they would be to a person
// reading the board.
func nameKey(name string) (string, bool) {
	if !utf8.ValidString(name) {
		return "", false
	}
	n := norm.NFKC.String(name)
	count := 0
	for i, r := range n {
		count++
		ok := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' ||
			(i > 0 && (r == '.' || r == '-' || unicode.Is(unicode.M, r)))
		if !ok {
			return "", false
		}
	}
	if count == 0 || count > maxNameRunes {
		return "", false
	}
	key := norm.NFKC.String(cases.Fold().String(n))
	if key == "" || key[0] == '.' {
		return "", false
	}
	return key, true
}

// userKey is where checkUser leaves a session's name key in its context.
type userKey struct{}

// sessionKey returns the key checkUser filed the session under.
func sessionKey(sess ssh.Session) string {
	if k, ok := sess.Context().Value(userKey{}).(string); ok {
		return k
	}
	k, _ := nameKey(sess.User())
	return k
}

// adoptLegacy renames dir/OLD to dir/key when dir/key does not exist yet and exactly one entry
// OLD of dir has the same key: before names were folded, `ANA` and `ana` were kept apart, and a
// student who connected as `ANA` then keeps their progress (and claim). Two such entries are
// left alone (and the first connection starts afresh under the key), since merging two
// students' progress could give one the other's.
func adoptLegacy(dir, key string) error {
	want := filepath.Join(dir, key)
	if _, err := os.Lstat(want); err == nil || !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("user name %q: %w", key, err)
	}
	var found []string
	for _, e := range ents {
		if k, ok := nameKey(e.Name()); ok && k == key && e.Name() != key {
			found = append(found, e.Name())
		}
	}
	if len(found) != 1 {
		return nil
	}
	if err := os.Rename(filepath.Join(dir, found[0]), want); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("user name %q: adopt %s: %w", key, found[0], err)
	}
	return nil
}
