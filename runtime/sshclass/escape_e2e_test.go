package sshclass

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubewalk/kubewalk/runtime/sandbox"
	"github.com/kubewalk/kubewalk/server"
)

// The escape suite: a student, through nothing but the real tour's screen over real OpenSSH,
// tries to get out of their tour. Every attempt lists the layers that must stop it on their
// own (see Layers); the suite runs one tour per configuration — all layers, each layer alone,
// and, as the control that shows the suite can tell an escape, no layer at all — and runs in it,
// one after the other, the attempts that configuration must stop (the control: the harmless
// ones, whose "shell" is a fake program in a test directory and whose targets are the test's
// own files and servers, and which must get through there).
//
// To extend it, add an escapeAttempt: the :k command line (its first three words must differ
// from the previous attempt's: runKubectl tells the results apart by them), what the screen
// shows when each layer refuses it, and how an escape shows (a file appears, the screen shows
// a secret, the fake program ran).

// escapeAttempt is one try at leaving the tour.
type escapeAttempt struct {
	name string
	// setup are :k commands run first, which must succeed.
	setup []string
	// command is the attempt, as typed after ":k ".
	command string
	// stoppedBy reports whether a layer on its own must stop the attempt.
	stoppedBy func(l Layers, e *escapeEnv) bool
	// refusals are what the screen shows (a regular expression) when the attempt is stopped
	// by each layer, keyed "allow-list", "no-exec", "landlock"; "" when the layer leaves
	// nothing on the screen (the escape check then decides alone).
	refusals map[string]string
	// escaped reports whether the attempt got through, from the screen after it and the
	// files it would have made.
	escaped func(e *escapeEnv, screen string) bool
	// harmless attempts run in the control (no layer): they can only reach the test's own
	// programs, files and servers.
	harmless bool
}

// escapeEnv is what the attempts aim at: files and a server the tour must not reach, world
// readable or writable so that Unix permissions alone cannot explain a refusal.
type escapeEnv struct {
	fake         string // a program standing in for a shell: it leaves a mark when it runs
	marks        string
	outside      string // a world-writable directory outside the session's
	otherSession string // another student's session directory (the tours' user owns it, 0700)
	otherState   string // another student's progress directory (the same)
	victimNS     string // a namespace only the other student's server has
	hasAllowList bool   // the tour has the allow-list (--kubectl-unguarded turns it off)
	marksBefore  int    // the fake program's marks before the attempt
}

