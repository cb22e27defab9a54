package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// TestRootWarning: class ssh and class host warn when run as uid 0, in English and Chinese,
// saying what runs as root and what to do; not as another user, and not for other commands.
func TestRootWarning(t *testing.T) {
	for _, tc := range []struct {
		uid        int
		lang, what string
		want       []string
	}{
		{0, "en", "ssh", []string{"kubewalk: WARNING: running as root.", "every student's tour runs as the --run-as user (nobody by default), sandboxed", "dedicated unprivileged account"}},
		{0, "en", "host", []string{"kubewalk: WARNING: running as root.", "class endpoint", "ordinary user"}},
		{0, "zh-CN", "ssh", []string{"kubewalk: 警告：正在以 root 身份运行", "专门的非特权账户"}},
		{0, "zh-CN", "host", []string{"kubewalk: 警告：正在以 root 身份运行", "普通用户"}},
		{1000, "en", "ssh", nil},
		{1000, "en", "host", nil},
		{0, "en", "tour", nil},
	} {
		var b bytes.Buffer
		warned := rootWarning(tc.uid, &b, i18n.For(tc.lang), tc.what)
		if warned != (tc.want != nil) || (b.Len() > 0) != warned {
			t.Errorf("uid %d %s %s: warned %v, wrote %q", tc.uid, tc.lang, tc.what, warned, b.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("uid %d %s %s: %q lacks %q", tc.uid, tc.lang, tc.what, b.String(), w)
			}
		}
		if warned && strings.Count(b.String(), "\n") != 1 {
			t.Errorf("not one line: %q", b.String())
		}
	}
}

// TestRootWarningAtStart: the command line warns on stderr before anything else happens (here
// a bad flag stops class host and class ssh), when this test runs as root, and keeps going.
func TestRootWarningAtStart(t *testing.T) {
	setLocale(t, "en_US.UTF-8")
	for _, args := range [][]string{
		{"class", "host", "--bind-address", "nope"},
		{"class", "ssh", "--max-sessions", "0"},
	} {
		code, stdout, stderr := run(t, args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1 (the bad flag)", args, code)
		}
		warned := strings.Contains(stderr, "kubewalk: WARNING: running as root.")
		if root := os.Geteuid() == 0; warned != root {
			t.Errorf("%v as uid %d: warned %v; stderr %q, stdout %q", args, os.Geteuid(), warned, stderr, stdout)
		}
		if !strings.HasSuffix(stderr, "\n") || !strings.Contains(stderr, "kubewalk: ") {
			t.Errorf("%v: stderr %q", args, stderr)
		}
	}
	if _, _, stderr := run(t, "tour", "--bind-address", "nope"); strings.Contains(stderr, "WARNING") {
		t.Errorf("tour warned: %q", stderr)
	}
	if !sameFile(os.Stdout, os.Stdout) || sameFile(&bytes.Buffer{}, &bytes.Buffer{}) {
		t.Error("sameFile")
	}
}

func TestCutLongWords(t *testing.T) {
	long := strings.Repeat("A", 100<<10)
	cases := []struct{ in, want string }{
		{"short message", "short message"},
		{"--code " + long + ": has 102400 symbols, want 22", "--code " + strings.Repeat("A", 40) + "… (102401 bytes) has 102400 symbols, want 22"},
		{`invalid argument "` + long + `" for "--max-sessions"`, `invalid argument "` + strings.Repeat("A", 39) + `… (102402 bytes) for "--max-sessions"`},
		{strings.Repeat("李", 100) + " 错", strings.Repeat("李", 40) + "… (300 bytes) 错"},
	}
	for _, tc := range cases {
		if got := cutLongWords(tc.in); got != tc.want {
			t.Errorf("cutLongWords(%.60q…) = %.200q, want %.200q", tc.in, got, tc.want)
		}
	}
}

// TestLongCodeNotEchoed: a 100 KB --code is not echoed back whole.
func TestLongCodeNotEchoed(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Execute(context.Background(), []string{"class", "ssh", "--authorized-keys", "/nonexistent", "--follow", "127.0.0.1:1", "--code", strings.Repeat("Q", 100<<10)}, &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %.300q", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	last := lines[len(lines)-1]
	if len(last) > 300 || !strings.Contains(last, "--code") || !strings.Contains(last, "(102402 bytes)") {
		t.Errorf("the error (%d bytes): %.400q", len(last), last)
	}
}
