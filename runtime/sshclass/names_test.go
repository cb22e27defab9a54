package sshclass

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestNameBoundToKey checks that an SSH user name belongs to the first key that uses it: another
// authorized key asking for it is refused (in the student's language) before any tour starts,
// the owner gets in again, and deleting the claim releases the name.
func TestNameBoundToKey(t *testing.T) {
	c := startClass(t, "tour", Config{})
	other, otherLine := newClientKey(t)
	keys := c.srv.cfg.AuthorizedKeys
	b, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keys, append(b, otherLine...), 0o644); err != nil {
		t.Fatal(err)
	}
	claims := filepath.Join(c.srv.cfg.StateDir, "names")

	session := func(t *testing.T, user string, key gossh.Signer, env map[string]string, quit bool) (code int, out string) {
		t.Helper()
		client, err := c.dial(user, gossh.PublicKeys(key))
		if err != nil {
			t.Fatalf("dial %s: %v", user, err)
		}
		defer client.Close()
		cs := open(t, client, 80, 24, env, "")
		if !quit {
			return cs.wait(t, bound), cs.out.String()
		}
		cs.waitOutput(t, "ready", bound)
		cs.in.Write([]byte("q"))
		cs.waitOutput(t, "bye", bound)
		return cs.wait(t, bound), cs.out.String()
	}

	steps := []struct {
		name      string
		user      string
		key       gossh.Signer
		env       map[string]string
		quit      bool // the tour starts: quit it
		wantCode  int
		wantOut   string
		wantClaim string // the fingerprint claims/user must hold afterwards
	}{
		{"first key claims ada", "ada", c.key, nil, true, 0, "bye", gossh.FingerprintSHA256(c.key.PublicKey())},
		{"another key is refused ada", "ada", other, nil, false, 1, `the name "ada" belongs to another student's key`, gossh.FingerprintSHA256(c.key.PublicKey())},
		{"refused in Chinese too", "ada", other, map[string]string{"LANG": "zh_CN.UTF-8"}, false, 1, `用户名 "ada" 已属于另一位学员的密钥`, gossh.FingerprintSHA256(c.key.PublicKey())},
		{"the owner gets in again", "ada", c.key, nil, true, 0, "bye", gossh.FingerprintSHA256(c.key.PublicKey())},
		{"the other key has its own name", "grace", other, nil, true, 0, "bye", gossh.FingerprintSHA256(other.PublicKey())},
		{"one key may use several names", "ada2", c.key, nil, true, 0, "bye", gossh.FingerprintSHA256(c.key.PublicKey())},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			code, out := session(t, st.user, st.key, st.env, st.quit)
			if code != st.wantCode || !strings.Contains(out, st.wantOut) {
				t.Fatalf("exit status %d, output %q; want %d and %q", code, out, st.wantCode, st.wantOut)
			}
			if st.wantCode != 0 && strings.Contains(out, "fake tour") {
				t.Errorf("a tour started for a refused name: %q", out)
			}
			path := filepath.Join(claims, st.user)
			got, err := os.ReadFile(path)
			if err != nil || strings.TrimSpace(string(got)) != st.wantClaim {
				t.Errorf("claim %s = %q, %v; want %s", path, got, err, st.wantClaim)
			}
			if fi, err := os.Stat(path); err == nil && fi.Mode().Perm() != 0o600 {
				t.Errorf("claim %s mode %v, want 0600", path, fi.Mode().Perm())
			}
		})
	}
	if !strings.Contains(c.log.String(), "refused ada@127.0.0.1") || !strings.Contains(c.log.String(), gossh.FingerprintSHA256(other.PublicKey())) {
		t.Errorf("refusal not logged with the key's fingerprint:\n%s", c.log)
	}
	// The instructor releases the name: the other key may now take it.
	if err := os.Remove(filepath.Join(claims, "ada")); err != nil {
		t.Fatal(err)
	}
	if code, out := session(t, "ada", other, nil, true); code != 0 {
		t.Fatalf("released name still refused: %d %q", code, out)
	}
	if left, _ := filepath.Glob(filepath.Join(claims, ".claim-*")); len(left) > 0 {
		t.Errorf("temporary claim files left: %v", left)
	}
}

// TestNameClaimRace has many keys claim one name at once: exactly one wins, and every loser is
// told the name is taken.
func TestNameClaimRace(t *testing.T) {
	n := &nameClaims{dir: t.TempDir()}
	const racers = 16
	keys := make([]gossh.PublicKey, racers)
	for i := range keys {
		s, _ := newClientKey(t)
		keys[i] = s.PublicKey()
	}
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = n.claim("ada", keys[i]) }()
	}
	wg.Wait()
	winners := 0
	for i, err := range errs {
		switch {
		case err == nil:
			winners++
			got, _ := os.ReadFile(filepath.Join(n.dir, "ada"))
			if strings.TrimSpace(string(got)) != gossh.FingerprintSHA256(keys[i]) {
				t.Errorf("winner %d, but the claim holds %q", i, got)
			}
			if err := n.claim("ada", keys[i]); err != nil {
				t.Errorf("the winner's second claim: %v", err)
			}
		case !errors.Is(err, errNameTaken):
			t.Errorf("racer %d: %v", i, err)
		}
	}
	if winners != 1 {
		t.Errorf("%d winners, want 1", winners)
	}
}

// TestPasswordClassHasNoClaims: with a class password there is no key to bind a name to, and no
// claims directory is made.
func TestPasswordClassHasNoClaims(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte("correct horse battery\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startClass(t, "tour", Config{PasswordFile: pw})
	if c.srv.claims != nil {
		t.Fatal("claims set for a password class")
	}
	if _, err := os.Stat(filepath.Join(c.srv.cfg.StateDir, "names")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("names dir for a password class: %v", err)
	}
}
