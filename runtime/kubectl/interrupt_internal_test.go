package kubectl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/kubectl/pkg/util/interrupt"
)

// TestInterruptSignalsReplaced checks the go:linkname in interrupt.go: the symbol exists in
// k8s.io/kubectl/pkg/util/interrupt, it held exactly the signals kubectl v0.37.2 lists
// (SIGHUP, SIGINT, SIGTERM, SIGQUIT) when init replaced it, and it now holds only SIGKILL. A
// kubectl upgrade that renames the variable leaves the linked one nil (the linker then
// defines it here) and fails here, as does one that changes its signals: read the new
// package before changing the expectation.
func TestInterruptSignalsReplaced(t *testing.T) {
	want := []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT}
	if !slices.Equal(kubectlInterruptWas, want) {
		t.Errorf("k8s.io/kubectl/pkg/util/interrupt.terminationSignals was %v, want %v: kubectl's interrupt package changed; review interrupt.go", kubectlInterruptWas, want)
	}
	if !slices.Equal(kubectlInterruptSignals, []os.Signal{syscall.SIGKILL}) {
		t.Errorf("kubectl's interrupt handler listens for %v, want only SIGKILL", kubectlInterruptSignals)
	}
}

// interruptHelperEnv makes TestInterruptHelper, in a child process, run kubectl's interrupt
// handler and send itself the signal named.
const interruptHelperEnv = "KUBEWALK_INTERRUPT_HELPER"

// TestInterruptHandlerNeverExits runs, in a child process for each signal kubectl's handler
// used to catch, a critical section guarded as get -w guards its watch
// (interrupt.New(nil, cancel).Run) and sends the process that signal while the section runs.
// The process must survive (kubectl's handler used to call os.Exit(1)), get the signal on its
// own channel, as kubewalk does, and the handler must still call its notify function once, when
// the section ends.
func TestInterruptHandlerNeverExits(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestInterruptHelper$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", interruptHelperEnv, int(sig)))
			out, err := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("the helper still ran a minute later:\n%s", out)
			}
			if err != nil {
				t.Fatalf("the process did not survive %v inside kubectl's interrupt handler (%v):\n%s", sig, err, out)
			}
			if want := fmt.Sprintf("survived %v; notified 1 time(s), 0 of them during the section", sig); !strings.Contains(string(out), want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		})
	}
}

