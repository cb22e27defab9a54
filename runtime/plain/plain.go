// Package plain is the line-mode walkthrough: the same steps as the TUI — step title, lesson
// text, a source excerpt with line numbers and markers, a state summary — written as a
// transcript. It is used without a TTY, with TERM=dumb, or with --plain. Interactive stdin waits
// for Enter between steps; anything else runs straight through and never waits for input.
package plain

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// Options control a plain run.
type Options struct {
	// Out receives the transcript.
	Out io.Writer
	// In is read for Enter between steps when Interactive is set.
	In io.Reader
	// Interactive waits for Enter between steps (stdin is a terminal and --auto is off).
	Interactive bool
	// Width wraps lesson text; 0 means 100.
	Width int
	// Context lines shown around the focus in the source excerpt; 0 means 4.
	Context int
	// Start is where the walk first pauses; the zero value is the first checkpoint. Earlier
	// checkpoints run without being printed.
	Start engine.Target
	// Traces, when set, is the store the server records into: each demo request's lane is
	// printed after its outcome, stage by stage.
	Traces *tracing.Store
}

// Walkthrough is what plain mode needs from the lessons: the step for a checkpoint and its
// source.
type Walkthrough struct {
	Lessons  []lessons.Lesson
	Source   func(step lessons.Step) (lessons.Location, error)
	Progress func(lessonID, stepID string)
}

// stepFor returns the lesson and step covering checkpoint id.
func (w Walkthrough) stepFor(id string) (lessons.Lesson, lessons.Step, bool) {
	for _, l := range w.Lessons {
		for _, s := range l.Steps {
			if s.Checkpoint == id {
				return l, s, true
			}
		}
	}
	return lessons.Lesson{}, lessons.Step{}, false
}

// errQuit is returned when the learner types q at a prompt.
var errQuit = errors.New("quit")

// Run walks eng through every checkpoint, printing each, then exercises the finished server.
// It returns nil after a complete walk (or when the learner quits with q); it does not close
// the engine.
func Run(ctx context.Context, eng *engine.Engine, w Walkthrough, o Options) error {
	if o.Width <= 0 {
		o.Width = 100
	}
	if o.Context <= 0 {
		o.Context = 4
	}
	in := bufio.NewReader(strings.NewReader(""))
	if o.In != nil {
		in = bufio.NewReader(o.In)
	}
	total := len(server.Checkpoints())
	target := engine.NextCheckpoint()
	if err := eng.Start(ctx, o.Start); err != nil {
		return err
	}
	for {
		var ev engine.Event
		select {
		case ev = <-eng.Events():
		case <-ctx.Done():
			return ctx.Err()
		}
		switch {
		case ev.Failed != nil:
			return ev.Failed
		case ev.Served:
			return finish(ctx, eng.Server(), o, in)
		}
		stop := ev.Paused
		printStop(o, w, stop, total)
		if o.Interactive {
			fmt.Fprint(o.Out, "\n[Enter] next step · [p]+Enter next phase · [a]+Enter run to the end · [q]+Enter quit › ")
			line, err := in.ReadString('\n')
			if err != nil && line == "" {
				// stdin closed: keep going without waiting, never hang.
				o.Interactive = false
			}
			switch strings.TrimSpace(line) {
			case "q":
				return errQuit
			case "p":
				target = engine.NextPhase()
			case "a":
				target, o.Interactive = engine.ToEnd(), false
			default:
				target = engine.NextCheckpoint()
			}
		}
		if err := eng.Continue(target); err != nil {
			return err
		}
	}
}

// IsQuit reports whether err is the learner quitting at a prompt.
func IsQuit(err error) bool { return errors.Is(err, errQuit) }

// printStop writes one step of the transcript.
func printStop(o Options, w Walkthrough, stop *engine.Stop, total int) {
	cp := stop.Checkpoint
	rule := strings.Repeat("─", min(o.Width, 100))
	fmt.Fprintf(o.Out, "\n%s\n[%d/%d] %s · %s — %s\n%s\n", rule, stop.Index+1, total, cp.Phase, cp.Name, cp.Title, rule)
	lesson, step, ok := w.stepFor(cp.ID())
	if !ok {
		fmt.Fprintf(o.Out, "(no lesson step covers %s)\n", cp.ID())
	} else {
		fmt.Fprintf(o.Out, "%s — %s\n\n", lesson.Title, step.Title)
		fmt.Fprintln(o.Out, wrap(strings.TrimSpace(step.Text), o.Width))
		if kube := firstNonEmpty(step.Kube, lesson.Kube); kube != "" {
			fmt.Fprintf(o.Out, "\nIn kube-apiserver: %s\n", kube)
		}
		if w.Source != nil {
			if loc, err := w.Source(step); err == nil {
				fmt.Fprintf(o.Out, "\nsource: server/%s:%d-%d (%s)\n", loc.File, loc.StartLine, loc.EndLine, step.Anchor)
				fmt.Fprint(o.Out, excerpt(loc, o.Context))
			} else {
				fmt.Fprintf(o.Out, "\nsource: %s (not resolved: %v)\n", step.Anchor, err)
			}
		}
		if step.Upstream != "" {
			fmt.Fprintf(o.Out, "upstream: %s\n", step.Upstream)
		}
		if w.Progress != nil {
			w.Progress(lesson.ID, step.ID)
		}
	}
	fmt.Fprintf(o.Out, "\nstate (%s):\n", cp.Phase)
	for _, n := range stop.State.Children {
		if n.Label == string(cp.Phase) {
			fmt.Fprint(o.Out, indent(summarise(n, 3), "  "))
		}
	}
	if len(stop.Timings) > 0 {
		var ts []string
		for _, t := range stop.Timings {
			ts = append(ts, fmt.Sprintf("%s %s", t.Phase, t.Duration.Round(time.Millisecond)))
		}
		fmt.Fprintf(o.Out, "phases done: %s\n", strings.Join(ts, " → "))
	}
}

