package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/logs"
	"github.com/kubewalk/kubewalk/runtime/plain"
	"github.com/kubewalk/kubewalk/runtime/tui"
	"github.com/kubewalk/kubewalk/server"
)

// tourOptions are the walkthrough's flags: the serve flags plus how to show it.
type tourOptions struct {
	serveOptions
	Plain   bool
	Auto    bool
	Lang    string
	Restart bool
}

func newTourCommand(stdout, stderr io.Writer) *cobra.Command {
	o := &tourOptions{}
	cmd := &cobra.Command{
		Use:   "tour",
		Short: "Walk through the live server's startup, pausing at every checkpoint (the default)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTour(cmd.Context(), o, stdout, stderr)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (o *tourOptions) addFlags(cmd *cobra.Command) {
	o.serveOptions.addFlags(cmd.Flags())
	fs := cmd.Flags()
	fs.BoolVar(&o.Plain, "plain", false, "line-mode transcript instead of the full-screen UI")
	fs.BoolVar(&o.Auto, "auto", false, "run through every phase without stopping")
	fs.StringVar(&o.Lang, "lang", "", "lesson language (en, zh-CN); default from LC_ALL/LANG")
	fs.BoolVar(&o.Restart, "restart", false, "ignore saved progress")
	o.addTourTraceFlags(fs)
}

// runTour starts the walkthrough: the full-screen UI on a terminal, plain mode otherwise.
func runTour(ctx context.Context, o *tourOptions, stdout, stderr io.Writer) error {
	opts := o.serverOptions(nil)
	if err := opts.Validate(); err != nil {
		return err
	}
	traces, err := o.newTourTracing()
	if err != nil {
		return err
	}
	lang := lessons.DetectLang(o.Lang, os.Getenv)
	if o.Lang != "" {
		if _, ok := lessons.NormalizeLang(o.Lang); !ok {
			return fmt.Errorf("--lang %q: not a supported language (en, zh-CN)", o.Lang)
		}
	}
	ls, lerr := lessons.Load(content.FS, lang)
	if len(ls) == 0 {
		return fmt.Errorf("lessons: %w", lerr)
	}

	usePlain := o.Plain || o.Auto
	if err := tui.Usable(); err != nil {
		usePlain = true
	}
	sink, err := logs.Open(o.LogFile, o.Verbosity, true)
	if err != nil {
		return err
	}
	defer sink.Close()
	eng, err := engine.New(traces.apply(o.serverOptions(sink.File)))
	if err != nil {
		return err
	}
	defer eng.Close()
	defer traces.Breakpoints.Close() // before the server stops: no request stays held

	prog := newProgressRecorder(ls, o.Restart, sink.Stderr)
	defer prog.save()
	interactive := !o.Auto && term.IsTerminal(int(os.Stdin.Fd()))
	start := engine.NextCheckpoint()
	if interactive && !o.Restart {
		start = offerResume(prog, os.Stdin, stdout)
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
			Progress: prog.record,
		}
		err := plain.Run(ctx, eng, w, plain.Options{Out: stdout, In: os.Stdin, Interactive: interactive, Start: start, Traces: traces.Store})
		if plain.IsQuit(err) {
			return nil
		}
		if err != nil && ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}

	c := tui.NewLessonContent(ls, server.SourceFS)
	err = tui.Run(ctx, eng, recordingContent{c, prog}, tui.Options{Start: start,
		ShowWelcome: !prog.p.WelcomeSeen, OnWelcomeDismissed: func() { prog.p.WelcomeSeen, prog.dirty = true, true }})
	if closeErr := eng.Close(); closeErr != nil && err == nil {
		err = fmt.Errorf("shutdown: %w", closeErr)
	}
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
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

// progressRecorder keeps the learner's furthest step per lesson and saves it on exit.
type progressRecorder struct {
	lessons []lessons.Lesson
	path    string
	p       *lessons.Progress
	dirty   bool
	skip    bool // the file is corrupt: do not save over it
}

func newProgressRecorder(ls []lessons.Lesson, restart bool, warn io.Writer) *progressRecorder {
	r := &progressRecorder{lessons: ls, p: &lessons.Progress{}}
	path, err := lessons.ProgressPath(os.Getenv)
	if err != nil {
		r.skip = true
		return r
	}
	r.path = path
	p, err := lessons.LoadProgress(path)
	if err != nil {
		fmt.Fprintf(warn, "kubewalk: %v; progress will not be saved\n", err)
		r.skip = true
	}
	if !restart && err == nil {
		r.p = p
	}
	r.p.WelcomeSeen = p.WelcomeSeen // --restart starts the lessons over, not the welcome
	return r
}

func (r *progressRecorder) record(lessonID, stepID string) {
	for _, l := range r.lessons {
		if l.ID == lessonID && r.p.Record(l, stepID, time.Now()) {
			r.dirty = true
		}
	}
}

func (r *progressRecorder) save() {
	if r.skip || !r.dirty || r.path == "" {
		return
	}
	_ = r.p.Save(r.path)
}

// offerResume asks whether to run straight to the furthest step saved last time; the server
// always starts from scratch, the earlier checkpoints just do not pause.
func offerResume(r *progressRecorder, in io.Reader, out io.Writer) engine.Target {
	cp, where := r.resumePoint()
	if cp == "" {
		return engine.NextCheckpoint()
	}
	fmt.Fprintf(out, "Last time you reached %s. Run there without pausing? [Y/n] ", where)
	line, _ := bufio.NewReader(in).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "n", "no":
		return engine.NextCheckpoint()
	}
	return engine.ToCheckpoint(cp)
}

// resumePoint returns the checkpoint of the furthest step reached, in phase order, and a
// description; "" when there is nothing beyond the first step.
func (r *progressRecorder) resumePoint() (checkpoint, where string) {
	first := true
	for _, l := range r.lessons {
		n := r.p.Reached(l)
		if n == 0 {
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