func (e *escapeEnv) marked() int {
	m, _ := filepath.Glob(filepath.Join(e.marks, "ran.*"))
	return len(m)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// allowRefused is what the allow-list's refusals say (the list of refusals it replaces, and
// the allow-list: a command or flag that "does not run here", a context it does not know).
const allowRefused = `reads or writes files on the machine|does not run here|is not a context of this run's kubeconfig|reads a file on the class host|is pinned`

// escapeAttempts is the suite. The allow-list of --kubectl-no-local-files refuses file flags
// today; `apply edit-last-applied` only once the allow-list replaces the list of refusals
// (hasAllowList).
func escapeAttempts() []escapeAttempt {
	fileLayers := func(l Layers, e *escapeEnv) bool { return l.AllowList || l.Landlock }
	const denied = `permission denied`
	return []escapeAttempt{
		{
			name:    "editor: apply edit-last-applied starts $EDITOR",
			setup:   []string{"create cm ea --from-literal=a=b --save-config"},
			command: "apply edit-last-applied cm/ea",
			stoppedBy: func(l Layers, e *escapeEnv) bool {
				return l.NoExec || l.Landlock || (l.AllowList && e.hasAllowList)
			},
			refusals: map[string]string{"allow-list": allowRefused, "no-exec": `there was a problem with the editor`, "landlock": `there was a problem with the editor`},
			escaped:  func(e *escapeEnv, _ string) bool { return e.marked() > e.marksBefore },
			harmless: true,
		},
		{
			name:      "exec credential plugin in the kubeconfig",
			command:   "--context cred get ns",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.NoExec || l.Landlock },
			refusals:  map[string]string{"no-exec": `operation not permitted|credential plugin`, "landlock": denied},
			escaped:   func(e *escapeEnv, _ string) bool { return e.marked() > e.marksBefore },
			harmless:  true,
		},
		{
			name:      "read /etc/passwd (--from-file)",
			command:   "create cm pw --from-file=/etc/passwd",
			stoppedBy: fileLayers,
			refusals:  map[string]string{"allow-list": allowRefused, "landlock": denied},
			escaped:   func(_ *escapeEnv, screen string) bool { return strings.Contains(screen, "configmap/pw created") },
			harmless:  true,
		},
		{
			name:      "read another student's session directory",
			command:   "create cm os --from-file=OTHER_SESSION/kubeconfig",
			stoppedBy: fileLayers,
			refusals:  map[string]string{"allow-list": allowRefused, "landlock": denied},
			escaped:   func(_ *escapeEnv, screen string) bool { return strings.Contains(screen, "configmap/os created") },
			harmless:  true,
		},
		{
			name:      "read another student's progress directory",
			command:   "create cm op --from-file=OTHER_STATE/kubewalk/progress.json",
			stoppedBy: fileLayers,
			refusals:  map[string]string{"allow-list": allowRefused, "landlock": denied},
			escaped:   func(_ *escapeEnv, screen string) bool { return strings.Contains(screen, "configmap/op created") },
			harmless:  true,
		},
		{
			name:      "write outside the session directory (--cache-dir)",
			command:   "get ns --cache-dir=OUTSIDE/cache",
			stoppedBy: fileLayers,
			refusals:  map[string]string{"allow-list": allowRefused, "landlock": ""},
			escaped:   func(e *escapeEnv, _ string) bool { return exists(filepath.Join(e.outside, "cache")) },
			harmless:  true,
		},
		{
			name:      "write into another student's session directory (--cache-dir)",
			command:   "get namespaces --cache-dir=OTHER_SESSION/cache",
			stoppedBy: fileLayers,
			refusals:  map[string]string{"allow-list": allowRefused, "landlock": ""},
			escaped:   func(e *escapeEnv, _ string) bool { return exists(filepath.Join(e.otherSession, "cache")) },
			harmless:  true,
		},
		{
			name:      "write into another student's progress directory (--cache-dir)",
			command:   "get namespace --cache-dir=OTHER_STATE/cache",
			stoppedBy: fileLayers,
			refusals:  map[string]string{"allow-list": allowRefused, "landlock": ""},
			escaped:   func(e *escapeEnv, _ string) bool { return exists(filepath.Join(e.otherState, "cache")) },
			harmless:  true,
		},
		{
			name:      "reach another student's server with their token",
			command:   "--context other get ns",
			stoppedBy: func(l Layers, _ *escapeEnv) bool { return l.Landlock },
			refusals:  map[string]string{"landlock": `connect: permission denied`},
			escaped:   func(e *escapeEnv, screen string) bool { return strings.Contains(screen, e.victimNS) },
			harmless:  true,
		},
	}
}