// TestInterruptHelper is the child process of TestInterruptHandlerNeverExits; without its
// environment variable it does nothing.
func TestInterruptHelper(t *testing.T) {
	v := os.Getenv(interruptHelperEnv)
	if v == "" {
		return
	}
	var n int
	if _, err := fmt.Sscan(v, &n); err != nil {
		t.Fatalf("%s=%q: %v", interruptHelperEnv, v, err)
	}
	sig := syscall.Signal(n)
	// kubewalk's own handler (runtime/cli/earlysignal): the process catches the signal itself.
	own := make(chan os.Signal, 4)
	signal.Notify(own, sig, syscall.SIGWINCH)
	defer signal.Stop(own)
	notified, during := 0, 0
	inSection := false
	err := interrupt.New(nil, func() {
		notified++
		if inSection {
			during++
		}
	}).Run(func() error {
		inSection = true
		defer func() { inSection = false }()
		// Signals sent to the process may be handed to os/signal in any order; os/signal
		// hands each to every channel before it takes the next. So once sig has reached the
		// process's own channel, a SIGWINCH sent after it reaches that channel only after sig
		// has been offered to every channel that wants it, kubectl's included.
		deadline := time.After(30 * time.Second)
		for _, s := range []syscall.Signal{sig, syscall.SIGWINCH} {
			if err := syscall.Kill(os.Getpid(), s); err != nil {
				return err
			}
			select {
			case got := <-own:
				if got != s {
					return fmt.Errorf("the process's own handler got %v, want %v", got, s)
				}
			case <-deadline:
				return fmt.Errorf("%v never reached the process's own handler", s)
			}
		}
		// Had kubectl's handler been notified of sig, its goroutine would have the signal
		// now and never wait on its channel again: it would call os.Exit(1). Wait until it
		// waits there, which proves it got nothing.
		for !handlerWaiting() {
			select {
			case <-deadline:
				return errors.New("kubectl's interrupt goroutine never waited for a signal")
			default:
				runtime.Gosched()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("survived %v; notified %d time(s), %d of them during the section\n", sig, notified, during)
}

// handlerWaiting reports whether the goroutine kubectl's interrupt.Handler.Run starts is
// blocked receiving from its signal channel.
func handlerWaiting() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(g, "interrupt.(*Handler).Run.func") && strings.Contains(header, "[chan receive") {
			return true
		}
	}
	return false
}

// TestSignalHandlersReviewed lists every signal.Notify and every use of kubectl's interrupt
// package in the kubectl, cli-runtime and client-go sources linked into kubewalk (examples and
// tests aside) and compares them with the ones reviewed at v0.37.2. A new one — an upgrade
// adding a handler that may exit the process — fails here until it is reviewed.
func TestSignalHandlersReviewed(t *testing.T) {
	// Reviewed: interrupt.go neutralises kubectl's interrupt package for all its users.
	reviewed := map[string]string{
		"k8s.io/kubectl/pkg/util/interrupt/interrupt.go: signal.Notify":    "the handler itself: listens for SIGKILL only (interrupt.go)",
		"k8s.io/kubectl/pkg/util/term/term.go: interrupt.Chain":            "TTY.Safe, for exec/attach -t: refused (needs a terminal); neutralised anyway",
		"k8s.io/kubectl/pkg/util/term/resizeevents.go: signal.Notify":      "SIGWINCH for a TTY's size: never exits",
		"k8s.io/kubectl/pkg/cmd/get/get.go: interrupt.New":                 "get -w: neutralised",
		"k8s.io/kubectl/pkg/cmd/wait/condition.go: interrupt.New":          "wait --for: neutralised",
		"k8s.io/kubectl/pkg/cmd/wait/delete.go: interrupt.New":             "wait --for=delete, delete --wait: neutralised",
		"k8s.io/kubectl/pkg/cmd/rollout/rollout_status.go: interrupt.New":  "rollout status -w: neutralised",
		"k8s.io/kubectl/pkg/cmd/events/events.go: interrupt.New":           "events -w: neutralised",
		"k8s.io/kubectl/pkg/cmd/logs/logs.go: interrupt.New":               "logs -f: neutralised",
		"k8s.io/kubectl/pkg/cmd/run/run.go: interrupt.New":                 "run --attach: refused; neutralised anyway",
		"k8s.io/kubectl/pkg/cmd/debug/debug.go: interrupt.New":             "debug --attach: refused; neutralised anyway",
		"k8s.io/kubectl/pkg/cmd/profiling.go: signal.Notify":               "--profile: os.Exit(0) on SIGINT; --profile is refused (TestProfileRefused)",
		"k8s.io/kubectl/pkg/cmd/portforward/portforward.go: signal.Notify": "port-forward: closes its stop channel, never exits; refused",
	}
	var found []string
	for _, mod := range []string{"k8s.io/kubectl", "k8s.io/cli-runtime", "k8s.io/client-go"} {
		dir := moduleDir(t, mod)
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if d.IsDir() {
				if d.Name() == "examples" || d.Name() == "testdata" || d.Name() == "testing" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, call := range []string{"signal.Notify", "interrupt.New", "interrupt.Chain"} {
				if bytes.Contains(b, []byte(call+"(")) {
					found = append(found, mod+"/"+filepath.ToSlash(rel)+": "+call)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		if _, ok := reviewed[f]; !ok {
			t.Errorf("not reviewed: %s (may it end the process on a signal while kubewalk runs kubectl in-process?)", f)
		}
	}
	for r := range reviewed {
		if !slices.Contains(found, r) {
			t.Errorf("reviewed but gone: %s (update the list)", r)
		}
	}
}

// moduleDir is the directory of a module kubewalk builds with (go list -m).
func moduleDir(t *testing.T, mod string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list -m %s: %v\n%s", mod, err, ee.Stderr)
	}
	if err != nil {
		t.Fatalf("go list -m %s: %v", mod, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		t.Fatalf("go list -m %s: no directory (module not downloaded?)", mod)
	}
	return dir
}

// TestProfileRefused: kubectl's --profile installs a SIGINT handler of its own that calls
// os.Exit(0) (pkg/cmd/profiling.go), which interrupt.go cannot reach: the runner must never
// let a command start with it, whatever Options say.
func TestProfileRefused(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	const cfg = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: t}
contexts:
- name: admin
  context: {cluster: c, user: u}
current-context: admin
`
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, noLocal := range []bool{false, true} {
		for _, args := range [][]string{
			{"get", "ns", "--profile", "cpu"},
			{"--profile=heap", "version", "--client"},
			{"get", "ns", "--profile-output", "p.out"},
		} {
			t.Run(fmt.Sprintf("%v/no-local-files=%v", args, noLocal), func(t *testing.T) {
				r, err := New(Options{Kubeconfig: kc, CacheDir: t.TempDir(), Confined: noLocal})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				var out bytes.Buffer
				_, err = r.Run(context.Background(), args, &out)
				var ref *RefusedError
				if !errors.As(err, &ref) {
					t.Fatalf("kubectl %v ran (err %v):\n%s", args, err, out.String())
				}
			})
		}
	}
}
