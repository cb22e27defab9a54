// Package plain is the line-mode walkthrough: the same steps as the TUI — step title, lesson
// text, a source excerpt with line numbers and markers, a state summary — written as a
// transcript. It is used without a TTY, with TERM=dumb, or with --plain. Interactive stdin waits
// for Enter between steps and keeps the finished server running until Enter or Ctrl-C; anything
// else runs straight through, never waits for input, and stops the server at the end.
package plain

import (
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
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/live"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// Options control a plain run.
type Options struct {
	// Out receives the transcript.
	Out io.Writer
	// In is read for the answers to the prompts when Interactive is set; nil is an empty input.
	In *Lines
	// Interactive waits for Enter between steps and, at the end, keeps the server running until
	// Enter (stdin is a terminal and --auto is off). Answering "a" stops the pauses only.
	Interactive bool
	// Width is the transcript's width: lesson text is wrapped to it, and every longer line is
	// folded at its spaces. 0 means DefaultWidth; TerminalWidth gives the terminal's.
	Width int
	// Context lines shown around the focus in the source excerpt; 0 means 4.
	Context int
	// Start is where the walk first pauses; the zero value is the first checkpoint. Earlier
	// checkpoints run without being printed.
	Start engine.Target
	// Traces, when set, is the store the server records into: each demo request's lane is
	// printed after its outcome, stage by stage.
	Traces *tracing.Store
	// Lang is the language of the transcript's own words ("en", "zh-CN"); empty takes the
	// language the lessons were loaded in.
	Lang string
	// Follow, when set, makes the walk follow a class (kubewalk join without a terminal): there
	// are no prompts; after each checkpoint the walk waits for the instructor to be further on
	// and runs there, printing the instructor's messages as lines. The walk reports every
	// checkpoint to the class.
	Follow Class
	// Reached, when set, is called with the place of every pause, with the serving server once
	// it serves and with every step of the after-serve track printed (class host publishes
	// them to its students).
	Reached func(p Place)
	// Delay, when not Interactive, pauses this long at each checkpoint (class host --auto: the
	// students' servers follow each one).
	Delay time.Duration
	// KeepOpen, when set, is printed once the walk is done, which then waits for ctx to end
	// instead of ending the run: a class stays open until Ctrl-C. The server keeps running.
	KeepOpen string
}

// strings returns the catalogue in o.Lang, else in the lessons' language.
func (o Options) strings(w Walkthrough) *i18n.Strings {
	lang := o.Lang
	if lang == "" && len(w.Lessons) > 0 {
		lang = w.Lessons[0].Lang
	}
	return i18n.For(lang)
}

// Walkthrough is what plain mode needs from the lessons: the step for a checkpoint and its
// source, and the exercises listed after each lesson's last step.
type Walkthrough struct {
	Lessons  []lessons.Lesson
	Source   func(step lessons.Step) (lessons.Location, error)
	Progress func(lessonID, stepID string)
	// Exercises are listed (title and goal, never the solution) after their lesson's steps;
	// ExerciseDone, when set, says which are done already (marked ✓, the others ○).
	Exercises    []lessons.Exercise
	ExerciseDone func(id string) bool
}

// printExercises lists the exercises of lesson l, if it has any.
func (w Walkthrough) printExercises(o Options, tr *i18n.Strings, l lessons.Lesson) {
	first := true
	for _, e := range w.Exercises {
		if e.Lesson != l.ID {
			continue
		}
		if first {
			fmt.Fprintf(o.Out, "\n%s\n", tr.PlainExercises)
			first = false
		}
		mark := "○"
		if w.ExerciseDone != nil && w.ExerciseDone(e.ID) {
			mark = "✓"
		}
		fmt.Fprintln(o.Out, wrap(fmt.Sprintf(tr.PlainExercise, mark, e.Title, e.Goal), o.Width))
	}
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
// It returns nil after a complete walk (or when the learner quits with q), ctx's error as soon
// as ctx ends (also while a prompt waits); it does not close the engine.
func Run(ctx context.Context, eng *engine.Engine, w Walkthrough, o Options) error {
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	o.Out = newFoldWriter(o.Out, o.Width)
	if o.Context <= 0 {
		o.Context = 4
	}
	if o.In == nil {
		o.In = NewLines(nil)
	}
	tr := o.strings(w)
	var class *follower
	if o.Follow != nil {
		// The class decides where to go: no prompts, and no resuming elsewhere.
		o.Interactive, o.Start = false, engine.NextCheckpoint()
		class = newFollower(o.Follow, tr, w.Exercises)
		fmt.Fprintln(o.Out, tr.PlainFollowNoKeys)
	}
	pause := o.Interactive
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
			if o.Reached != nil {
				o.Reached(servedPlace(""))
			}
			if class != nil {
				class.report(w, servedPlace(""))
			}
			if err := finish(ctx, eng.Server(), w, o, tr, pause, class); err != nil || o.KeepOpen == "" {
				return err
			}
			fmt.Fprintf(o.Out, "\n%s\n", o.KeepOpen)
			if class != nil {
				return class.listen(ctx, o)
			}
			<-ctx.Done()
			return ctx.Err()
		}
		stop := ev.Paused
		printStop(o, tr, w, stop, total)
		if o.Reached != nil {
			o.Reached(Place{Checkpoint: stop.Checkpoint.ID()})
		}
		switch {
		case class != nil:
			class.report(w, Place{Checkpoint: stop.Checkpoint.ID()})
			t, err := class.next(ctx, o, stop.Checkpoint.ID())
			if err != nil {
				fmt.Fprintln(o.Out)
				return err
			}
			target = t
		case !pause && o.Delay > 0:
			if err := wait(ctx, o.Delay); err != nil {
				return err
			}
		}
		if pause {
			fmt.Fprint(o.Out, "\n"+tr.PlainPrompt)
			line, err := o.In.ReadLine(ctx)
			if ctx.Err() != nil {
				fmt.Fprintln(o.Out)
				return ctx.Err()
			}
			if err != nil && line == "" {
				// stdin closed: keep going without waiting, never hang.
				pause, o.Interactive = false, false
			}
			switch strings.TrimSpace(line) {
			case "q":
				return errQuit
			case "p":
				target = engine.NextPhase()
			case "a":
				target, pause = engine.ToEnd(), false
			default:
				target = engine.NextCheckpoint()
			}
		}
		if err := eng.Continue(target); err != nil {
			return err
		}
	}
}