// TestEscapeSuite runs escapeAttempts through the real tour over real OpenSSH, as nobody when
// the test runs as root, once per configuration.
func TestEscapeSuite(t *testing.T) {
	support := sandbox.Probe()
	if !support.Seccomp || !support.Net() {
		t.Fatalf("the escape suite needs seccomp and Landlock with network rules: %s", support)
	}
	bin := requireBinary(t)
	runAs := nobody(t)
	hasFlag := tourFlags(t, bin, flagUnguarded, flagNoExecPlugins)
	root := t.TempDir()
	traversable(t, root)
	env := &escapeEnv{marks: filepath.Join(root, "marks"), outside: filepath.Join(root, "outside"),
		victimNS: "victim-only-ns", hasAllowList: hasFlag(flagUnguarded)}
	for _, d := range []string{env.marks, env.outside, filepath.Join(root, "bin")} {
		if err := os.Mkdir(d, 0o777); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o777)
	}
	env.fake = filepath.Join(root, "bin", "fake-shell")
	if err := os.WriteFile(env.fake, []byte("#!/bin/sh\necho ran > "+env.marks+"/ran.$$\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	victim := startVictim(t, env.victimNS)

	type config struct {
		name   string
		layers Layers
		only   string // the layer whose refusal the screen must show ("" : any that stops it)
	}
	configs := []config{
		{"all layers", AllLayers(), ""},
		{"no-exec alone", Layers{NoExec: true}, "no-exec"},
		{"landlock alone", Layers{Landlock: true}, "landlock"},
	}
	if env.hasAllowList {
		configs = append(configs, config{"allow-list alone", Layers{AllowList: true}, "allow-list"})
	} else {
		t.Logf("allow-list alone: not run — this tour has no --%s, so its kubectl cannot be left without refusals while the OS layers are off", flagUnguarded)
	}
	configs = append(configs, config{"control with no layer", Layers{}, ""})
	counts := map[string]int{}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			control := cfg.layers == Layers{}
			var attempts []escapeAttempt
			for _, a := range escapeAttempts() {
				if (control && a.harmless) || (!control && a.stoppedBy(cfg.layers, env)) {
					attempts = append(attempts, a)
				}
			}
			layers := cfg.layers
			c := startClass(t, "", Config{Executable: bin, RunAs: runAs, Layers: &layers, MaxSessions: 1,
				TourHasFlag: hasFlag, Env: fakeEditor(layers, env.fake)})
			env.otherSession, env.otherState = otherStudent(t, c, runAs)
			keyDir := t.TempDir()
			key := sshKeygen(t, keyDir, "student")
			pub, _ := os.ReadFile(key + ".pub")
			if err := os.WriteFile(c.srv.cfg.AuthorizedKeys, pub, 0o644); err != nil {
				t.Fatal(err)
			}
			o := newOpenSSH(t, c, key)
			p, rc := o.inTmux("alice", 200, 50)
			p.waitFor(`Welcome to kubewalk`, tourBound)
			p.keys("Enter")
			p.waitFor(`space next`, bound)
			p.keys("E")
			p.waitFor(`SERVING`, tourBound)
			si := c.waitSessions(t, 1, bound)[0]
			if runAs != nil {
				if uid := procUID(t, si.PID); uid != runAs.UID {
					t.Errorf("the tour runs as uid %d, want %s (%d)", uid, runAs.Name, runAs.UID)
				}
			}
			addEscapeContexts(t, filepath.Join(si.Dir, "kubeconfig"), victim, env.fake)
			if cfg.name == "all layers" {
				checkSandboxedTourWorks(t, p)
			}
			for _, a := range attempts {
				for _, s := range a.setup {
					if code, screen := runKubectl(p, s); code != 0 {
						t.Fatalf("%s: setup %q: exit %d\n%s", a.name, s, code, screen)
					}
				}
				env.marksBefore = env.marked()
				line := strings.NewReplacer("OTHER_SESSION", env.otherSession, "OTHER_STATE", env.otherState, "OUTSIDE", env.outside).Replace(a.command)
				code, screen := runKubectl(p, line)
				escaped := a.escaped(env, screen)
				if d := os.Getenv("ESCAPE_SCREENS"); d != "" {
					os.WriteFile(filepath.Join(d, strings.ReplaceAll(cfg.name+"-"+a.name, "/", "_")), []byte(screen), 0o644)
				}
				switch {
				case control && !escaped:
					t.Errorf("control: %s did not get through with no layer on (exit %d), so the suite could not tell an escape:\n%s", a.name, code, screen)
				case !control && escaped:
					t.Errorf("ESCAPE: %s got through with %s (exit %d):\n%s", a.name, cfg.layers, code, screen)
				case !control:
					if want := refusalFor(a, cfg.layers, cfg.only, env); want != nil && !want.MatchString(screen) {
						t.Errorf("%s: refused, but the screen does not show the refusal of %s (%s):\n%s", a.name, cfg.layers, want, screen)
					}
					counts[cfg.name]++
				}
			}
			p.keys("q") // the kubectl view quits on q too (Escape then q would arrive as alt+q)
			if code := waitRC(t, rc, bound); code != "0" {
				t.Errorf("the student's ssh exited %s after q", code)
			}
			waitGone(t, si.PID, si.Dir, bound)
			if cfg.name == "all layers" {
				progress := filepath.Join(c.srv.cfg.StateDir, "users", "alice", "kubewalk", "progress.json")
				if b, err := os.ReadFile(progress); err != nil || !strings.Contains(string(b), "serve") {
					t.Errorf("progress not saved for alice: %v\n%s", err, b)
				}
			}
			if left, _ := os.ReadDir(env.outside); len(left) > 0 && !control {
				t.Errorf("written outside the session directory: %v", left)
			}
			for _, d := range []string{env.outside, env.otherSession, env.otherState} {
				os.RemoveAll(filepath.Join(d, "cache"))
			}
		})
	}
	t.Logf("attempts refused per configuration: %v", counts)
}

