package sshclass

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// kubewalkBinary builds the real kubewalk binary once per test process, for the tests that run
// the real tour in each session. KUBEWALK_BENCH_BINARY names another binary to run instead (an
// older build, for a before/after comparison of the tour's side: BenchmarkSessions).
var kubewalkBinary = sync.OnceValues(func() (string, error) {
	if bin := os.Getenv("KUBEWALK_BENCH_BINARY"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("KUBEWALK_BENCH_BINARY: %w", err)
		}
		return bin, nil
	}
	dir, err := os.MkdirTemp("", "kubewalk-sshclass-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "kubewalk")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/kubewalk/kubewalk/cmd/kubewalk").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build kubewalk: %v\n%s", err, out)
	}
	return bin, nil
})

// binDir is removed by TestMain once the tests are done.
var binDir string

func requireBinary(t testing.TB) string {
	t.Helper()
	bin, err := kubewalkBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// tmuxPane is a pane of a private tmux server.
type tmuxPane struct {
	t      testing.TB
	socket string
	name   string
}

func (p tmuxPane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (p tmuxPane) screen() string { return p.run("capture-pane", "-p", "-t", p.name) }

func (p tmuxPane) keys(k ...string) { p.run(append([]string{"send-keys", "-t", p.name}, k...)...) }

// waitFor polls the screen until re matches, within a bound.
func (p tmuxPane) waitFor(re string, within time.Duration) string {
	p.t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.Now().Add(within)
	for {
		s := p.screen()
		if r.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: screen never matched %q within %s; last screen:\n%s", p.name, re, within, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openSSH is the real OpenSSH client set up for a class: a generated key, the class's host key
// as the only known host, no user or system configuration.
type openSSH struct {
	t      testing.TB
	dir    string
	port   int
	key    string // private key file
	socket string // the tmux server's
}

func newOpenSSH(t testing.TB, c *testClass, key string) *openSSH {
	t.Helper()
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Fatalf("the OpenSSH client (ssh) is required for this end-to-end test: %v", err)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is required for this end-to-end test: %v", err)
	}
	o := &openSSH{t: t, dir: c.dir, port: c.srv.Addr().(*net.TCPAddr).Port, key: key,
		socket: fmt.Sprintf("kubewalk-sshclass-%d-%d", os.Getpid(), time.Now().UnixNano())}
	kh := fmt.Sprintf("[127.0.0.1]:%d %s", o.port, gossh.MarshalAuthorizedKey(c.srv.signer.PublicKey()))
	if err := os.WriteFile(filepath.Join(o.dir, "known_hosts"), []byte(kh), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", o.socket, "kill-server").Run() })
	return o
}

// args are ssh's arguments to connect as user with key.
func (o *openSSH) args(user, key string) []string {
	return []string{"-F", "/dev/null", "-p", fmt.Sprint(o.port), "-i", key, "-o", "IdentitiesOnly=yes",
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + filepath.Join(o.dir, "known_hosts"),
		"-o", "SetEnv=LANG=C.UTF-8", user + "@127.0.0.1"}
}

// inTmux runs `ssh -tt` as user in a new w×h tmux window; the exit status goes to rc.
func (o *openSSH) inTmux(user string, w, h int) (p tmuxPane, rc string) {
	o.t.Helper()
	rc = filepath.Join(o.dir, user+".rc")
	quoted := []string{"ssh", "-tt"}
	for _, a := range o.args(user, o.key) {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	script := fmt.Sprintf("%s; echo $? > %s; sleep 600", strings.Join(quoted, " "), rc)
	p = tmuxPane{t: o.t, socket: o.socket, name: user}
	p.run("new-session", "-d", "-s", user, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	return p, rc
}

// sshKeygen generates a key pair with the real ssh-keygen and returns the private key's path.
func sshKeygen(t testing.TB, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	return path
}

// waitRC waits, within a bound, for the exit status a tmux window wrote.
func waitRC(t testing.TB, path string, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within %s", path, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// kubeconfigAddr waits, within a bound, for the session's kubeconfig and returns its server's
// host:port.
func kubeconfigAddr(t testing.TB, dir string, within time.Duration) string {
	t.Helper()
	re := regexp.MustCompile(`server: https://(\S+)`)
	deadline := time.Now().Add(within)
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "kubeconfig")); err == nil {
			if m := re.FindSubmatch(b); m != nil {
				return string(m[1])
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no kubeconfig in %s within %s", dir, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestOpenSSHEndToEnd drives the real kubewalk tour over the real OpenSSH client: two students
// reach serve, each with a server of their own; a third is told the class is full; an unknown
// key is refused; closing one student's connection frees that session's port, processes and
// directory while the other student's server goes on; q ends the other session cleanly and
// progress is kept per user.
func TestOpenSSHEndToEnd(t *testing.T) {
	bin := requireBinary(t)
	c := startClass(t, "", Config{Executable: bin, MaxSessions: 2})
	keyDir := t.TempDir()
	key := sshKeygen(t, keyDir, "student")
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(c.srv.cfg.AuthorizedKeys, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	o := newOpenSSH(t, c, key)

	alice, _ := o.inTmux("alice", 120, 40)
	bob, bobRC := o.inTmux("bob", 120, 40)
	for _, p := range []tmuxPane{alice, bob} {
		p.waitFor(`Welcome to kubewalk`, 2*time.Minute)
		p.keys("Enter")
		p.waitFor(`space next`, bound)
		p.keys("E")
	}
	alice.waitFor(`SERVING`, 2*time.Minute)
	bob.waitFor(`SERVING`, 2*time.Minute)
	ss := c.waitSessions(t, 2, bound)
	as, bs := byUser(t, ss, "alice"), byUser(t, ss, "bob")
	aAddr, bAddr := kubeconfigAddr(t, as.Dir, bound), kubeconfigAddr(t, bs.Dir, bound)
	if aAddr == bAddr {
		t.Fatalf("both sessions on one server %s", aAddr)
	}
	for _, a := range []string{aAddr, bAddr} {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("session server on %s, not loopback", a)
		}
		conn, err := net.DialTimeout("tcp", a, 5*time.Second)
		if err != nil {
			t.Fatalf("session server %s: %v", a, err)
		}
		conn.Close()
	}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		out, err := exec.Command(kubectl, "--kubeconfig", filepath.Join(as.Dir, "kubeconfig"), "get", "ns", "-o", "name").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "namespace/default") {
			t.Errorf("kubectl against alice's server: %v\n%s", err, out)
		}
	}

	full, err := exec.Command("ssh", append([]string{"-tt"}, o.args("carol", key)...)...).CombinedOutput()
	if code := exitStatus(err); code != 1 || !strings.Contains(string(full), "the class is full (2 sessions running)") {
		t.Errorf("third session: exit %d, output:\n%s", code, full)
	}
	stranger := sshKeygen(t, keyDir, "stranger")
	refused, err := exec.Command("ssh", append([]string{"-tt"}, o.args("alice", stranger)...)...).CombinedOutput()
	if code := exitStatus(err); code != 255 || !strings.Contains(string(refused), "Permission denied (publickey)") {
		t.Errorf("unknown key: exit %d, output:\n%s", code, refused)
	}

	closed := time.Now()
	alice.run("kill-session", "-t", "alice") // the ssh client gets SIGHUP: the connection closes
	waitGone(t, as.PID, as.Dir, bound)
	t.Logf("alice's session gone %s after her connection was closed", time.Since(closed).Round(time.Millisecond))
	if conn, err := net.DialTimeout("tcp", aAddr, time.Second); err == nil {
		conn.Close()
		t.Errorf("alice's server %s still accepts connections", aAddr)
	}
	conn, err := net.DialTimeout("tcp", bAddr, 5*time.Second)
	if err != nil {
		t.Fatalf("bob's server went with alice's: %v", err)
	}
	conn.Close()
	bob.waitFor(`SERVING`, bound)

	bob.keys("q")
	if code := waitRC(t, bobRC, bound); code != "0" {
		t.Errorf("bob's ssh exited %s after q", code)
	}
	waitGone(t, bs.PID, bs.Dir, bound)
	for _, u := range []string{"alice", "bob"} {
		p := filepath.Join(c.srv.cfg.StateDir, "users", u, "kubewalk", "progress.json")
		if b, err := os.ReadFile(p); err != nil || !strings.Contains(string(b), "serve") {
			t.Errorf("%s's progress: %v\n%s", u, err, b)
		}
	}
	if !strings.Contains(c.log.String(), "bob: ended (quit), exit status 0") {
		t.Errorf("log:\n%s", c.log)
	}
}

// exitStatus is a finished command's exit status (0 for a nil error, -1 if it did not run).
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
