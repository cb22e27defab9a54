package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClassSSHSandboxFlags: --sandbox and --run-as refuse bad values with one line that names
// the flag, and leave nothing running; accepted, the banner says how the tours are confined
// (which layers, the user they run as) and says nothing on stderr about a missing sandbox on a
// kernel that has it all.
func TestClassSSHSandboxFlags(t *testing.T) {
	files := t.TempDir()
	key := filepath.Join(files, "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	root := os.Geteuid() == 0
	bad := []struct {
		name string
		args []string
		want string
	}{
		{"sandbox value", []string{"--sandbox", "on"}, `--sandbox "on": want auto (use what the kernel offers), require`},
		{"unknown user", []string{"--run-as", "no-such-user-kubewalk"}, "--run-as no-such-user-kubewalk: user: unknown user no-such-user-kubewalk"},
		{"root", []string{"--run-as", "root"}, "--run-as root: the students' tours must not run as root"},
		{"root by id", []string{"--run-as", "0"}, "--run-as root: the students' tours must not run as root"},
	}
	if !root {
		bad = append(bad, struct {
			name string
			args []string
			want string
		}{"another user without root", []string{"--run-as", "nobody"}, "--run-as nobody: only root can run the tours as another user"})
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := append([]string{"class", "ssh", "--listen", "127.0.0.1:0", "--authorized-keys", key + ".pub"}, tt.args...)
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Env = sb.env()
			var stdout, stderr syncBuffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if err == nil {
				t.Fatalf("accepted:\n%s%s", stdout.String(), stderr.String())
			}
			msg := strings.TrimPrefix(strings.TrimSpace(stderr.String()), "")
			lines := strings.Split(msg, "\n")
			last := lines[len(lines)-1] // a root warning may come first
			if !strings.Contains(last, tt.want) || strings.Contains(stdout.String(), "listening") {
				t.Errorf("want one line with %q; stdout:\n%s\nstderr:\n%s", tt.want, stdout.String(), stderr.String())
			}
			sb.assertNothingLeft(t)
		})
	}
	for _, tt := range []struct {
		name string
		args []string
		want []string
	}{
		{"default", nil, []string{"  sandbox     kubectl guard, no programs (seccomp), own files and ports (Landlock ABI "}},
		{"require", []string{"--sandbox", "require"}, []string{"  sandbox     kubectl guard, no programs (seccomp), own files and ports (Landlock ABI "}},
		{"off", []string{"--sandbox", "off"}, []string{"  sandbox     kubectl guard, no editor or exec plugin\n", "--sandbox off: no Landlock, no seccomp"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			args := append([]string{"class", "ssh", "--listen", "127.0.0.1:0", "--authorized-keys", key + ".pub", "--warm", "0"}, tt.args...)
			r := startRun(t, sb, nil, args...)
			r.waitOutput(t, "Ctrl-C stops the class", time.Minute)
			out := r.out.String()
			want := tt.want
			if root {
				want = append(want, "  run as      every tour runs as nobody (--run-as), with no supplementary group")
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("banner lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(out, "--sandbox auto: this kernel has no") {
				t.Errorf("says the sandbox is missing on a kernel that has it:\n%s", out)
			}
			r.cmd.Process.Signal(syscall.SIGINT)
			if code, _ := r.wait(t, time.Minute); code != 0 {
				t.Errorf("exit %d after SIGINT:\n%s", code, out)
			}
			sb.assertNothingLeft(t)
		})
	}
}