// refusalFor is what the screen must show for attempt a refused under layers: with only, the
// refusal of that layer; else that of any layer on (the first to refuse wins, and a layer may
// refuse more than it must: the allow-list also refuses contexts it does not know). Nil when a
// layer that may have stopped it leaves no trace on the screen.
func refusalFor(a escapeAttempt, layers Layers, only string, e *escapeEnv) *regexp.Regexp {
	var res []string
	for name, on := range map[string]bool{"allow-list": layers.AllowList, "no-exec": layers.NoExec, "landlock": layers.Landlock} {
		if !on || (only != "" && name != only) {
			continue
		}
		re, ok := a.refusals[name]
		if name == "allow-list" && !ok {
			re, ok = allowRefused, true
		}
		alone := Layers{AllowList: name == "allow-list", NoExec: name == "no-exec", Landlock: name == "landlock"}
		if a.stoppedBy(alone, e) && (!ok || re == "") {
			return nil // this layer may be the one that stopped it, silently
		}
		if ok && re != "" {
			res = append(res, "(?:"+re+")")
		}
	}
	if len(res) == 0 {
		return nil
	}
	return regexp.MustCompile(strings.Join(res, "|"))
}

// fakeEditor points the editor variables at the fake program when the no-exec layer (whose
// refusing values they otherwise are) is off: the control must never start a real vi.
func fakeEditor(l Layers, fake string) []string {
	if l.NoExec {
		return nil
	}
	return []string{"EDITOR=" + fake, "KUBE_EDITOR=" + fake}
}

