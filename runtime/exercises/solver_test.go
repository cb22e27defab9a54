package exercises_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/server"
)

// requireKubectl fails (never skips) when kubectl is missing: CI must run the solver.
func requireKubectl(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("kubectl is not on PATH; the solver runs the exercises' solutions with the real kubectl: %v", err)
	}
	return path
}

// englishExercises loads the embedded English exercises.
func englishExercises(t testing.TB) []lessons.Exercise {
	t.Helper()
	ls, err := lessons.Load(content.FS, lessons.DefaultLang)
	if err != nil {
		t.Fatalf("lessons: %v", err)
	}
	exs, err := lessons.LoadExercises(content.FS, lessons.DefaultLang, ls)
	if err != nil {
		t.Fatalf("exercises: %v", err)
	}
	return exs
}

// solutionRunner runs solution steps with the real kubectl against one server.
type solutionRunner struct {
	kubectl, kubeconfig, server, home string
}

// run runs one kubectl step and returns its output; it fails the test when the command's
// success is not what the step expects.
func (r solutionRunner) run(t *testing.T, ctx context.Context, step lessons.SolutionStep) string {
	t.Helper()
	args, err := lessons.SplitArgs(strings.ReplaceAll(step.Kubectl, "{server}", r.server))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(args, func(a string) bool { return a == "--kubeconfig" || strings.HasPrefix(a, "--kubeconfig=") }) {
		args = append([]string{"--kubeconfig", r.kubeconfig}, args...)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.kubectl, args...)
	// A home of its own: kubectl's discovery cache must not leak between runs.
	cmd.Env = append(os.Environ(), "HOME="+r.home, "KUBECONFIG=", "KUBECACHEDIR="+r.home+"/cache")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	switch {
	case step.Fails && err == nil:
		t.Fatalf("kubectl %s: succeeded, the solution expects it to fail\n%s", step.Kubectl, out.String())
	case !step.Fails && err != nil:
		t.Fatalf("kubectl %s: %v\n%s%s", step.Kubectl, err, out.String(), errOut.String())
	}
	return strings.TrimSpace(out.String())
}

// curl GETs path with no credentials at all, as `curl -k` does, and fails the test on a
// transport error (any HTTP answer is the server's).
func (r solutionRunner) curl(t *testing.T, ctx context.Context, path string) {
	t.Helper()
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

// TestSolver proves every exercise solvable and not solved by accident: against a fresh real
// server (embedded etcd, serving), for each exercise in lesson order, a tracker that opens it
// now finds its check not passing; then the exercise's reference solution runs (the real
// kubectl with the run's kubeconfig, or the typed answer); then the check passes.
func TestSolver(t *testing.T) {
	kubectlPath := requireKubectl(t)
	s, store := freshServer(t)
	r := solutionRunner{kubectl: kubectlPath, kubeconfig: s.Kubeconfig(), server: s.Address(), home: t.TempDir()}
	ctx := t.Context()
	for _, e := range englishExercises(t) {
		t.Run(e.ID, func(t *testing.T) {
			tr := exercises.NewTracker(exercises.Options{Exercises: []lessons.Exercise{e}, Server: s, Store: store})
			tr.Refresh(ctx)
			st, _ := tr.Get(e.ID)
			if st.State != exercises.Open {
				t.Fatalf("on a serving server the exercise is %s, want open", st.State)
			}
			if e.Typed() {
				// A wrong answer does not pass.
				if st, err := tr.Answer(ctx, e.ID, "not-the-answer"); err != nil || st.State == exercises.Done {
					t.Fatalf("a wrong answer: state %s, err %v; want not done", st.State, err)
				}
			}
			var answer string
			commands := 0
			for _, step := range e.Solution {
				switch {
				case step.Curl != "":
					commands++
					r.curl(t, ctx, step.Curl)
				case step.Kubectl != "":
					commands++
					out := r.run(t, ctx, step)
					if step.AnswerOutput {
						answer = out
					}
				default:
					answer = step.Answer
				}
			}
			if e.Typed() {
				st, err := tr.Answer(ctx, e.ID, answer)
				if err != nil {
					t.Fatalf("answer %q: %v", answer, err)
				}
				if st.State != exercises.Done {
					t.Fatalf("answer %q: not done (%s)", answer, st.LastTry)
				}
				t.Logf("%-28s %-13s not passed before; %d command(s), answered %q; passed: %s", e.ID, e.Check.Kind, commands, answer, st.Why)
				return
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				tr.Refresh(ctx)
				if st, _ := tr.Get(e.ID); st.State == exercises.Done {
					t.Logf("%-28s %-13s not passed before; %d command(s); passed: %s", e.ID, e.Check.Kind, commands, st.Why)
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("the check did not pass within 30s of the solution")
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

var _ exercises.Server = (*server.Server)(nil)
