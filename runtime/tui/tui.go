// Package tui is kubewalk's full-screen walkthrough: it drives an engine.Engine checkpoint by
// checkpoint and shows, at every pause of the live server, the phase chain, the source of the
// current step (ours, or upstream k8s.io/apiserver), the server's state tree (or its live objects
// walked by reflection), the lesson text, and after serve the kubectl commands to try.
//
// The model never blocks its update loop: engine events arrive through a tea.Cmd that waits on
// the engine's channel and is re-armed after each event; resuming the server, resolving source
// anchors, tokenising files and polling /readyz all run in tea.Cmds.
package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/live"
	"github.com/kubewalk/kubewalk/runtime/tui/side"
	"github.com/kubewalk/kubewalk/runtime/tui/tour"
	"github.com/kubewalk/kubewalk/server"
)

// Track is implemented by a Content with an after-serve track: lessons that read the running
// server, opened once it serves. LessonContent implements it.
type Track interface {
	// TrackSteps returns the track's steps in order; they have no Checkpoint.
	TrackSteps() []Step
}

// Probe runs a live probe (runtime/live) against the serving server and returns its tree
// (tour.Probe). It is called from tea.Cmds, possibly concurrently, and must return when ctx
// ends.
type Probe = tour.Probe

// UpstreamChecker is implemented by a Content that can tell, off the update loop, whether
// k8s.io/apiserver's source (the u key's) is in the module cache, for the welcome screen.
type UpstreamChecker = side.UpstreamChecker

// Language is implemented by a Content that knows the language it was loaded in (the
// learner's choice, even where a lesson string is still English): the screen's strings follow
// it unless Options.Lang says otherwise. LessonContent implements it.
type Language interface {
	Language() string
}

// Content supplies the lesson steps and resolves their source. Local and Upstream are called
// from background goroutines (tea.Cmds), possibly concurrently: they must only read.
type Content interface {
	// Step returns the step for a checkpoint ID ("phase/name"), if there is one.
	Step(checkpointID string) (Step, bool)
	// Local resolves an anchor (and optional focus) in kubewalk's own server source.
	Local(anchor, focus string) (Location, error)
	// Upstream resolves a k8s.io/apiserver symbol in the module cache.
	Upstream(symbol string) (Location, error)
}

// Engine is what the screen needs from *engine.Engine.
type Engine interface {
	Events() <-chan engine.Event
	Continue(t engine.Target) error
	Stops() []engine.Stop
}

// ServerInfo is what the after-serve panel needs from *server.Server.
type ServerInfo interface {
	Kubeconfig() string
	Identities() []server.Identity
	Address() string
	RESTConfig(contextName string) (*rest.Config, error)
	// ServeStatus is what a client of the server finds now (the in-TUI kubectl runs only
	// when it is server.Serving); safe to call at any time.
	ServeStatus() server.ServeStatus
}

// Options configure the screen.
type Options struct {
	// GlamourStyle is the glamour style for lesson text: "dark", "light", "notty", "ascii", ...
	// Empty picks one in Run, before the program starts: "notty" when colour is off, else
	// "dark" or "light" from the terminal's background. NewModel treats empty as "notty".
	GlamourStyle string
	// NoColor renders without colour; Run also turns it on when NO_COLOR is set. Markers
	// (✓ ▶ · and thick borders) carry the meaning either way.
	NoColor bool
	// KeyMap overrides DefaultKeyMap when non-nil.
	KeyMap *KeyMap
	// Styles overrides DefaultStyles when non-nil.
	Styles *Styles
	// ShowWelcome opens the screen on a short welcome (what kubewalk is, the chain, the keys
	// that matter) that any key dismisses; for a learner's first run.
	ShowWelcome bool
	// OnWelcomeDismissed, if set, is called once when the learner dismisses the welcome (to
	// remember not to show it again). It runs on the program's goroutine and must not block.
	OnWelcomeDismissed func()
	// Start is where Run first pauses; the zero value is the first checkpoint.
	Start engine.Target
	// Lang is the language of the screen's strings ("en", "zh-CN"). Empty takes the language
	// the content was loaded in, when it says (LessonContent does: the learner's choice),
	// else English.
	Lang string

	// Requests is the trace store the Requests view and the kubectl pane's lanes read; nil
	// leaves them without lanes.
	Requests Requests
	// Breakpoints holds requests for :break and the held-request keys; nil says breakpoints
	// are not wired. It needs Requests (held requests are re-read on its events).
	Breakpoints Breakpoints
	// Etcd is the etcd explorer's reader; nil says the explorer is not wired.
	Etcd EtcdBrowser
	// NewKubectl makes the runner of :kubectl once the server serves; nil says kubectl inside
	// the TUI is not wired (and prints the command to run in another terminal).
	NewKubectl NewKubectl
	// Exercises are the exercises :exercises lists, checked against the live server; nil says
	// exercises are not wired (the view says so and the status line shows no count).
	Exercises Exercises

	// Probe runs the live probes of the after-serve track's steps; nil in NewModel says they
	// are not wired (the state pane says so). Run fills it in with runtime/live against the
	// engine's server.
	Probe Probe
	// Progress, if set, is called when a step of the after-serve track is shown (startup steps
	// are recorded by the Content's Step, which the screen calls for each stop). It runs on
	// the program's goroutine and must not block.
	Progress func(lessonID, stepID string)
	// Fetch downloads a module into the Go module cache for the side-by-side view and the
	// upstream source; nil uses lessons.FetchModule (the go command).
	Fetch Fetch
	// NoFetch turns F off: the screen says why instead of fetching. A class ssh student's
	// tour (--kubectl-no-local-files) sets it: the student is not this machine's user, and a
	// download would write to its Go module cache and use its network.
	NoFetch bool

	// Auto, when positive, runs the walkthrough on its own: at each checkpoint the screen
	// waits Auto, then continues; the first key (or click) hands control back to the learner.
	Auto time.Duration
	// Record, if set, is given everything Run writes to the terminal and every resize (see
	// runtime/record).
	Record Recorder
	// Class makes this the instructor's screen of a follow-along class (runtime/tui/class);
	// Follow a student's. nil: no class.
	Class  ClassHost
	Follow ClassFollower
}

