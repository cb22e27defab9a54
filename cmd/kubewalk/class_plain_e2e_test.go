package main_test

import (
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server"
)

// joinLineRE finds the join line on a host's screen or in its transcript.
var joinLineRE = regexp.MustCompile(`JOIN: kubewalk join (\S+) --code (\S+)`)

// TestClassPlainFollow: a student without a terminal (stdin /dev/null, output a pipe) follows
// a full-screen class host in a plain transcript: it says at once that there are no keys, runs
// to the checkpoints the instructor reaches (never back), prints the instructor's message as a
// line and that the class has ended when the host quits (then runs on to the end), and SIGTERM
// ends it with its server and etcd gone.
func TestClassPlainFollow(t *testing.T) {
	hostSB := newSandbox(t)
	host, hostRC, _ := startTmux(t, hostSB, 120, 40, nil, "class", "host", "--listen", "127.0.0.1:0", "--name", "plain walk",
		"--lang", "en", "--log-file", hostSB.log)
	m := joinLineRE.FindStringSubmatch(host.waitFor(joinLineRE.String(), time.Minute))
	addr, code := m[1], m[2]
	host.waitFor(`Welcome to kubewalk`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "Enter")
	host.waitFor(`space next`, 10*time.Second)

	sb := newSandbox(t)
	st := startRun(t, sb, nil, "join", addr, "--code", code, "--name", "ana", "--lang", "en", "--log-file", sb.log)
	// The line is wrapped to the width (100 without a terminal): match its start.
	st.waitOutput(t, "a plain transcript that follows the class: there are no keys here", time.Minute)
	first := server.Checkpoints()[0]
	st.waitOutput(t, "] "+string(first.Phase)+" · "+first.Name+" — ", time.Minute)
	st.waitOutput(t, "plain walk · ⇢ following the instructor", 30*time.Second)
	st.waitOutput(t, "⇢ following plain walk: waiting for the instructor to move on", 30*time.Second)

	// The instructor jumps to authz (3): the student's server runs there, without stopping
	// in between.
	at := server.PhaseCheckpoints(server.PhaseAuthz)[0]
	host.run("send-keys", "-t", "kw", "3")
	host.waitFor(`PAUSED at `+regexp.QuoteMeta(at.ID()), 30*time.Second)
	st.waitOutput(t, "⇢ the instructor is at "+at.ID()+": running there", 30*time.Second)
	st.waitOutput(t, "] authz · "+at.Name+" — ", 30*time.Second)

	// A message is a line of the transcript.
	host.run("send-keys", "-t", "kw", ":")
	host.run("send-keys", "-t", "kw", "-l", "msg read the RBAC step")
	host.run("send-keys", "-t", "kw", "Enter")
	st.waitOutput(t, "✉ instructor: read the RBAC step", 30*time.Second)

	// The host quits: the transcript says the class has ended, and goes on to the end.
	host.run("send-keys", "-t", "kw", "q")
	if rc := host.waitFile(hostRC, time.Minute); rc != "0" {
		t.Errorf("host exit %s; log:\n%s", rc, readFile(hostSB.log))
	}
	st.waitOutput(t, "■ the class has ended; the transcript goes on to the end", 30*time.Second)
	st.waitOutput(t, "The walkthrough is done. The server keeps running", 2*time.Minute)

	st.cmd.Process.Signal(syscall.SIGTERM)
	if code, sig := st.wait(t, time.Minute); code != 143 || sig != 0 {
		t.Errorf("after SIGTERM: exit %d, signal %v, want 143:\n%s", code, sig, st.out)
	}
	out := st.out.String()
	assertForwardOnly(t, out)
	if n := strings.Count(out, "✉ instructor: read the RBAC step"); n != 1 {
		t.Errorf("the message printed %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "everything was shut down") {
		t.Errorf("no clean shutdown:\n%s", out)
	}
	sb.assertNothingLeft(t)
}

// TestClassHostPlain: class host without a terminal refuses to start unless --auto is given;
// with --auto it prints the join line and a transcript that publishes every checkpoint, and a
// student without a terminal follows it to the serving server. Both stay in the class until
// SIGTERM, which ends them with nothing left.
func TestClassHostPlain(t *testing.T) {
	sb := newSandbox(t)
	noAuto := startRun(t, sb, nil, "class", "host", "--listen", "127.0.0.1:0", "--lang", "en", "--log-file", sb.log)
	if code, _ := noAuto.wait(t, time.Minute); code != 1 ||
		!strings.Contains(noAuto.out.String(), "kubewalk: class host needs a terminal to step through the tour: run it in one, or add --auto") {
		t.Errorf("class host without a terminal: exit %d:\n%s", code, noAuto.out)
	}
	sb.assertNothingLeft(t)

	host := startRun(t, sb, nil, "class", "host", "--auto=200ms", "--listen", "127.0.0.1:0", "--name", "auto walk", "--lang", "en", "--log-file", sb.log)
	host.waitOutput(t, "JOIN: kubewalk join ", time.Minute)
	var m []string
	for m == nil {
		m = joinLineRE.FindStringSubmatch(host.out.String())
		if m == nil {
			host.waitOutput(t, "\n", time.Second) // the line is being written
		}
	}
	stSB := newSandbox(t)
	st := startRun(t, stSB, nil, "join", m[1], "--code", m[2], "--name", "ana", "--lang", "en", "--log-file", stSB.log)
	all := server.Checkpoints()
	last := all[len(all)-1]
	st.waitOutput(t, "["+strconv.Itoa(len(all))+"/"+strconv.Itoa(len(all))+"] "+string(last.Phase)+" · "+last.Name, 3*time.Minute)
	st.waitOutput(t, "The server is serving at", time.Minute)
	st.waitOutput(t, "The walkthrough is done. The server keeps running and the instructor's messages still print here", time.Minute)
	host.waitOutput(t, "The walkthrough is done. The class stays open for the students; Ctrl-C ends it.", time.Minute)
	assertForwardOnly(t, st.out.String())
	assertForwardOnly(t, host.out.String())

	for _, r := range []*run{st, host} {
		r.cmd.Process.Signal(syscall.SIGTERM)
		if code, sig := r.wait(t, time.Minute); code != 143 || sig != 0 {
			t.Errorf("after SIGTERM: exit %d, signal %v, want 143:\n%s", code, sig, r.out)
		}
	}
	sb.assertNothingLeft(t)
	stSB.assertNothingLeft(t)
}

// assertForwardOnly fails unless the transcript's checkpoints ("[n/N] phase · name") only go
// forward.
func assertForwardOnly(t *testing.T, out string) {
	t.Helper()
	var phases []string
	for _, p := range server.Phases() {
		phases = append(phases, regexp.QuoteMeta(string(p)))
	}
	re := regexp.MustCompile(`(?m)^\[(\d+)/` + strconv.Itoa(len(server.Checkpoints())) + `\] (` + strings.Join(phases, "|") + `) · `)
	prev := 0
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		if n <= prev {
			t.Errorf("the transcript went from checkpoint %d to %d", prev, n)
		}
		prev = n
	}
	if prev == 0 {
		t.Errorf("no checkpoint in the transcript:\n%s", out)
	}
}
