package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/record"
)

// TestAutoRecordInTmux runs the full-screen tour with --auto (it reaches serve with no key
// pressed) and --record, resizes the window, quits, and then checks the recording: a valid
// asciicast v2 file, mode 0600, with the resize, without the run's bearer token or any
// environment but TERM — and replayed into a second tmux terminal it shows the serve screen
// the learner saw.
func TestAutoRecordInTmux(t *testing.T) {
	sb := newSandbox(t)
	cast := filepath.Join(sb.root, "tour.cast")
	kc := filepath.Join(sb.root, "kubeconfig")
	m, rc, _ := startTmux(t, sb, 80, 24, nil, "tour", "--restart", "--auto=200ms", "--record", cast,
		"--kubeconfig", kc, "--log-file", sb.log)
	m.waitFor(`▶▶ AUTO`, time.Minute)
	m.waitFor(`✓ SERVING at`, 3*time.Minute)
	m.run("resize-window", "-t", "kw", "-x", "100", "-y", "30")
	// The frame redrawn at the new size: 30 lines, the help bar on the last.
	live := m.waitFor(`\A(?:[^\n]*\n){29}\S`, 30*time.Second)
	if !strings.Contains(live, "✓ SERVING at") {
		t.Fatalf("not the serve screen after the resize:\n%s", live)
	}
	// The kubeconfig is removed on exit: read the token while the server serves.
	kube, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	tok := regexp.MustCompile(`token: (\S+)`).FindSubmatch(kube)
	if tok == nil {
		t.Fatalf("no token in the kubeconfig:\n%s", kube)
	}
	m.run("send-keys", "-t", "kw", "q")
	if code := m.waitFile(rc, time.Minute); code != "0" {
		t.Fatalf("exit code %s, want 0; screen:\n%s", code, m.screen())
	}
	m.waitFor(regexp.QuoteMeta("recording saved to "+cast), 10*time.Second)

	fi, err := os.Stat(cast)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("recording mode %v, want 0600", perm)
	}
	raw, err := os.ReadFile(cast)
	if err != nil {
		t.Fatal(err)
	}
	h, evs, err := record.Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatalf("the recording does not parse: %v", err)
	}
	if h.Width != 80 || h.Height != 24 || len(h.Env) != 1 || h.Env["TERM"] != "xterm-256color" {
		t.Errorf("header %+v: want 80x24 and only TERM in env", h)
	}
	if strings.Contains(string(raw), string(tok[1])) {
		t.Error("the recording holds the run's bearer token")
	}

	// Replay the screen as it was before q left the alternate screen.
	resized := false
	var screen strings.Builder
	for _, ev := range evs {
		if ev.Kind == "r" && ev.Data == "100x30" {
			resized = true
		}
		if ev.Kind != "o" {
			continue
		}
		if i := strings.Index(ev.Data, "\x1b[?1049l"); i >= 0 {
			screen.WriteString(ev.Data[:i])
			break
		}
		screen.WriteString(ev.Data)
	}
	if !resized {
		t.Error("the recording has no resize event to 100x30")
	}
	replayFile := filepath.Join(sb.root, "replay.out")
	if err := os.WriteFile(replayFile, []byte(screen.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	rp := tmux{t: t, socket: m.socket + "-replay"}
	rp.run("new-session", "-d", "-s", "kw", "-x", "100", "-y", "30", "sh", "-c",
		fmt.Sprintf("stty raw -echo; TERM=xterm-256color cat %s; sleep 600", shellQuote(replayFile)))
	t.Cleanup(func() { exec.Command("tmux", "-L", rp.socket, "kill-server").Run() })
	replayed := rp.waitFor(`✓ SERVING at`, 30*time.Second)
	want, got := screenLines(live), screenLines(replayed)
	for i := range 2 { // the chain and the checkpoint line; the status line's health may move on
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("replayed line %d differs:\nlive:     %q\nreplayed: %q\nlive screen:\n%s\nreplayed screen:\n%s", i, want[i], got[min(i, len(got)-1)], live, replayed)
		}
	}
}

// screenLines splits a captured screen into lines without trailing blanks.
func screenLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return lines
}
