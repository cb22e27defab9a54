package main_test

import (
	"os"
	"os/exec"
	"path/filepath"

	"strings"
	"testing"
	"time"
)

// TestClassCourseInTmux follows the whole course for real: an instructor's `class host` and a
// student's `join`, each in a tmux of its own. The instructor runs to the end with E: the
// student's server runs through serve too (it used to stop at serve/kubeconfig), and its
// in-TUI kubectl works (it used to say the server was not serving) as does the real kubectl
// from another terminal with the student's kubeconfig. The instructor walks into the
// after-serve track: the student follows to the same step. :assign reaches the student and the
// board; the student does the exercise in-TUI through the badtoken context and the board says
// so. The instructor quits: the student reads that the class has ended.
func TestClassCourseInTmux(t *testing.T) {
	kubectl := requireKubectl(t)
	hostSB := newSandbox(t)
	host, hostRC, _ := startTmux(t, hostSB, 120, 40, nil, "class", "host", "--listen", "127.0.0.1:0", "--name", "course walk",
		"--lang", "en", "--log-file", hostSB.log)
	m := joinLineRE.FindStringSubmatch(host.waitFor(joinLineRE.String(), time.Minute))
	addr, code := m[1], m[2]
	host.waitFor(`Welcome to kubewalk`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "Enter")
	host.waitFor(`space next`, 10*time.Second)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("instructor's screen:\n%s", host.screen())
		}
	})

	sb := newSandbox(t)
	st, stRC, _ := startTmux(t, sb, 100, 30, nil, "join", addr, "--code", code, "--name", "ana", "--lang", "en", "--log-file", sb.log)
	st.waitFor(`following the instructor \(at config/`, time.Minute)

	// E on the instructor's screen: both serve, the student following all the way.
	host.run("send-keys", "-t", "kw", "E")
	host.waitFor(`✓ SERVING at`, 2*time.Minute)
	st.waitFor(`✓ SERVING at`, 2*time.Minute)
	st.waitFor(`following the instructor \(at serving\)`, 10*time.Second)

	// The student's kubectl, in the tour and from another terminal.
	typeLine(st, "k get ns")
	st.waitFor(`(?s)kube-system\s+Active.*✓ exit 0`, time.Minute)
	kc := filepath.Join(sb.runtime, "kubewalk", "kubeconfig")
	out, err := exec.Command(kubectl, "--kubeconfig", kc, "--context", "anonymous", "get", "--raw", "/version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"gitVersion"`) {
		t.Errorf("the real kubectl, anonymous, on the student's server: %v\n%s", err, out)
	}
	typeLine(st, "lesson")

	// The instructor walks into the track; the student follows to the same step.
	host.run("send-keys", "-t", "kw", "n")
	host.waitFor(`after serve · apimachinery, live\s+TypeMeta and ObjectMeta`, 30*time.Second)
	host.run("send-keys", "-t", "kw", "n")
	host.waitFor(`after serve · apimachinery, live\s+The Scheme`, 30*time.Second)
	st.waitFor(`following the instructor \(at ▸ apimachinery/scheme\)`, 30*time.Second)
	st.waitFor(`after serve · apimachinery, live\s+The Scheme`, 10*time.Second)

	// :assign: the student sees it, and the board shows how the student stands on it.
	typeLine(host, "assign authn-nope")
	host.waitFor(`no exercise "authn-nope"`, 10*time.Second)
	host.run("send-keys", "-t", "kw", "Escape")
	typeLine(host, "assign authn-bad-token")
	st.waitFor(`✎ exercise: Get turned away at the door · ○ not started · A opens it`, 30*time.Second)
	host.run("send-keys", "-t", "kw", "B")
	host.waitFor(`assigned: Get turned away at the door \(authn-bad-token\) — done 0`, 30*time.Second)
	host.waitFor(`(?m)^\s*ana\s+▸ apimachinery/scheme\s+⇢ following\s+○ not started`, 30*time.Second)
	typeLine(st, "k --context badtoken get --raw /version")
	st.waitFor(`You must be logged in to the server \(Unauthorized\)`, time.Minute)
	st.waitFor(`✎ exercise: Get turned away at the door · ✓ done`, 30*time.Second)
	host.waitFor(`(?m)^\s*ana\s+▸ apimachinery/scheme\s+⇢ following\s+✓ done`, 30*time.Second)
	host.waitFor(`done 1 · trying 0`, 10*time.Second)

	// The instructor quits: the class has ended, not "reconnecting".
	host.run("send-keys", "-t", "kw", "q")
	if rc := host.waitFile(hostRC, time.Minute); rc != "0" {
		t.Errorf("host exit %s; log:\n%s", rc, readFile(hostSB.log))
	}
	hostSB.assertNothingLeft(t)
	st.waitFor(`■ the class has ended; your tour goes on`, 30*time.Second)
	if strings.Contains(st.screen(), "reconnecting") {
		t.Errorf("the end of the class reads as a lost connection:\n%s", st.screen())
	}
	st.run("send-keys", "-t", "kw", "q")
	if rc := st.waitFile(stRC, time.Minute); rc != "0" {
		t.Errorf("student exit %s; log:\n%s", rc, readFile(sb.log))
	}
	if _, err := os.Stat(kc); !os.IsNotExist(err) {
		t.Errorf("the student's kubeconfig is still there: %v", err)
	}
	sb.assertNothingLeft(t)
}

// typeLine types a : command line on m's screen and runs it.
func typeLine(m tmux, line string) {
	m.run("send-keys", "-t", "kw", ":")
	m.run("send-keys", "-t", "kw", "-l", line)
	m.run("send-keys", "-t", "kw", "Enter")
}
