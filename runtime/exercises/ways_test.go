package exercises_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// A way is how a learner runs the kubectl steps of a solution or near miss: the solver runs
// every exercise each way (TestSolver/<way>/<id>), so an exercise added to the content is
// checked both ways without code of its own.
type way interface {
	// run runs a kubectl step to its end and returns its output, trimmed; it fails the test
	// when the command's success is not what the step expects.
	run(t *testing.T, ctx context.Context, step lessons.SolutionStep) string
	// background starts a background step (a watch) and returns once its long-running request
	// is open on the server; stop ends it and returns what it printed.
	background(t *testing.T, ctx context.Context, step lessons.SolutionStep) (stop func() string)
	// curl runs a curl step: a GET of its path with no credentials at all.
	curl(t *testing.T, ctx context.Context, step lessons.SolutionStep)
}

// ways are the ways the solver runs every exercise, by subtest name.
var ways = []struct {
	name string
	make func(t *testing.T, s *server.Server, store *tracing.Store) way
}{
	// The real kubectl binary in a second terminal, with the run's kubeconfig.
	{"kubectl", func(t *testing.T, s *server.Server, store *tracing.Store) way {
		return solutionRunner{kubectl: requireKubectl(t), kubeconfig: s.Kubeconfig(), server: s.Address(), home: t.TempDir(), store: store}
	}},
	// The TUI's :kubectl as a class ssh student has it.
	{"tui", func(t *testing.T, s *server.Server, store *tracing.Store) way { return newTUIWay(t, s, store) }},
}

// runSteps runs a solution's or near miss's steps in order, w's way, and returns the answer they
// type (a typed step, or the output of an answerOutput step), how many commands ran, and a func
// that stops the background steps.
func runSteps(t *testing.T, ctx context.Context, w way, steps []lessons.SolutionStep) (answer string, commands int, stop func()) {
	t.Helper()
	var stops []func() string
	stop = func() {
		for _, s := range slices.Backward(stops) {
			s()
		}
		stops = nil
	}
	for _, step := range steps {
		switch {
		case step.Curl != "":
			commands++
			w.curl(t, ctx, step)
		case step.Background:
			commands++
			stops = append(stops, w.background(t, ctx, step))
		case step.Kubectl != "":
			commands++
			out := w.run(t, ctx, step)
			if step.AnswerOutput {
				answer = out
			}
		default:
			answer = step.Answer
		}
	}
	return answer, commands, stop
}

// waitLongRunning waits (bounded) until a long-running request recorded after seq is open on
// the server and answered 200; stop ends what opened it, for the failure's message.
func waitLongRunning(t *testing.T, store *tracing.Store, after uint64, what string, stop func() string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, tr := range store.Since(after, tracing.Filter{}) {
			if tr.LongRunning && tr.Code == 200 && !tr.Done {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no long-running request opened within 30s\n%s", what, stop())
		}
		time.Sleep(10 * time.Millisecond) // polling the store, within the deadline above
	}
}

// solutionRunner is the kubectl way: the real kubectl binary on PATH, as in a second terminal,
// against one server.
type solutionRunner struct {
	kubectl, kubeconfig, server, home string
	store                             *tracing.Store
}

// command makes the kubectl command of a step, with the run's kubeconfig and a home of its own.
func (r solutionRunner) command(t *testing.T, ctx context.Context, step lessons.SolutionStep) *exec.Cmd {
	t.Helper()
	args, err := lessons.SplitArgs(strings.ReplaceAll(step.Kubectl, "{server}", r.server))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(args, func(a string) bool { return a == "--kubeconfig" || strings.HasPrefix(a, "--kubeconfig=") }) {
		args = append([]string{"--kubeconfig", r.kubeconfig}, args...)
	}
	cmd := exec.CommandContext(ctx, r.kubectl, args...)
	// A home of its own: kubectl's discovery cache must not leak between runs.
	cmd.Env = append(os.Environ(), "HOME="+r.home, "KUBECONFIG=", "KUBECACHEDIR="+r.home+"/cache")
	if step.Stdin != "" {
		cmd.Stdin = strings.NewReader(step.Stdin)
	}
	return cmd
}

func (r solutionRunner) run(t *testing.T, ctx context.Context, step lessons.SolutionStep) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := r.command(t, ctx, step)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	switch {
	case step.Fails && err == nil:
		t.Fatalf("kubectl %s: succeeded, the step expects it to fail\n%s", step.Kubectl, out.String())
	case !step.Fails && err != nil:
		t.Fatalf("kubectl %s: %v\n%s%s", step.Kubectl, err, out.String(), errOut.String())
	}
	return strings.TrimSpace(out.String())
}

