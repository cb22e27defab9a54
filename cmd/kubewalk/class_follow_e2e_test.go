package main_test

import (
	"context"
	"net"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server"
)

// TestClassFollowInTmux runs a class for real: `class host` and three `join` students, each a
// kubewalk process with its own server in its own tmux. The instructor steps to authz/rbac
// and every student's server runs there; a student detaches (stays), re-syncs (catches up);
// a wrong code is refused; the board lists the students and a raised stuck flag; when the
// host quits, the students' tours go on and say the class has ended.
func TestClassFollowInTmux(t *testing.T) {
	hostSB := newSandbox(t)
	host, hostRC, _ := startTmux(t, hostSB, 120, 40, nil, "class", "host", "--listen", "127.0.0.1:0", "--name", "e2e walk",
		"--lang", "en", "--log-file", hostSB.log)
	s := host.waitFor(`JOIN: kubewalk join \S+ --code \S+`, time.Minute)
	m := regexp.MustCompile(`JOIN: kubewalk join (\S+) --code (\S+)`).FindStringSubmatch(s)
	addr, code := m[1], m[2]
	host.waitFor(`Welcome to kubewalk`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "Enter")
	host.waitFor(`space next`, 10*time.Second)

	// A wrong code: the secret's first symbol changed. Refused, clearly, before anything starts.
	wrong := "Z" + code[1:]
	if code[0] == 'Z' {
		wrong = "Y" + code[1:]
	}
	badSB := newSandbox(t)
	bad, badRC, _ := startTmux(t, badSB, 100, 30, nil, "join", addr, "--code", wrong, "--name", "mallory", "--log-file", badSB.log)
	if rc := bad.waitFile(badRC, time.Minute); rc != "1" {
		t.Errorf("wrong code: exit %s, want 1", rc)
	}
	bad.waitFor(`wrong join code`, 5*time.Second)

	students := map[string]tmux{}
	for _, name := range []string{"ana", "bob", "chen"} {
		sb := newSandbox(t)
		st, _, _ := startTmux(t, sb, 100, 30, nil, "join", addr, "--code", code, "--name", name, "--lang", "en", "--log-file", sb.log)
		students[name] = st
	}
	// A following student's first run has no welcome in front of the live walkthrough.
	for name, st := range students {
		st.waitFor(`following the instructor`, time.Minute)
		if s := st.waitFor(`space next`, 10*time.Second); strings.Contains(s, "Welcome to kubewalk") {
			t.Errorf("%s: the welcome hides the walkthrough:\n%s", name, s)
		}
	}

	// The instructor goes to authz (3), then on to authz/rbac.
	at := server.PhaseCheckpoints(server.PhaseAuthz)[0].ID()
	host.run("send-keys", "-t", "kw", "3")
	host.waitFor(`PAUSED at `+regexp.QuoteMeta(at), 30*time.Second)
	for at != "authz/rbac" {
		at = checkpointAfter(t, at)
		host.run("send-keys", "-t", "kw", "Space")
		host.waitFor(`PAUSED at `+regexp.QuoteMeta(at), 30*time.Second)
	}
	for _, st := range students {
		st.waitFor(`PAUSED at authz/rbac`, 30*time.Second)
		st.waitFor(`following the instructor \(at authz/rbac\)`, 5*time.Second)
	}

	// bob detaches; the instructor steps on; ana follows, bob stays; bob re-syncs and catches up.
	next := checkpointAfter(t, "authz/rbac")
	bob := students["bob"]
	bob.run("send-keys", "-t", "kw", "D")
	bob.waitFor(`free pace`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "Space")
	host.waitFor(`PAUSED at `+regexp.QuoteMeta(next), 30*time.Second)
	students["ana"].waitFor(`PAUSED at `+regexp.QuoteMeta(next), 30*time.Second)
	bob.waitFor(`free pace \(instructor at `+regexp.QuoteMeta(next), 10*time.Second)
	if !strings.Contains(bob.screen(), "PAUSED at authz/rbac") {
		t.Errorf("a detached student moved:\n%s", bob.screen())
	}
	bob.run("send-keys", "-t", "kw", "D")
	bob.waitFor(`PAUSED at `+regexp.QuoteMeta(next), 30*time.Second)

	// chen is stuck; the board says so, in words.
	students["chen"].run("send-keys", "-t", "kw", "!")
	students["chen"].waitFor(`✋ STUCK`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "B")
	board := host.waitFor(`(?s)Class board: e2e walk — students: 3, stuck: 1.*chen .*✋ STUCK`, 15*time.Second)
	for _, want := range []string{"ana", "bob", next} {
		if !strings.Contains(board, want) {
			t.Errorf("board lacks %q:\n%s", want, board)
		}
	}

	// A message reaches every student.
	host.run("send-keys", "-t", "kw", ":")
	host.run("send-keys", "-t", "kw", "-l", "msg look at the RBAC authorizer")
	host.run("send-keys", "-t", "kw", "Enter")
	for _, st := range students {
		st.waitFor(`instructor: look at the RBAC authorizer`, 15*time.Second)
	}

	// The host vanishes: the students' tours go on, and say so.
	host.run("send-keys", "-t", "kw", "q")
	if rc := host.waitFile(hostRC, time.Minute); rc != "0" {
		t.Errorf("host exit %s; log:\n%s", rc, readFile(hostSB.log))
	}
	ana := students["ana"]
	ana.waitFor(`■ the class has ended; your tour goes on`, 30*time.Second)
	ana.run("send-keys", "-t", "kw", "Space")
	ana.waitFor(`PAUSED at `+regexp.QuoteMeta(checkpointAfter(t, next)), 30*time.Second)
	for _, st := range students {
		st.run("send-keys", "-t", "kw", "q")
	}
}