// servedPlace is the place of the serving server, on track step step ("" none).
func servedPlace(step string) Place {
	all := server.Checkpoints()
	return Place{Checkpoint: all[len(all)-1].ID(), Served: true, Step: step}
}

// IsQuit reports whether err is the learner quitting at a prompt.
func IsQuit(err error) bool { return errors.Is(err, errQuit) }

// printStop writes one step of the transcript.
func printStop(o Options, tr *i18n.Strings, w Walkthrough, stop *engine.Stop, total int) {
	cp := stop.Checkpoint
	rule := strings.Repeat("─", min(o.Width, 100))
	lesson, step, ok := w.stepFor(cp.ID())
	if ok && tr.Lang() != i18n.English {
		// The checkpoint's title is the server's English; the translated step title follows.
		fmt.Fprintf(o.Out, "\n%s\n[%d/%d] %s · %s\n%s\n", rule, stop.Index+1, total, cp.Phase, cp.Name, rule)
	} else {
		fmt.Fprintf(o.Out, "\n%s\n[%d/%d] %s · %s — %s\n%s\n", rule, stop.Index+1, total, cp.Phase, cp.Name, cp.Title, rule)
	}
	if !ok {
		fmt.Fprintf(o.Out, tr.PlainNoStep+"\n", cp.ID())
	} else {
		fmt.Fprintf(o.Out, "%s — %s\n\n", lesson.Title, step.Title)
		fmt.Fprintln(o.Out, wrap(strings.TrimSpace(step.Text), o.Width))
		if kube := firstNonEmpty(step.Kube, lesson.Kube); kube != "" {
			fmt.Fprintf(o.Out, "\n"+tr.PlainKube+"\n", kube)
		}
		if w.Source != nil {
			if loc, err := w.Source(step); err == nil {
				fmt.Fprintf(o.Out, "\n"+tr.PlainSource+"\n", loc.File, loc.StartLine, loc.EndLine, step.Anchor)
				fmt.Fprint(o.Out, excerpt(loc, o.Context))
			} else {
				fmt.Fprintf(o.Out, "\n"+tr.PlainSourceError+"\n", step.Anchor, err)
			}
		}
		if step.Upstream != "" {
			fmt.Fprintf(o.Out, tr.PlainUpstream+"\n", step.Upstream)
		}
		if w.Progress != nil {
			w.Progress(lesson.ID, step.ID)
		}
		if len(lesson.Steps) > 0 && lesson.Steps[len(lesson.Steps)-1].ID == step.ID {
			w.printExercises(o, tr, lesson)
		}
	}
	fmt.Fprintf(o.Out, "\n"+tr.PlainState+"\n", cp.Phase)
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
		fmt.Fprintf(o.Out, tr.PlainPhasesDone+"\n", strings.Join(ts, " → "))
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

// finish sends a few real requests through the served server, as admin, alice and bob, printing
// each outcome. Interactive runs print how to reach the server with kubectl and keep it running
// until Enter (nil) or ctx ends (ctx's error); other runs say that the server stops now and
// print no instructions that could not be followed. pause is false once the learner answered
// "a": the track then prints without stopping too.
func finish(ctx context.Context, s *server.Server, w Walkthrough, o Options, tr *i18n.Strings, pause bool, class *follower) error {
	fmt.Fprintf(o.Out, "\n%s\n"+tr.PlainServing+"\n", strings.Repeat("═", min(o.Width, 100)), s.Address())
	if o.Interactive || o.KeepOpen != "" {
		fmt.Fprintf(o.Out, tr.PlainKubeconfig+"\n", s.Kubeconfig())
		fmt.Fprintf(o.Out, tr.PlainExport+"\n", s.Kubeconfig())
	}
	fmt.Fprintln(o.Out, "\n"+tr.PlainRequests)
	for _, r := range demoRequests(tr) {
		// Padded in terminal cells: a CJK description is two cells a character.
		res, auditID := outcome(ctx, s, r, tr)
		fmt.Fprintf(o.Out, "  %s %s → %s\n", i18n.PadRight(r.who, 7), i18n.PadRight(r.what, 52), res)
		printLane(ctx, o, tr, auditID)
	}
	if err := printTrack(ctx, s, w, o, tr, pause, class); err != nil {
		return err
	}
	switch {
	case o.KeepOpen != "":
		return nil // the server keeps running while the class is open
	case !o.Interactive:
		fmt.Fprintln(o.Out, "\n"+wrap(tr.PlainNoTerminal, o.Width))
		return nil
	}
	fmt.Fprint(o.Out, "\n"+tr.PlainKeepsRunning)
	wait, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.Exited():
			cancel()
		case <-wait.Done():
		}
	}()
	_, _ = o.In.ReadLine(wait)
	if ctx.Err() != nil {
		fmt.Fprintln(o.Out)
		return ctx.Err()
	}
	return nil
}