// Recorder records the session's terminal output (runtime/record.Recorder implements it).
type Recorder interface {
	// Tee returns a writer that writes to out and records what it wrote; when out is a
	// terminal file, the writer must stay one (bubbletea reads the size through it).
	Tee(out io.Writer) io.Writer
	// Resize records that the terminal is now w×h.
	Resize(w, h int)
}

// ErrInterrupted is returned by Run when the user pressed Ctrl-C (q quits and returns nil).
var ErrInterrupted = errors.New("tui: interrupted")

// ErrNoTerminal is returned by Usable and Run when stdin or stdout is not a terminal or TERM
// is "dumb": the caller should fall back to plain line output.
var ErrNoTerminal = errors.New("tui: not an interactive terminal")

// Usable reports whether the full-screen walkthrough can run here: stdin and stdout must be
// terminals and TERM must not be "dumb". It returns nil or an error wrapping ErrNoTerminal.
func Usable() error {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return fmt.Errorf("%w: stdin is not a terminal", ErrNoTerminal)
	}
	if !term.IsTerminal(int(os.Stdout.Fd())) {
		return fmt.Errorf("%w: stdout is not a terminal", ErrNoTerminal)
	}
	if os.Getenv("TERM") == "dumb" {
		return fmt.Errorf("%w: TERM=dumb", ErrNoTerminal)
	}
	return nil
}

// Run starts eng (stopping at its first checkpoint) and runs the walkthrough full screen, with
// the alternate screen and mouse reporting, until the user quits or ctx ends. It does not Close
// eng: the caller does, after Run returns. Do not Start eng before calling Run.
//
// Run returns nil when the user quits, ErrInterrupted on Ctrl-C, the startup error when the
// server failed (and the user then quit), ctx's error when ctx ended, and an error wrapping
// tea.ErrProgramPanic after a panic inside the program (the terminal is restored and the stack
// printed first). Signals are the caller's: Run ends when ctx does.
func Run(ctx context.Context, eng *engine.Engine, content Content, opts Options) error {
	if err := Usable(); err != nil {
		return err
	}
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	if opts.NoColor {
		lipgloss.SetColorProfile(termenv.Ascii)
	}
	// Ask the terminal for its background now: lipgloss would otherwise ask on the first
	// adaptive colour, racing bubbletea's input reader for the answer.
	dark := lipgloss.HasDarkBackground()
	if opts.GlamourStyle == "" {
		opts.GlamourStyle = pickGlamourStyle(opts.NoColor, dark)
	}
	tr := i18n.For(uiLang(opts.Lang, content))
	if err := eng.Start(ctx, opts.Start); err != nil {
		return fmt.Errorf(tr.ErrStart, err)
	}
	if opts.Probe == nil {
		srv := eng.Server()
		opts.Probe = func(ctx context.Context, id string) (*server.Node, error) { return live.Run(ctx, srv, id, tr) }
	}
	m := NewModel(eng, eng.Server(), content, opts)
	m.m.done = ctx.Done()

	popts := []tea.ProgramOption{
		tea.WithContext(ctx),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
		tea.WithoutSignalHandler(),
		tea.WithFilter(interruptOnCtrlC),
	}
	if opts.Record != nil {
		rec := opts.Record
		popts = append(popts, tea.WithOutput(rec.Tee(os.Stdout)), tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg {
			if ws, ok := msg.(tea.WindowSizeMsg); ok {
				rec.Resize(ws.Width, ws.Height)
			}
			return interruptOnCtrlC(m, msg)
		}))
	}
	p := tea.NewProgram(m, popts...)
	final, err := p.Run()
	if serr := m.m.shutdown(); serr != nil && err == nil {
		err = serr
	}
	switch {
	case errors.Is(err, tea.ErrProgramPanic):
		return fmt.Errorf(tr.ErrInternal, err)
	case errors.Is(err, tea.ErrInterrupted):
		return ErrInterrupted
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("tui: %w", err)
	}
	if fm, ok := final.(Model); ok && fm.m.tour.Failed() != nil {
		return fmt.Errorf(tr.ErrStartup, fm.m.tour.Failed())
	}
	return nil
}

// uiLang is the screen's language: lang if set, else the content's (see Language), else
// English.
func uiLang(lang string, content Content) string {
	if lang != "" {
		return lang
	}
	if l, ok := content.(Language); ok && content != nil {
		return l.Language()
	}
	return i18n.English
}

// interruptOnCtrlC turns Ctrl-C (a key in raw mode, not a signal) into bubbletea's interrupt, so
// that Run reports it apart from q.
func interruptOnCtrlC(_ tea.Model, msg tea.Msg) tea.Msg {
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyCtrlC {
		return tea.InterruptMsg{}
	}
	return msg
}

// pickGlamourStyle chooses the lesson style, once, before the program runs.
func pickGlamourStyle(noColor, dark bool) string {
	switch {
	case noColor || lipgloss.ColorProfile() == termenv.Ascii:
		return "notty"
	case dark:
		return "dark"
	}
	return "light"
}