func (r solutionRunner) background(t *testing.T, ctx context.Context, step lessons.SolutionStep) (stop func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	cmd := r.command(t, ctx, step)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	after := r.store.Seen()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("kubectl %s: %v", step.Kubectl, err)
	}
	stop = func() string {
		cancel()
		_ = cmd.Wait()
		return out.String()
	}
	waitLongRunning(t, r.store, after, "kubectl "+step.Kubectl, stop)
	return stop
}

// curl GETs the step's path with no credentials at all, as `curl -k` does, and fails the test
// on a transport error (any HTTP answer is the server's).
func (r solutionRunner) curl(t *testing.T, ctx context.Context, step lessons.SolutionStep) {
	t.Helper()
	path := step.Curl
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.server+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // curl -k
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// tuiWay is the in-TUI way, as a student of `kubewalk class ssh` has it: each kubectl step is
// typed as `:k ARGS` and run by the TUI's in-process kubectl (runtime/kubectl's Runner, built
// as runtime/cli's newKubectl builds it under --kubectl-no-local-files: the allow-list and no
// credential plugins), a manifest (`-f -`) is typed into the pane's text box and handed over as
// the command's input, a background step is a `:k get … -w` left running — the next `:k` runs
// beside it once its watch is open, as the TUI lets it — and there is no curl.
// What is typed is the step's TUILine: its tui form when the content gives one (what the hints
// tell a student in the TUI), for a curl step `--context anonymous get --raw PATH` (the anonymous
// context sends no certificate and no token, as curl sends none). A command the TUI refuses
// fails the test, whatever the step expects — a refusal is not the server saying no — unless
// the step says tuiRefused, when it must be refused.
type tuiWay struct {
	runner *kubectl.Runner
	store  *tracing.Store
	// watching is the background command still running beside the next, if any: the TUI
	// keeps one.
	watching string
}

func newTUIWay(t *testing.T, s *server.Server, store *tracing.Store) *tuiWay {
	t.Helper()
	r, err := kubectl.New(kubectl.Options{Kubeconfig: s.Kubeconfig(), Confined: true, NoExecPlugins: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return &tuiWay{runner: r, store: store}
}

// pane is what the TUI's kubectl pane is to the runner (runtime/tui's kcRun): the writer of a
// command's output (stdout and stderr, in order), for `-f -` the manifest of the text box, and
// the observer of its requests (the TUI lets the next command run beside an open watch).
type pane struct {
	syncBuffer
	input    string
	hasInput bool

	mu      sync.Mutex
	watchOK chan struct{} // closed when a watch request is answered 200
}

// KubectlInput implements kubectl.InputProvider.
func (p *pane) KubectlInput() (string, bool) { return p.input, p.hasInput }

// ObserveRequest implements kubectl.RequestObserver.
func (p *pane) ObserveRequest(q kubectl.Request) {
	if !q.WatchOpen() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.watchOK:
	default:
		close(p.watchOK)
	}
}

// line turns a step into the arguments of `:k ARGS` and the pane it runs in, as the TUI's
// kubectlLine does: the step's TUILine split by kubectl.Split, a leading "kubectl" dropped, and
// a command that reads `-f -` given the manifest typed into the text box (the step's stdin).
func (w *tuiWay) line(t *testing.T, step lessons.SolutionStep) ([]string, *pane) {
	t.Helper()
	line := step.TUILine()
	if strings.Contains(line, "{server}") {
		t.Fatalf(":k %s: a student in the TUI has no server URL to give (--server is pinned)", line)
	}
	args, err := kubectl.Split(line)
	if err != nil {
		t.Fatalf(":k %s: %v", line, err)
	}
	if len(args) > 0 && args[0] == "kubectl" {
		args = args[1:]
	}
	p := &pane{watchOK: make(chan struct{})}
	if kubectl.ReadsStdin(args) {
		if strings.TrimSpace(step.Stdin) == "" {
			t.Fatalf(":k %s: the text box for -f - is empty; the TUI does not run it", line)
		}
		p.input, p.hasInput = step.Stdin, true
	}
	return args, p
}

// ran checks how a command run in the pane ended against what step expects and returns its
// output, trimmed: a refusal or a run that did not happen fails the test; a step that fails on
// purpose must fail with an answer from the server (a 401, 403, 404, 422), not on the way there.
func ran(t *testing.T, step lessons.SolutionStep, res kubectl.Result, err error, out string) string {
	t.Helper()
	line := step.TUILine()
	var ref *kubectl.RefusedError
	switch {
	case step.TUIRefused && !errors.As(err, &ref):
		t.Fatalf(":k %s: the step says the TUI refuses it, but it ran: exit code %d, %v\n%s", line, res.ExitCode, err, out)
	case step.TUIRefused:
		if len(res.Requests) > 0 {
			t.Fatalf(":k %s: refused after %d request(s)", line, len(res.Requests))
		}
		return ""
	case errors.As(err, &ref):
		t.Fatalf(":k %s: the TUI refuses it: %s", line, ref.Reason)
	case err != nil:
		t.Fatalf(":k %s: %v\n%s", line, err, out)
	case step.Fails && res.ExitCode == 0:
		t.Fatalf(":k %s: succeeded, the step expects it to fail\n%s", line, out)
	case !step.Fails && res.ExitCode != 0:
		t.Fatalf(":k %s: exit code %d\n%s", line, res.ExitCode, out)
	case step.Fails && !slices.ContainsFunc(res.Requests, func(q kubectl.Request) bool { return q.Code >= 400 }):
		t.Fatalf(":k %s: failed without an error answer from the server\n%s", line, out)
	}
	if step.AnswerOutput {
		// The student reads the answer off the pane, where stderr is interleaved: what they
		// type is the output without it.
		out = strings.Replace(out, res.Stderr, "", 1)
	}
	return strings.TrimSpace(out)
}

func (w *tuiWay) run(t *testing.T, ctx context.Context, step lessons.SolutionStep) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	args, p := w.line(t, step)
	res, err := w.runner.Run(ctx, args, p)
	return ran(t, step, res, err, p.String())
}

func (w *tuiWay) background(t *testing.T, ctx context.Context, step lessons.SolutionStep) (stop func() string) {
	t.Helper()
	if step.TUIRefused {
		w.run(t, ctx, step)
		return func() string { return "" }
	}
	if w.watching != "" {
		t.Fatalf(":k %s while :k %s runs beside: the TUI keeps one watch running beside the command typed", step.TUILine(), w.watching)
	}
	ctx, cancel := context.WithCancel(ctx)
	args, p := w.line(t, step)
	after := w.store.Seen()
	type ended struct {
		res kubectl.Result
		err error
	}
	done := make(chan ended, 1)
	go func() {
		res, err := w.runner.Run(ctx, args, p)
		done <- ended{res, err}
	}()
	var once sync.Once
	var end ended
	w.watching = step.TUILine()
	stop = func() string {
		once.Do(func() {
			cancel() // esc in the kubectl view
			end = <-done
			w.watching = ""
		})
		return p.String()
	}
	// The TUI runs the next command once the pane has seen the watch answered 200.
	select {
	case <-p.watchOK:
	case <-time.After(30 * time.Second):
		t.Fatalf(":k %s: no watch answered 200 within 30s\n%s", step.TUILine(), stop())
	}
	waitLongRunning(t, w.store, after, ":k "+step.TUILine(), stop)
	t.Cleanup(func() {
		stop()
		var ref *kubectl.RefusedError
		if errors.As(end.err, &ref) {
			t.Errorf(":k %s: the TUI refuses it: %s", step.TUILine(), ref.Reason)
		}
	})
	return stop
}

// curl is, in the TUI, the step's TUILine: `:k --context anonymous get --raw PATH` unless the
// content gives another (the anonymous context sends no certificate and no token, as curl sends
// none). As with curl, any answer of the server's will do (a 401 or 403 too); no answer fails
// the test.
func (w *tuiWay) curl(t *testing.T, ctx context.Context, step lessons.SolutionStep) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	args, p := w.line(t, step)
	res, err := w.runner.Run(ctx, args, p)
	var ref *kubectl.RefusedError
	switch {
	case errors.As(err, &ref):
		t.Fatalf(":k %s (for curl %s): the TUI refuses it: %s", kubectl.Quote(args), step.Curl, ref.Reason)
	case err != nil:
		t.Fatalf(":k %s (for curl %s): %v", kubectl.Quote(args), step.Curl, err)
	case !slices.ContainsFunc(res.Requests, func(q kubectl.Request) bool { return q.Code != 0 }):
		t.Fatalf(":k %s (for curl %s): no answer from the server\n%s", kubectl.Quote(args), step.Curl, p.String())
	}
}

// syncBuffer is a bytes.Buffer a command may write to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