// printTrack prints the after-serve lessons step by step, each with the tree its live probe
// reads from s now, and each lesson's exercises after its last step; with pause set it waits
// for Enter between steps ("q" leaves the track). Following a class, it prints each step once
// the instructor has shown it; a class host publishes each step it prints, pausing o.Delay
// after each when it runs on its own.
func printTrack(ctx context.Context, s *server.Server, w Walkthrough, o Options, tr *i18n.Strings, pause bool, class *follower) error {
	var steps []struct {
		l lessons.Lesson
		s lessons.Step
	}
	for _, l := range w.Lessons {
		if l.Track == lessons.TrackAfterServe {
			for _, st := range l.Steps {
				steps = append(steps, struct {
					l lessons.Lesson
					s lessons.Step
				}{l, st})
			}
		}
	}
	if len(steps) == 0 {
		return nil
	}
	ids := make([]string, len(steps))
	for i, x := range steps {
		ids[i] = x.l.ID + "/" + x.s.ID
	}
	rule := strings.Repeat("─", min(o.Width, 100))
	fmt.Fprintf(o.Out, "\n%s\n%s\n", strings.Repeat("═", min(o.Width, 100)), wrap(tr.PlainTrack, o.Width))
	for i, x := range steps {
		if class != nil {
			if err := class.toStep(ctx, o, i, ids); err != nil {
				fmt.Fprintln(o.Out)
				return err
			}
			class.report(w, servedPlace(ids[i]))
		}
		if o.Reached != nil {
			o.Reached(servedPlace(ids[i]))
		}
		fmt.Fprintf(o.Out, "\n%s\n[%d/%d] %s — %s\n%s\n", rule, i+1, len(steps), x.l.Title, x.s.Title, rule)
		fmt.Fprintln(o.Out, wrap(strings.TrimSpace(x.s.Text), o.Width))
		if kube := firstNonEmpty(x.s.Kube, x.l.Kube); kube != "" {
			fmt.Fprintf(o.Out, "\n"+tr.PlainKube+"\n", kube)
		}
		if w.Source != nil {
			if loc, err := w.Source(x.s); err == nil {
				fmt.Fprintf(o.Out, "\n"+tr.PlainSource+"\n", loc.File, loc.StartLine, loc.EndLine, x.s.Anchor)
				fmt.Fprint(o.Out, excerpt(loc, o.Context))
			} else {
				fmt.Fprintf(o.Out, "\n"+tr.PlainSourceError+"\n", x.s.Anchor, err)
			}
		}
		if x.s.Upstream != "" {
			fmt.Fprintf(o.Out, tr.PlainUpstream+"\n", x.s.Upstream)
		}
		if x.s.Live != "" {
			pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			n, err := live.Run(pctx, s, x.s.Live, tr)
			cancel()
			if err != nil {
				fmt.Fprintf(o.Out, "\n"+tr.PlainLiveError+"\n", x.s.Live, err)
			} else {
				fmt.Fprintf(o.Out, "\n"+tr.PlainLive+"\n", x.s.Live)
				fmt.Fprint(o.Out, indent(summarise(n.Children[0], 3), "  "))
			}
		}
		if w.Progress != nil {
			w.Progress(x.l.ID, x.s.ID)
		}
		if x.l.Steps[len(x.l.Steps)-1].ID == x.s.ID {
			w.printExercises(o, tr, x.l)
		}
		if !pause && o.Delay > 0 && o.Reached != nil && i < len(steps)-1 {
			if err := wait(ctx, o.Delay); err != nil { // the class's students follow each step
				return err
			}
		}
		if !pause || i == len(steps)-1 {
			continue
		}
		fmt.Fprint(o.Out, "\n"+tr.PlainTrackPrompt)
		line, err := o.In.ReadLine(ctx)
		if ctx.Err() != nil {
			fmt.Fprintln(o.Out)
			return ctx.Err()
		}
		if strings.TrimSpace(line) == "q" || (err != nil && line == "") {
			return nil
		}
	}
	return nil
}

