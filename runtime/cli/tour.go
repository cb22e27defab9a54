package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/logs"
	"github.com/kubewalk/kubewalk/runtime/plain"
	"github.com/kubewalk/kubewalk/runtime/tui"
	"github.com/kubewalk/kubewalk/server"
)

// tourOptions are the walkthrough's flags: the serve flags plus how to show it.
type tourOptions struct {
	serveOptions
	Plain bool
	// Auto runs through the walkthrough on its own (--auto[=DELAY]).
	Auto    autoFlag
	Lang    string
	Restart bool
	// Record is --record's file: an asciicast v2 recording of the screen, or "".
	Record string
	// Theme is --theme: the full-screen UI's look (tui.Themes).
	Theme string
	// ResetExercises forgets the exercises done and the hints shown; --restart keeps them.
	ResetExercises bool
	// KubectlNoLocalFiles (hidden --kubectl-no-local-files, set by `class ssh` for its
	// sessions) confines the in-TUI kubectl to its allow-list (kubectl.Options.Confined): the
	// learner is not this machine's user.
	KubectlNoLocalFiles bool
	// KubectlNoExecPlugins (hidden --kubectl-no-exec-plugins, set by `class ssh`) refuses
	// kubeconfig users with credential plugins (kubectl.Options.NoExecPlugins).
	KubectlNoExecPlugins bool
	// KubectlUnguarded (hidden --kubectl-unguarded) drops the in-TUI kubectl's allow-list and
	// pins (kubectl.Options.Unguarded): only for the class's escape tests.
	KubectlUnguarded bool
	// class, when set, wires a follow-along class into the walkthrough (class host, join).
	class *classSetup
}

// classSetup wires a follow-along class into the tour: start is called once the flags are
// checked and the log file is open, before the server starts; it returns the class's parts
// (the instructor's or the student's), whose stop the tour calls as it ends.
type classSetup struct {
	follows bool // a student: no resume question, the class decides where to go
	start   func(ctx context.Context, log io.Writer, stdout io.Writer, lang string, ls []lessons.Lesson) (classParts, error)
}

// classParts are a class's sides: host on the instructor's screen; follow on a student's and
// plainFollow in a student's plain transcript (join without a terminal).
type classParts struct {
	host        tui.ClassHost
	follow      tui.ClassFollower
	plainFollow plain.Class
	stop        func()
}