// runKubectl types `:k ARGS` on the student's screen, waits for its exit status and returns it
// (-1 when the tour refused to run it) with the screen.
func runKubectl(p tmuxPane, args string) (int, string) {
	p.t.Helper()
	p.keys(":")
	p.run("send-keys", "-t", p.name, "-l", "k "+args)
	p.keys("Enter")
	// The pane's title names this command — its first three words, cut to 20 characters each
	// to fit in a shortened title, tell it from the previous one, whose result stays on the
	// screen while this one is typed (the attempts differ there) — and, once it is done, its
	// exit status; the body says the same once the frame is drawn whole.
	words := strings.Fields(args)[:min(len(strings.Fields(args)), 3)]
	for i, w := range words {
		words[i] = w[:min(len(w), 20)]
	}
	prefix := regexp.QuoteMeta(strings.Join(words, " "))
	done := regexp.MustCompile(`kubectl · ` + prefix + `[^\n]*· (?:exit (\d+)|(refused))`)
	deadline := time.Now().Add(time.Minute)
	for last := ""; ; {
		screen := p.screen()
		if m := done.FindStringSubmatch(screen); m != nil && screen == last {
			body := regexp.MustCompile(`[✓✗] exit ` + m[1] + `\b`)
			if m[2] != "" {
				body = regexp.MustCompile(`✗ not run`)
			}
			if body.MatchString(screen) {
				code, err := strconv.Atoi(m[1])
				if err != nil {
					code = -1
				}
				return code, screen
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: kubectl %s did not finish within a minute; last screen:\n%s", p.name, args, screen)
		}
		last = screen
		time.Sleep(100 * time.Millisecond)
	}
}

// checkSandboxedTourWorks: the sandboxed tour serves its own kubectl, and u shows the upstream
// source from the module cache the class handed it.
func checkSandboxedTourWorks(t *testing.T, p tmuxPane) {
	t.Helper()
	if code, screen := runKubectl(p, "get ns"); code != 0 || !strings.Contains(screen, "kube-system") {
		t.Errorf(":k get ns in the sandboxed tour: exit %d\n%s", code, screen)
	}
	p.keys(":")
	p.run("send-keys", "-t", p.name, "-l", "lesson")
	p.keys("Enter")
	p.waitFor(`checkpoint 27/27`, bound)
	p.keys("Left") // serve/ready names an upstream function in k8s.io/apiserver
	p.waitFor(`REVIEWING`, bound)
	p.keys("u")
	p.waitFor(`Upstream · \S*io/apiserver@v0\.37\.2/pkg/server/`, bound)
	p.keys("u")
	p.waitFor(`Source · `, bound)
	p.keys("Escape") // back to the live stop; alone: an Escape followed at once by a key reads as alt+key
	p.waitFor(`✓ SERVING at `, bound)
	waitScreenLacks(p, `REVIEWING`, bound)
}

// waitScreenLacks waits, within a bound, until the screen no longer matches re.
func waitScreenLacks(p tmuxPane, re string, within time.Duration) {
	p.t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.Now().Add(within)
	for r.MatchString(p.screen()) {
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: screen still matches %q after %s:\n%s", p.name, re, within, p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// otherStudent makes, as the class would, another student's session directory and progress
// directory — owned by the tours' user, 0700, so that a tour of that user may read them by Unix
// permissions — and returns their paths. The class's state directory is made traversable.
func otherStudent(t *testing.T, c *testClass, runAs *RunAs) (session, state string) {
	t.Helper()
	session = filepath.Join(c.srv.cfg.TempDir, "other-session")
	state = filepath.Join(c.srv.cfg.StateDir, "users", "bob")
	files := map[string]string{
		filepath.Join(session, "kubeconfig"):              "bob's kubeconfig, with bob's token\n",
		filepath.Join(state, "kubewalk", "progress.json"): `{"bob":"progress"}` + "\n",
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if runAs != nil {
		for _, p := range []string{session, filepath.Join(session, "kubeconfig"), state, filepath.Join(state, "kubewalk"), filepath.Join(state, "kubewalk", "progress.json")} {
			if err := os.Chown(p, runAs.UID, runAs.GID); err != nil {
				t.Fatal(err)
			}
		}
	}
	traversable(t, filepath.Dir(state))
	return session, state
}

// victimServer is another student's server, run in this process: its address, CA and admin
// credentials.
type victimServer struct {
	server string
	ca     []byte
	admin  *clientcmdapi.AuthInfo
}

// startVictim starts a real server with a namespace nobody else has.
func startVictim(t *testing.T, ns string) victimServer {
	t.Helper()
	dir := t.TempDir()
	logFile, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logFile.Close() })
	s, err := server.New(server.Options{Kubeconfig: filepath.Join(dir, "kubeconfig"), LogOutput: logFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(s.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	admin := cfg.Contexts["admin"]
	v := victimServer{server: cfg.Clusters[admin.Cluster].Server, ca: cfg.Clusters[admin.Cluster].CertificateAuthorityData,
		admin: cfg.AuthInfos[admin.AuthInfo].DeepCopy()}
	if v.admin.Token == "" && len(v.admin.ClientCertificateData) == 0 {
		t.Fatalf("the victim's admin has no credentials in %s", s.Kubeconfig())
	}
	rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, "admin", nil, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return v
}

// addEscapeContexts adds to the student's kubeconfig what a student could not write there
// through the tour (its kubectl refuses `config set-*` whatever the layers), to try what such a
// kubeconfig would lead to: context "other" (another student's server, with that student's
// admin credentials) and context "cred" (an exec credential plugin: the fake program).
func addEscapeContexts(t *testing.T, path string, v victimServer, plugin string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	own := cfg.Contexts["admin"]
	cfg.Clusters["other"] = &clientcmdapi.Cluster{Server: v.server, CertificateAuthorityData: v.ca}
	cfg.AuthInfos["other"] = v.admin
	cfg.Contexts["other"] = &clientcmdapi.Context{Cluster: "other", AuthInfo: "other"}
	cfg.AuthInfos["cred"] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{Command: plugin,
		APIVersion: "client.authentication.k8s.io/v1", InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
	cfg.Contexts["cred"] = &clientcmdapi.Context{Cluster: own.Cluster, AuthInfo: "cred"}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

// tourFlags reports which of names the binary's tour command has: `tour --NAME --help`
// succeeds only for a flag it knows.
func tourFlags(t *testing.T, bin string, names ...string) func(string) bool {
	t.Helper()
	has := map[string]bool{}
	for _, n := range names {
		has[n] = exec.Command(bin, "tour", "--"+n, "--help").Run() == nil
	}
	return func(n string) bool { return has[n] }
}

// procUID is the real user ID of process pid.
func procUID(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Uid:\s+(\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no Uid in /proc/%d/status", pid)
	}
	uid, _ := strconv.Atoi(string(m[1]))
	return uid
}