// printLane prints the lane of the request with audit ID id, once it has finished, in the
// transcript's language.
func printLane(ctx context.Context, o Options, tr *i18n.Strings, id string) {
	if o.Traces == nil || id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if t, ok := o.Traces.WaitDone(ctx, id); ok {
		tracing.WriteLane(o.Out, t, "      ", tr)
	}
}

type demoRequest struct {
	who  string // kubeconfig context, "" for anonymous
	what string
	do   func(ctx context.Context, c kubernetes.Interface) error
	path string // raw GET instead of do
}

func demoRequests(tr *i18n.Strings) []demoRequest {
	return []demoRequest{
		{who: "", what: "GET /healthz", path: "/healthz"},
		{who: "", what: "GET /api", path: "/api"},
		{who: "admin", what: tr.DemoListNS, do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
			return err
		}},
		{who: "alice", what: tr.DemoCreateCM, do: func(ctx context.Context, c kubernetes.Interface) error {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "plain-demo-"}, Data: map[string]string{"from": "plain mode"}}
			_, err := c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
			return err
		}},
		{who: "alice", what: tr.DemoListSecrets, do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{who: "bob", what: tr.DemoListCM, do: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
			return err
		}},
		{who: "admin", what: tr.DemoCreatePod, do: func(ctx context.Context, c kubernetes.Interface) error {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "latest-"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:latest"}}}}
			_, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
			return err
		}},
	}
}

// outcome runs one demo request and describes the result in a few words; it also returns
// the request's audit ID (its Audit-Id response header, "" if none came back).
func outcome(ctx context.Context, s *server.Server, r demoRequest, tr *i18n.Strings) (string, string) {
	fail := func(err error) string { return fmt.Sprintf(tr.PlainError, err.Error()) }
	cfg, err := s.RESTConfig(r.who)
	if err != nil {
		return fail(err), ""
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
			return fail(err), auditID
		}
		defer client.CloseIdleConnections()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+r.path, nil)
		resp, err := client.Do(req)
		if err != nil {
			return fail(err), auditID
		}
		resp.Body.Close()
		return resp.Status, auditID
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fail(err), auditID
	}
	err = r.do(ctx, c)
	if err == nil {
		return tr.PlainAllowed, auditID
	}
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return fmt.Sprintf("%d %s: %s", st.Status().Code, st.Status().Reason, firstLine(st.Status().Message, 90)), auditID
	}
	return fail(err), auditID
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