func newTourCommand(stdout, stderr io.Writer, sess *session) *cobra.Command {
	o := &tourOptions{}
	cmd := &cobra.Command{
		Use:   "tour",
		Short: "Walk through the live server's startup, pausing at every checkpoint (the default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTour(cmd.Context(), o, stdout, stderr, sess)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (o *tourOptions) addFlags(cmd *cobra.Command) {
	o.serveOptions.addFlags(cmd.Flags())
	fs := cmd.Flags()
	fs.BoolVar(&o.Plain, "plain", false, "line-mode transcript instead of the full-screen UI")
	fs.Var(&o.Auto, "auto", "run through the walkthrough on its own; in the full-screen UI it pauses DELAY at each checkpoint (default 3s: --auto, --auto=5s) and any key takes over; plain mode does not stop")
	fs.Lookup("auto").NoOptDefVal = "true"
	fs.StringVar(&o.Theme, "theme", "default", "the full-screen UI's look: default, or projector (high contrast, larger chain markers, for a class reading one screen)")
	fs.StringVar(&o.Record, "record", "", "write an asciicast v2 recording of the screen to `FILE` (mode 0600; an existing file is never overwritten)")
	fs.StringVar(&o.Lang, "lang", "", "language of the lessons and screens (en, zh-CN); default from LANGUAGE, LC_ALL, LC_MESSAGES, LANG")
	fs.BoolVar(&o.Restart, "restart", false, "start the lessons' steps over (exercises done stay done; see --reset-exercises)")
	fs.BoolVar(&o.ResetExercises, "reset-exercises", false, "forget the exercises done and the hints shown")
	fs.BoolVar(&o.KubectlNoLocalFiles, "kubectl-no-local-files", false, "the in-UI kubectl refuses to read or write this machine's files (set by class ssh for its students)")
	fs.BoolVar(&o.KubectlNoExecPlugins, "kubectl-no-exec-plugins", false, "the in-UI kubectl refuses kubeconfig users with credential plugins (set by class ssh for its students)")
	fs.BoolVar(&o.KubectlUnguarded, "kubectl-unguarded", false, "the in-UI kubectl runs without its allow-list and pinned flags: only for the class sandbox's escape tests")
	for _, f := range []string{"kubectl-no-local-files", "kubectl-no-exec-plugins", "kubectl-unguarded"} {
		_ = fs.MarkHidden(f)
	}
	o.addTourTraceFlags(fs)
}

// runTour starts the walkthrough: the full-screen UI on a terminal, plain mode otherwise. The
// flags, the language and the log file are checked before anything is printed or the terminal
// is touched.
func runTour(ctx context.Context, o *tourOptions, stdout, stderr io.Writer, sess *session) error {
	opts := o.serverOptions(nil)
	if err := opts.Validate(); err != nil {
		return fmt.Errorf(msgs(o.Lang).ErrFlags, err)
	}
	traces, err := o.newTourTracing()
	if err != nil {
		return err
	}
	lang := lessons.DetectLang(o.Lang, os.Getenv)
	if o.Lang != "" {
		if _, ok := lessons.NormalizeLang(o.Lang); !ok {
			return fmt.Errorf(msgs("").ErrBadLang, o.Lang)
		}
	}
	styles, ok := tui.ThemeStyles(o.Theme)
	if !ok {
		return fmt.Errorf(i18n.For(lang).ErrTheme, o.Theme, strings.Join(tui.Themes, ", "))
	}
	ls, lerr := lessons.Load(content.FS, lang)
	if len(ls) == 0 {
		return fmt.Errorf(i18n.For(lang).ErrLessons, lerr)
	}

	usePlain := o.Plain
	if err := tui.Usable(); err != nil {
		usePlain = true
	}
	sink, err := logs.Open(o.LogFile, o.Verbosity, true)
	if err != nil {
		return err
	}
	defer sink.Close()
	rec, err := startRecording(o.Record, i18n.For(lang))
	if err != nil {
		return err
	}
	defer endRecording(rec, o.Record, i18n.For(lang), sink.Stderr) // fd 2 now goes to the log file
	sess.logFile(sink.Path)
	if ctx.Err() != nil {
		return errInterrupted
	}
	interactive := !o.Auto.on && term.IsTerminal(int(os.Stdin.Fd()))
	var class classParts
	if o.class != nil {
		class, err = o.class.start(ctx, sink.File, stdout, lang, ls)
		if err != nil {
			return err
		}
		defer class.stop()
		// After the class answered, so that a busy port is what is reported. Without a
		// terminal no one could step the instructor's tour: it runs on its own or not at all.
		if usePlain && class.host != nil && !interactive && !o.Auto.on {
			return errors.New(i18n.For(lang).CLIClassNeedsTerminal)
		}
	}
	sopts := o.serverOptions(sink.File)
	sopts.Track = sess.owns
	sopts.KubeconfigWait = kubeconfigWaitNotice(sink.Stderr, i18n.For(lang))
	eng, err := engine.NewContext(ctx, traces.apply(sopts))
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	defer eng.Close()
	defer traces.Breakpoints.Close() // before the server stops: no request stays held
	etcd := newEtcdBrowser(eng.Server(), i18n.For(lang))
	defer etcd.Close()
	// shutdown closes the engine; after an interrupt it says so first, on the terminal.
	shutdown := func(interrupted bool) error {
		if interrupted {
			fmt.Fprintln(sink.Stderr, "kubewalk: "+i18n.For(lang).CLIShuttingDown)
			eng.Server().Stopping()
			e2eHooks.shutdown()
		}
		traces.Breakpoints.Close() // before the server stops: no request stays held
		_ = etcd.Close()           // its watches end before the etcd client does
		return eng.Close()
	}

	prog := newProgressRecorder(ls, o.Restart, o.ResetExercises, sink.Stderr)
	exs, exErr := lessons.LoadExercises(content.FS, lang, ls)
	if exErr != nil {
		// Never behind the TUI's back: the sound exercises are used, the problems logged.
		fmt.Fprintf(sink.File, "kubewalk: exercises: %v\n", exErr)
	}
	defer prog.save()
	lines := plain.NewLines(os.Stdin)
	start := engine.NextCheckpoint()
	if interactive && !o.Restart && (o.class == nil || !o.class.follows) {
		if start, err = offerResume(ctx, prog, lines, stdout); err != nil {
			return errInterrupted // nothing started yet; the deferred Close has nothing to stop
		}
	}

	if usePlain {
		if len(o.Breaks) > 0 {
			// No one could step or release a held request here: the demo requests would stall.
			fmt.Fprintln(stderr, "kubewalk: --break holds requests only in the full-screen UI; plain mode ignores it")
			traces.Breakpoints.Clear()
		}
		res := lessons.NewResolver()
		w := plain.Walkthrough{
			Lessons: ls,
			Source: func(s lessons.Step) (lessons.Location, error) {
				return res.Local(server.SourceFS, s.Anchor, s.Focus)
			},
			Progress:     plainProgress(prog, interactive),
			Exercises:    exs,
			ExerciseDone: prog.exerciseIsDone,
		}
		out := stdout
		if rec != nil {
			out = rec.TeeCooked(stdout)
		}
		popts := plain.Options{Out: out, In: lines, Interactive: interactive, Start: start, Traces: traces.Store,
			Width: plain.TerminalWidth(os.Stdout, os.Getenv)}
		plainClass(&popts, class, o, i18n.For(lang), interactive)
		err := plain.Run(ctx, eng, w, popts)
		interrupted := ctx.Err() != nil
		closeErr := shutdown(interrupted)
		switch {
		case interrupted:
			return errInterrupted
		case plain.IsQuit(err):
			err = nil
		}
		if closeErr != nil && err == nil {
			err = fmt.Errorf(i18n.For(lang).ErrShutdown, closeErr)
		}
		return err
	}

	c := tui.NewLessonContent(ls, server.SourceFS)
	tracker := exercises.NewTracker(exercises.Options{Exercises: exs, Server: eng.Server(), Store: traces.Store,
		Progress: prog.exerciseRecords(), OnHint: prog.exerciseHints, Strings: i18n.For(lang),
		OnDone: func(id, why string) {
			prog.exerciseDone(id, why)
			fmt.Fprintf(sink.File, "kubewalk: exercise %s done: %s\n", id, why)
		}})
	trackCtx, stopTracking := context.WithCancel(ctx)
	tracking := make(chan struct{})
	go func() { defer close(tracking); tracker.Run(trackCtx) }()
	stopTracker := func() { stopTracking(); <-tracking }
	defer stopTracker()
	sess.terminalTaken(true)
	err = tui.Run(ctx, eng, recordingContent{c, prog}, tui.Options{Start: start,
		ShowWelcome: !prog.welcomeSeen(), OnWelcomeDismissed: prog.welcomeDismissed,
		Auto: o.Auto.delay, Record: tuiRecorder(rec), Styles: styles,
		NewKubectl: o.newKubectl, Exercises: exerciseView{tracker}, NoFetch: o.KubectlNoLocalFiles,
		Progress: prog.record,
		Requests: traces.Store, Breakpoints: tuiBreakpoints{traces.Breakpoints}, Etcd: etcd,
		Class: class.host, Follow: class.follow})
	sess.terminalTaken(false)
	stopTracker() // its checks talk to the server: stop them before it stops
	interrupted := ctx.Err() != nil || errors.Is(err, tui.ErrInterrupted)
	if errors.Is(err, tui.ErrInterrupted) {
		// Ctrl-C was a key press in raw mode, not a signal: count it as the first interrupt, so
		// that one more Ctrl-C ends a shutdown that hangs.
		sess.interruptedInUI()
	}
	closeErr := shutdown(interrupted)
	if interrupted {
		return errInterrupted
	}
	if closeErr != nil && err == nil {
		err = fmt.Errorf(i18n.For(lang).ErrShutdown, closeErr)
	}
	return err
}

// plainProgress is how a plain walkthrough records the steps it shows. A run nobody steps (stdin
// not a terminal, or --auto) prints every step straight through and records none: nobody read
// them at a pause, so the next run must not offer to resume after them. Such a run leaves the
// progress file as it was, unless --reset-exercises asked to clear the exercises.
func plainProgress(p *progressRecorder, interactive bool) func(lessonID, stepID string) {
	if !interactive {
		return nil
	}
	return p.record
}

// plainClass wires a class into a plain transcript. A student's follows the instructor and
// stays in the class (the server running) until Ctrl-C. The instructor's publishes every
// pause, after printing the join line; run on its own (--auto) it pauses --auto's delay at
// each checkpoint for the students to follow, then keeps the class open until Ctrl-C.
func plainClass(po *plain.Options, class classParts, o *tourOptions, tr *i18n.Strings, interactive bool) {
	if class.plainFollow != nil {
		po.Follow, po.KeepOpen = class.plainFollow, tr.PlainClassOpenStudent
	}
	h := class.host
	if h == nil {
		return
	}
	po.Reached = func(p plain.Place) { h.Reached(tui.ClassPlace(p)) }
	fmt.Fprintln(po.Out, fmt.Sprintf(tr.ClassJoinBanner, h.JoinLine()))
	if h.LoopbackOnly() {
		fmt.Fprintln(po.Out, fmt.Sprintf(tr.ClassLoopbackHint, tui.JoinPort(h.JoinLine())))
	}
	if !interactive {
		po.Delay, po.KeepOpen = o.Auto.delay, tr.PlainClassOpenHost
	}
}

// newKubectl runs the TUI's :kubectl in-process against the run's kubeconfig; kubectl's
// discovery cache goes to a private temporary directory that the TUI removes when it ends.
// Under --kubectl-no-local-files it runs only what its allow-list names.
func (o *tourOptions) newKubectl(kubeconfig string) (tui.Kubectl, error) {
	return kubectl.New(kubectl.Options{Kubeconfig: kubeconfig, Confined: o.KubectlNoLocalFiles,
		NoExecPlugins: o.KubectlNoExecPlugins, Unguarded: o.KubectlUnguarded})
}

// recordingContent notes progress whenever the screen shows a step.
type recordingContent struct {
	*tui.LessonContent
	p *progressRecorder
}

// Step returns the step and records it as reached.
func (r recordingContent) Step(id string) (tui.Step, bool) {
	s, ok := r.LessonContent.Step(id)
	if ok {
		for _, l := range r.p.lessons {
			for _, st := range l.Steps {
				if st.Checkpoint == id {
					r.p.record(l.ID, st.ID)
				}
			}
		}
	}
	return s, ok
}

// progressRecorder keeps the learner's furthest step per lesson, and the exercises done and
// hints shown, and saves them on exit. The TUI and the exercise tracker record from their own
// goroutines: mu guards p and dirty once the walkthrough runs.
type progressRecorder struct {
	lessons []lessons.Lesson
	path    string
	mu      sync.Mutex
	p       *lessons.Progress
	dirty   bool
	skip    bool // the file is corrupt: do not save over it
}

// newProgressRecorder loads the saved progress. restart starts the steps over (the welcome
// and the exercises stay as they were); resetExercises forgets the exercises.
func newProgressRecorder(ls []lessons.Lesson, restart, resetExercises bool, warn io.Writer) *progressRecorder {
	r := &progressRecorder{lessons: ls, p: &lessons.Progress{}}
	path, err := lessons.ProgressPath(os.Getenv)
	if err != nil {
		r.skip = true
		return r
	}
	r.path = path
	p, err := lessons.LoadProgress(path)
	if err != nil {
		fmt.Fprintf(warn, "kubewalk: "+i18n.For(lessonsLang(ls)).CLIProgressNotSaved+"\n", err)
		r.skip = true
	}
	if !restart && err == nil {
		r.p = p
	}
	r.p.WelcomeSeen = p.WelcomeSeen // --restart starts the lessons over, not the welcome
	r.p.Exercises = p.Exercises     // nor the exercises: --reset-exercises does
	if resetExercises && len(r.p.Exercises) > 0 {
		r.p.ResetExercises()
		r.dirty = true
	}
	return r
}

func (r *progressRecorder) record(lessonID, stepID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lessons {
		if l.ID == lessonID && r.p.Record(l, stepID, time.Now()) {
			r.dirty = true
		}
	}
}

func (r *progressRecorder) welcomeSeen() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.WelcomeSeen
}

