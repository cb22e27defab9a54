package main_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server"
)

// TestClassSSHFollowInTmux runs `class ssh --follow` for real: an instructor's `class host` in
// tmux, a `class ssh` that follows it, and two students who connect with the real OpenSSH
// client, each in a tmux of their own. The students appear on the board under their SSH user
// names, their servers follow the instructor to authz/rbac, a stuck flag reaches the board and
// a message reaches them. One student closes their terminal: their session's processes, port
// and directory are gone and the board shows them offline. The instructor quits: the other
// student's session stays, says the class has ended, and their tour goes on. Then the class ssh
// stops: the student sees a goodbye screen (the class has ended, the name their progress is
// saved under, a countdown); a key closes it and the connection.
func TestClassSSHFollowInTmux(t *testing.T) {
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the OpenSSH client (%s) is required for this end-to-end test: %v", tool, err)
		}
	}

	// The instructor.
	hostSB := newSandbox(t)
	host, hostRC, _ := startTmux(t, hostSB, 120, 40, nil, "class", "host", "--listen", "127.0.0.1:0", "--name", "ssh walk",
		"--lang", "en", "--log-file", hostSB.log)
	s := host.waitFor(`JOIN: kubewalk join \S+ --code \S+`, time.Minute)
	m := regexp.MustCompile(`JOIN: kubewalk join (\S+) --code (\S+)`).FindStringSubmatch(s)
	addr, code := m[1], m[2]
	host.waitFor(`Welcome to kubewalk`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "Enter")
	host.waitFor(`space next`, 10*time.Second)

	// The SSH class host, following the instructor.
	classSB := newSandbox(t)
	key := filepath.Join(classSB.root, "id")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	class := startRun(t, classSB, nil, "class", "ssh", "--listen", "127.0.0.1:0", "--authorized-keys", key+".pub",
		"--follow", addr, "--code", code)
	stopClass := func() {
		select {
		case <-class.done:
			return
		default:
		}
		class.cmd.Process.Signal(syscall.SIGINT)
		if code, _ := class.wait(t, time.Minute); code != 0 {
			t.Errorf("class ssh exited %d after SIGINT:\n%s", code, class.out)
		}
	}
	t.Cleanup(stopClass) // before startRun's SIGKILL: the sessions' tours are not in its sandbox
	class.waitOutput(t, "Ctrl-C stops the class", time.Minute)
	pm := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(class.out.String())
	if pm == nil || !strings.Contains(class.out.String(), "every session joins the class at "+addr) {
		t.Fatalf("banner:\n%s", class.out)
	}
	port := pm[1]
	t.Cleanup(func() { // a failure shows one screen: show the instructor's and the class's too
		if t.Failed() {
			screen, _ := exec.Command("tmux", "-L", host.socket, "capture-pane", "-p", "-t", "kw").CombinedOutput()
			t.Logf("instructor's screen:\n%s\nclass ssh:\n%s", screen, class.out)
		}
	})

	// Two students connect with ssh -t from terminals of their own.
	type sshStudent struct {
		sb   *sandbox
		m    tmux
		rc   string
		pid  int    // the session's kubewalk join (its process group)
		dir  string // the session's temp dir
		name string
	}
	students := map[string]*sshStudent{}
	for _, name := range []string{"ada", "grace"} {
		st := &sshStudent{sb: newSandbox(t), name: name}
		st.m, st.rc = startSSHTmux(t, st.sb, 100, 30, port, key, name)
		students[name] = st
	}
	for _, name := range []string{"ada", "grace"} {
		st := students[name]
		sm := waitOutputMatch(t, class, `session \d+ `+name+` from \S+: started \(pid (\d+), [a-z ]+, dir ([^)\s]+)\)`, time.Minute)
		st.pid, _ = strconv.Atoi(sm[1])
		st.dir = sm[2]
		t.Cleanup(func() { // a failed test's tours: their process groups
			if alive(st.pid) {
				syscall.Kill(-st.pid, syscall.SIGKILL)
			}
		})
		// A following student starts on the walkthrough itself: no welcome in front of it.
		st.m.waitFor(`following the instructor`, time.Minute)
		st.m.waitFor(`space next`, 10*time.Second)
		if strings.Contains(st.m.screen(), "Welcome to kubewalk") {
			t.Errorf("%s: the welcome hides the following walkthrough:\n%s", st.name, st.m.screen())
		}
	}

	// The board lists both, by their SSH user names, following.
	host.run("send-keys", "-t", "kw", "B")
	host.waitFor(`(?s)Class board: ssh walk — students: 2, stuck: 0.*\bada\s.*⇢ following`, 30*time.Second)
	host.waitFor(`(?m)^\s*grace\s.*⇢ following`, 10*time.Second)
	host.run("send-keys", "-t", "kw", ":")
	host.run("send-keys", "-t", "kw", "-l", "tour")
	host.run("send-keys", "-t", "kw", "Enter")
	host.waitFor(`space next`, 10*time.Second)

	// The instructor goes to authz (3), then on to authz/rbac; both SSH students' servers follow.
	at := server.PhaseCheckpoints(server.PhaseAuthz)[0].ID()
	host.run("send-keys", "-t", "kw", "3")
	host.waitFor(`PAUSED at `+regexp.QuoteMeta(at), 30*time.Second)
	for at != "authz/rbac" {
		at = checkpointAfter(t, at)
		host.run("send-keys", "-t", "kw", "Space")
		host.waitFor(`PAUSED at `+regexp.QuoteMeta(at), 30*time.Second)
	}
	for _, st := range students {
		st.m.waitFor(`PAUSED at authz/rbac`, 30*time.Second)
		st.m.waitFor(`following the instructor \(at authz/rbac\)`, 5*time.Second)
	}

	// grace is stuck; the board says so. A message reaches both.
	grace, ada := students["grace"], students["ada"]
	grace.m.run("send-keys", "-t", "kw", "!")
	grace.m.waitFor(`✋ STUCK`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "B")
	board := host.waitFor(`(?s)Class board: ssh walk — students: 2, stuck: 1.*\bgrace .*✋ STUCK`, 15*time.Second)
	if !regexp.MustCompile(`(?m)^\s*ada\s+authz/rbac\s`).MatchString(board) {
		t.Errorf("board lacks ada at authz/rbac:\n%s", board)
	}
	host.run("send-keys", "-t", "kw", ":")
	host.run("send-keys", "-t", "kw", "-l", "msg look at the RBAC authorizer")
	host.run("send-keys", "-t", "kw", "Enter")
	for _, st := range students {
		st.m.waitFor(`instructor: look at the RBAC authorizer`, 15*time.Second)
	}

	// ada goes on at her own pace to a serving server, then closes her terminal: the session
	// ends, and its server, port and directory go with it.
	ada.m.run("send-keys", "-t", "kw", "D")
	ada.m.waitFor(`free pace`, 10*time.Second)
	ada.m.run("send-keys", "-t", "kw", "E")
	ada.m.waitFor(`SERVING`, 2*time.Minute)
	apiAddr := serverAddr(t, filepath.Join(ada.dir, "kubeconfig"))
	if c, err := net.DialTimeout("tcp", apiAddr, 5*time.Second); err != nil {
		t.Fatalf("ada's server at %s does not accept connections while serving: %v", apiAddr, err)
	} else {
		c.Close()
	}
	ada.m.run("kill-server") // the terminal closes: ssh gets SIGHUP and drops the connection
	waitOutputMatch(t, class, `session \d+ ada: ended \(`, time.Minute)
	if alive(ada.pid) {
		t.Errorf("ada's tour (pid %d) still runs after her session ended", ada.pid)
	}
	if c, err := net.DialTimeout("tcp", apiAddr, time.Second); err == nil {
		c.Close()
		t.Errorf("ada's server port %s still open after her session ended", apiAddr)
	}
	waitGone(t, ada.dir, 30*time.Second) // removed after the session's last log line
	ada.sb.assertNothingLeft(t)
	host.waitFor(`(?m)^\s*ada\s.*✗ offline`, 30*time.Second)
	board = host.waitFor(`(?m)^\s*grace\s.*✋ STUCK · ⇢ following`, 10*time.Second)
	if strings.Contains(class.out.String(), "grace: ended") {
		t.Errorf("grace's session ended with ada's:\n%s", class.out)
	}

	// The instructor quits: grace's session stays, says the class has ended, and her tour goes on.
	host.run("send-keys", "-t", "kw", "q")
	if rc := host.waitFile(hostRC, time.Minute); rc != "0" {
		t.Errorf("host exit %s; log:\n%s", rc, readFile(hostSB.log))
	}
	hostSB.assertNothingLeft(t)
	grace.m.waitFor(`■ the class has ended; your tour goes on`, 30*time.Second)
	grace.m.run("send-keys", "-t", "kw", "Space")
	grace.m.waitFor(`PAUSED at `+regexp.QuoteMeta(checkpointAfter(t, "authz/rbac")), 30*time.Second)
	if strings.Contains(class.out.String(), "grace: ended") || !alive(grace.pid) {
		t.Errorf("grace's session ended when the instructor quit:\n%s", class.out)
	}

	// The class ssh stops while grace is connected: her tour ends (its server and directory go
	// first), then a goodbye screen says so, where her progress is kept and that the connection
	// closes; a key closes it.
	class.cmd.Process.Signal(syscall.SIGINT)
	bye := grace.m.waitFor(`Press any key, or the connection closes in \d s`, time.Minute)
	for _, want := range []string{"The class has ended: the instructor stopped the class server.",
		"Your progress is saved under the name grace: connect again as grace"} {
		if !strings.Contains(strings.Join(strings.Fields(bye), " "), want) {
			t.Errorf("the goodbye screen lacks %q:\n%s", want, bye)
		}
	}
	if alive(grace.pid) {
		t.Errorf("grace's tour (pid %d) still runs behind the goodbye screen", grace.pid)
	}
	waitGone(t, grace.dir, 30*time.Second)
	grace.m.run("send-keys", "-t", "kw", "x")
	if rc := grace.m.waitFile(grace.rc, time.Minute); rc == "" {
		t.Errorf("grace's ssh did not report an exit status:\n%s", grace.m.screen())
	}
	if code, _ := class.wait(t, time.Minute); code != 0 {
		t.Errorf("class ssh exited %d after SIGINT:\n%s", code, class.out)
	}
	waitOutputMatch(t, class, `session \d+ grace: ended \(class stopped\)`, time.Minute)
	waitOutputMatch(t, class, `session \d+ grace: goodbye screen closed with a key`, time.Minute)
	if !strings.Contains(class.out.String(), "stopped; every session's server and files are gone") {
		t.Errorf("class output:\n%s", class.out)
	}
	grace.sb.assertNothingLeft(t)
	classSB.assertNothingLeft(t)
	if logs, _ := filepath.Glob(filepath.Join(classSB.state, "kubewalk", "class-ssh", "logs", "*")); len(logs) > 0 {
		t.Errorf("a session's tour failed; logs kept: %v\n%s", logs, readFile(logs[0]))
	}
}