// checkpointAfter is the checkpoint that follows id in the tour.
func checkpointAfter(t *testing.T, id string) string {
	t.Helper()
	all := server.Checkpoints()
	for i, c := range all[:len(all)-1] {
		if c.ID() == id {
			return all[i+1].ID()
		}
	}
	t.Fatalf("no checkpoint after %s", id)
	return ""
}

// TestClassBadInput: a busy port and a malformed join code get one clear line and exit 1,
// without a terminal and before a server starts.
func TestClassBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"busy port", []string{"class", "host", "--listen", busy.Addr().String()}, "listen on " + busy.Addr().String() + " (pass another address with --listen): listen tcp " + busy.Addr().String() + ": bind: address already in use"},
		{"half a code", []string{"join", "127.0.0.1:7443", "--code", "4F7K-Q2"}, "join 127.0.0.1:7443:"},
		{"not a code", []string{"join", "127.0.0.1:7443", "--code", "hello!"}, "join 127.0.0.1:7443:"},
		{"no code", []string{"join", "127.0.0.1:7443"}, `required flag(s) "code" not set`},
		{"ssh follow without a code", []string{"class", "ssh", "--listen", "127.0.0.1:0", "--follow", "127.0.0.1:7443"}, "--follow ADDR and --code CODE go together"},
		{"ssh follow, half a code", []string{"class", "ssh", "--listen", "127.0.0.1:0", "--follow", "127.0.0.1:7443", "--code", "4F7K-Q2"}, "--code: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := newSandbox(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			args := tt.args
			if args[0] == "join" || args[1] == "host" {
				args = append(args, "--log-file", sb.log)
			}
			cmd := exec.CommandContext(ctx, binary, args...)
			cmd.Env = sb.env()
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("still running after a minute:\n%s", out)
			}
			if err == nil || !strings.Contains(string(out), tt.want) {
				t.Fatalf("want exit 1 with %q, got %v:\n%s", tt.want, err, out)
			}
			sb.assertNothingLeft(t)
		})
	}
}