func (r *progressRecorder) welcomeDismissed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.p.WelcomeSeen, r.dirty = true, true
}

// exerciseRecords returns a copy of the exercise records.
func (r *progressRecorder) exerciseRecords() map[string]lessons.ExerciseProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.p.Exercises)
}

func (r *progressRecorder) exerciseIsDone(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.Exercises[id].Done
}

func (r *progressRecorder) exerciseDone(id, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p.ExerciseDone(id, why, time.Now()) {
		r.dirty = true
	}
}

func (r *progressRecorder) exerciseHints(id string, shown int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p.ExerciseHints(id, shown, time.Now()) {
		r.dirty = true
	}
}

func (r *progressRecorder) save() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.skip || !r.dirty || r.path == "" {
		return
	}
	_ = r.p.Save(r.path)
}

// offerResume asks whether to run straight to the furthest step saved last time; the server
// always starts from scratch, the earlier checkpoints just do not pause. It returns ctx's error
// as soon as ctx ends (Ctrl-C), without waiting for Enter.
func offerResume(ctx context.Context, r *progressRecorder, in *plain.Lines, out io.Writer) (engine.Target, error) {
	cp, where := r.resumePoint()
	if cp == "" {
		return engine.NextCheckpoint(), nil
	}
	fmt.Fprintf(out, i18n.For(lessonsLang(r.lessons)).CLIResume, where)
	line, _ := in.ReadLine(ctx)
	if err := ctx.Err(); err != nil {
		fmt.Fprintln(out)
		return engine.Target{}, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "n", "no":
		return engine.NextCheckpoint(), nil
	}
	return engine.ToCheckpoint(cp), nil
}

// resumePoint returns the checkpoint of the furthest step reached, in phase order, and a
// description; "" when there is nothing beyond the first step.
func (r *progressRecorder) resumePoint() (checkpoint, where string) {
	first := true
	for _, l := range r.lessons {
		n := r.p.Reached(l)
		if n == 0 || l.Track != "" { // after-serve steps have no checkpoint to resume at
			continue
		}
		s := l.Steps[n-1]
		checkpoint, where = s.Checkpoint, fmt.Sprintf("%s · %s (%s)", l.Title, s.Title, s.Checkpoint)
		first = first && n == 1 && l.Phase == string(server.PhaseConfig)
	}
	if first {
		return "", ""
	}
	return checkpoint, where
}