// excerpt returns the focus lines with ctx lines around them, numbered, focus marked with ▶.
func excerpt(loc lessons.Location, ctx int) string {
	lines := strings.Split(string(loc.Source), "\n")
	from := max(loc.StartLine, loc.FocusStart-ctx)
	to := min(loc.EndLine, loc.FocusEnd+ctx)
	var b strings.Builder
	for n := from; n <= to && n <= len(lines); n++ {
		mark := " "
		if n >= loc.FocusStart && n <= loc.FocusEnd {
			mark = "▶"
		}
		fmt.Fprintf(&b, "%s %4d │ %s\n", mark, n, strings.ReplaceAll(lines[n-1], "\t", "    "))
	}
	return b.String()
}

// summarise renders a state subtree to depth levels, eliding the rest.
func summarise(n *server.Node, depth int) string {
	var b strings.Builder
	var walk func(n *server.Node, d int)
	walk = func(n *server.Node, d int) {
		for _, c := range n.Children {
			b.WriteString(strings.Repeat("  ", d))
			b.WriteString(c.Label)
			if c.Value != "" {
				b.WriteString(": " + c.Value)
			}
			if d+1 >= depth && len(c.Children) > 0 {
				fmt.Fprintf(&b, " (+%d)", len(c.Children))
				b.WriteByte('\n')
				continue
			}
			b.WriteByte('\n')
			walk(c, d+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// finish prints how to reach the served server and sends a few real requests through it, as
// admin, alice and bob, printing each outcome. Interactive runs then wait for Enter.
func finish(ctx context.Context, s *server.Server, o Options, in *bufio.Reader) error {
	fmt.Fprintf(o.Out, "\n%s\nThe server is serving at %s\n", strings.Repeat("═", min(o.Width, 100)), s.Address())
	fmt.Fprintf(o.Out, "kubeconfig: %s (contexts: admin, alice, bob)\n", s.Kubeconfig())
	fmt.Fprintf(o.Out, "  export KUBECONFIG=%s; kubectl get ns\n\n", s.Kubeconfig())
	fmt.Fprintln(o.Out, "Requests through the chain you just built:")
	for _, r := range demoRequests() {
		res, auditID := outcome(ctx, s, r)
		fmt.Fprintf(o.Out, "  %-7s %-52s → %s\n", r.who, r.what, res)
		printLane(ctx, o, auditID)
	}
	if o.Interactive {
		fmt.Fprint(o.Out, "\nThe server keeps running for kubectl. Press Enter to stop it › ")
		select {
		case <-readLine(in):
		case <-ctx.Done():
		case <-s.Exited():
		}
	}
	return nil
}

// printLane prints the lane of the request with audit ID id, once it has finished.
func printLane(ctx context.Context, o Options, id string) {
	if o.Traces == nil || id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if tr, ok := o.Traces.WaitDone(ctx, id); ok {
		tracing.WriteLane(o.Out, tr, "      ")
	}
}

// readLine reads one line in the background and closes the channel when done.
func readLine(in *bufio.Reader) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		_, _ = in.ReadString('\n')
		close(done)
	}()
	return done
}

type demoRequest struct {
	who  string // kubeconfig context, "" for anonymous
	what string
	do   func(ctx context.Context, c kubernetes.Interface) error
	path string // raw GET instead of do
}

func demoRequests() []demoRequest {
	return []demoRequest{
		{who: "", what: "GET /healthz", path: "/healthz"},
		{who: "", what: "GET /api", path: "/api"},
		{who: "admin", what: "list namespaces", do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
			return err
		}},
		{who: "alice", what: "create configmap default/plain-demo", do: func(ctx context.Context, c kubernetes.Interface) error {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "plain-demo-"}, Data: map[string]string{"from": "plain mode"}}
			_, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
			return err
		}},
		{who: "alice", what: "list secrets in default", do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{who: "bob", what: "list configmaps in default", do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{who: "admin", what: "create pod with image nginx:latest", do: func(ctx context.Context, c kubernetes.Interface) error {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "latest-"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:latest"}}}}
			_, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
			return err
		}},
	}
}

// outcome runs one demo request and describes the result in a few words; it also returns
// the request's audit ID (its Audit-Id response header, "" if none came back).
func outcome(ctx context.Context, s *server.Server, r demoRequest) (string, string) {
	cfg, err := s.RESTConfig(r.who)
	if err != nil {
		return "error: " + err.Error(), ""
	}
	var auditID string
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if resp != nil {
				auditID = resp.Header.Get("Audit-Id")
			}
			return resp, err
		})
	})
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if r.path != "" {
		client, err := restHTTPClient(cfg)
		if err != nil {
			return "error: " + err.Error(), auditID
		}
		defer client.CloseIdleConnections()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+r.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			return "error: " + err.Error(), auditID
		}
		resp.Body.Close()
		return resp.Status, auditID
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return "error: " + err.Error(), auditID
	}
	err = r.do(ctx, c)
	if err == nil {
		return "200/201 allowed", auditID
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return fmt.Sprintf("%d %s: %s", st.Status().Code, st.Status().Reason, firstLine(st.Status().Message, 90)), auditID
	}
	return "error: " + err.Error(), auditID
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