// startSSHTmux connects the real OpenSSH client as user to the class ssh on 127.0.0.1:port with
// key, with a terminal (ssh -t) in a w×h tmux window of the sandbox's own. When ssh exits, the
// shell writes its exit status to rc. The tmux server is killed at the end of the test.
func startSSHTmux(t *testing.T, sb *sandbox, w, h int, port, key, user string) (m tmux, rc string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("tmux is required for this end-to-end test: %v", err)
	}
	m = tmux{t: t, socket: fmt.Sprintf("kubewalk-e2e-%d-%s", os.Getpid(), sb.marker)}
	rc = filepath.Join(sb.root, "rc")
	args := []string{"ssh", "-F", "/dev/null", "-t", "-p", port, "-i", key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=" + filepath.Join(sb.root, "known_hosts"), user + "@127.0.0.1"}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	script := fmt.Sprintf("cd %s; %sTERM=xterm-256color %s; echo $? > %s; sleep 600",
		shellQuote(sb.root), sb.shellEnv(), strings.Join(args, " "), shellQuote(rc))
	m.run("new-session", "-d", "-s", "kw", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "sh", "-c", script)
	t.Cleanup(func() { exec.Command("tmux", "-L", m.socket, "kill-server").Run() })
	return m, rc
}

// waitOutputMatch waits until the run's output matches re and returns the submatches, failing
// if the process exits first or within passes.
func waitOutputMatch(t *testing.T, r *run, re string, within time.Duration) []string {
	t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.After(within)
	for {
		if m := rx.FindStringSubmatch(r.out.String()); m != nil {
			return m
		}
		select {
		case <-r.done:
			if m := rx.FindStringSubmatch(r.out.String()); m != nil {
				return m
			}
			t.Fatalf("exited (%v) before printing %q:\n%s", r.err, re, r.out)
		case <-deadline:
			t.Fatalf("no %q within %s:\n%s", re, within, r.out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// waitGone waits, within a bound, until nothing is at path.
func waitGone(t *testing.T, path string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		_, err := os.Lstat(path)
		if os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s still there %s later: %v", path, within, err)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
