package tour

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/server"
)

// This file is what the root's header, status line and help bar say of the walkthrough: the
// chain of phases, the checkpoint line, the server's state, and the keys that matter now.

// Chain draws the seven phases, each done (✓, with its time), current (▶) or pending (·), in
// w cells at most.
func (t *Model) Chain(w int) string {
	st := t.st.Chain
	stop := t.displayed()
	done := map[server.Phase]time.Duration{}
	var cur server.Phase
	if stop != nil {
		for _, tm := range stop.Timings {
			done[tm.Phase] = tm.Duration
		}
		cur = stop.Checkpoint.Phase
	}
	allDone := t.served && t.review < 0
	render := func(times bool, arrow string) string {
		var parts []string
		for _, p := range server.Phases() {
			d, isDone := done[p]
			switch {
			case isDone || allDone:
				s := st.Done.Render(t.st.Markers.Done + string(p))
				if times && isDone {
					s += " " + st.Time.Render(shortDuration(d))
				}
				parts = append(parts, s)
			case p == cur:
				parts = append(parts, st.Current.Render(t.st.Markers.Current+string(p)))
			default:
				parts = append(parts, st.Pending.Render(t.st.Markers.Pending+string(p)))
			}
		}
		return strings.Join(parts, st.Arrow.Render(arrow))
	}
	s := render(true, " → ")
	if ansi.StringWidth(s) > w {
		s = render(false, " → ")
	}
	if ansi.StringWidth(s) > w {
		s = render(false, "›")
	}
	return s
}

// shortDuration prints a phase time compactly: 850µs, 12ms, 1.4s.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
}

// TitleLine is the header's second line while the walkthrough is on screen: the checkpoint on
// screen and its place among all checkpoints, or the track step and its place in the track.
func (t *Model) TitleLine(w int) string {
	if t.InTrack() {
		return t.trackLine(w)
	}
	stop := t.displayed()
	if stop == nil {
		return t.st.Status.Note.Render(t.tr.StartingServer)
	}
	left, right := t.checkpoint(stop)
	right = "  " + right
	l := t.st.Chain.Checkpoint.Render(stop.Checkpoint.ID()) + "  " + t.st.Chain.Title.Render(left)
	room := w - ansi.StringWidth(right)
	if room < 20 {
		return l
	}
	return common.Fit(l, room) + t.st.Status.Note.Render(right)
}

// checkpoint is the title of the checkpoint stop (in the screen's language) and its place
// among all checkpoints.
func (t *Model) checkpoint(stop *engine.Stop) (title, place string) {
	all := server.Checkpoints()
	pos := 0
	for i, c := range all {
		if c.ID() == stop.Checkpoint.ID() {
			pos = i + 1
		}
	}
	// The checkpoint's own title is the server's, in English; in another language the
	// translated title of the lesson step for it stands in.
	title = stop.Checkpoint.Title
	if t.tr.Lang() != i18n.English && t.content != nil {
		if step, ok := t.content.Step(stop.Checkpoint.ID()); ok && step.Title != "" {
			title = step.Title
		}
	}
	return title, fmt.Sprintf(t.tr.CheckpointOf, pos, len(all))
}

// Title is the walkthrough's name and hint as a view: the checkpoint (or track step) on
// screen and its place. The root draws TitleLine instead, which styles the two parts of the
// name apart.
func (t *Model) Title() (name, hint string) {
	if t.InTrack() {
		step := t.trackStep()
		return fmt.Sprintf(t.tr.TrackLine, step.Lesson) + "  " + step.Title, fmt.Sprintf(t.tr.TrackStepOf, t.trackAt+1, len(t.track))
	}
	stop := t.displayed()
	if stop == nil {
		return t.tr.StartingServer, ""
	}
	title, place := t.checkpoint(stop)
	return stop.Checkpoint.ID() + "  " + title, place
}

// StatusEnv is what the status line says besides the walkthrough's state: the root's note,
// the held requests, the exercises done, and whether another view is on screen.
type StatusEnv struct {
	Note      string
	Held      int
	Done, All int // exercises done of all (All 0: none)
	Elsewhere bool
}

// Status says what the server is doing, and whether the screen shows an earlier stop, in w
// cells (the root cuts it).
func (t *Model) Status(w int, e StatusEnv) string {
	st, tr := t.st.Status, t.tr
	live := t.Live()
	where := ""
	switch {
	case t.failed != nil:
		where = tr.WhereFailed
	case t.served:
		where = tr.WhereServing
	case t.running:
		where = fmt.Sprintf(tr.WhereRunningTo, t.target)
	case live != nil:
		where = fmt.Sprintf(tr.WherePausedAt, live.Checkpoint.ID())
	}
	serving := tr.StatusServing
	if t.srv != nil {
		serving = fmt.Sprintf(tr.StatusServingAt, t.srv.Address())
	}
	var s string
	// After serve the status ends with a hint: the longest of its forms that leaves room for
	// what comes before and after it (a held request, a note), so that at 80 columns it is
	// not cut mid-word.
	served := func(hints ...string) string {
		extra := ""
		if e.Held > 0 {
			extra = fmt.Sprintf(tr.StatusHeld, e.Held) + " · "
		}
		if e.All > 0 {
			extra += fmt.Sprintf(tr.StatusExercises, e.Done, e.All) + " · "
		}
		if e.Note != "" {
			extra += " · " + e.Note
		}
		for _, srv := range []string{serving, tr.StatusServing} {
			for _, h := range hints {
				if ansi.StringWidth(extra+srv+h) <= w {
					return st.Served.Render(srv) + st.Note.Render(h)
				}
			}
		}
		return st.Served.Render(tr.StatusServing)
	}
	switch {
	case t.review >= 0:
		shown := t.history[t.review]
		s = st.Review.Render(" "+fmt.Sprintf(tr.StatusReviewing, t.review+1, len(t.history), shown.Checkpoint.ID())+" ") +
			fmt.Sprintf(tr.StatusReviewWhere, where) + st.Note.Render(tr.StatusReviewNote)
	case t.failed != nil:
		s = st.Failed.Render(tr.StatusFailed) + OneLine(t.failed.Error()) + st.Note.Render(tr.StatusQuits)
	case t.served && e.Elsewhere:
		s = served(tr.StatusBackToLesson, tr.StatusBackToLessonShort, "")
	case t.served && t.InTrack() && e.Note != "":
		s = served("") // the note matters more than the reminder
	case t.served && t.InTrack():
		s = served(tr.StatusTrack, tr.StatusTrackShort, "")
	case t.served && len(t.track) > 0:
		s = served(tr.StatusAllDone, tr.StatusAllDoneShort, tr.StatusAllDoneShortest, "")
	case t.served:
		s = served(tr.StatusAllDoneNoTrack, tr.StatusAllDoneNoTrackShort, tr.StatusAllDoneNoTrackShortest, "")
	case t.running && t.auto > 0:
		s = st.Running.Render(fmt.Sprintf(tr.StatusRunningTo, t.target)) + st.Paused.Render(tr.StatusAutoRunning)
	case t.running:
		s = st.Running.Render(fmt.Sprintf(tr.StatusRunningTo, t.target))
	case live != nil && t.auto > 0:
		s = st.Paused.Render(fmt.Sprintf(tr.StatusPausedAt, live.Checkpoint.ID())) + st.Paused.Render(fmt.Sprintf(tr.StatusAutoNote, t.auto))
	case live != nil && e.Note == tr.NoteAutoOff:
		s = st.Paused.Render(fmt.Sprintf(tr.StatusPausedAt, live.Checkpoint.ID())) // the note says what space does
	case live != nil:
		s = st.Paused.Render(fmt.Sprintf(tr.StatusPausedAt, live.Checkpoint.ID())) + st.Note.Render(tr.StatusPausedNote)
	default:
		s = st.Running.Render(tr.StatusStarting)
	}
	if e.All > 0 {
		s = st.Served.Render(fmt.Sprintf(tr.StatusExercises, e.Done, e.All)) + " · " + s
	}
	if e.Held > 0 {
		s = st.Paused.Render(fmt.Sprintf(tr.StatusHeld, e.Held)) + " · " + s
	}
	if t.side.Open() && !e.Elsewhere && e.Note == "" {
		s += st.Note.Render(tr.StatusSideBySide)
	}
	if mod, written, ok := t.fetch.Progress(); ok {
		s += st.Note.Render(fmt.Sprintf(tr.StatusFetching, mod, written))
	}
	if e.Note != "" {
		s += st.Note.Render(" · " + e.Note)
	}
	return s
}

// OneLine flattens an error message for the status line.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Served reports whether the server serves (the walkthrough's end).
func (t *Model) Served() bool { return t.served }

// Failed is the startup's error, nil while it has not failed.
func (t *Model) Failed() error { return t.failed }

// UpstreamMissing is k8s.io/apiserver's module when the welcome should say u lacks it (nil when
// it is there), and whether F is off (the welcome then says to fetch it another way).
func (t *Model) UpstreamMissing() (mm *source.MissingModuleError, fetchOff bool) {
	return t.side.UpstreamMissing(), t.fetch.Off()
}

// Keys are the help bar's bindings while the walkthrough is on screen, with z as zoom.
func (t *Model) Keys() []key.Binding {
	return t.Bar(key.NewBinding(key.WithKeys("z"), key.WithHelp("z", t.tr.BarZoom)))
}

// Bar is the help bar: the keys that matter now, the most useful first (the bar is cut at the
// window's width). zoom is the root's z, "zoom" or "unzoom".
func (t *Model) Bar(zoom key.Binding) []key.Binding {
	k, tr := t.keys, t.tr
	if t.source.Typing() {
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.BarSearch)),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarCancel)),
		}
	}
	var out []key.Binding
	switch {
	case t.source.Searching():
		out = append(out, k.MatchNext, k.OpenMatch, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarClearSearch)))
	case t.source.Browsing():
		out = append(out, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarBackToStep)))
	}
	switch {
	case t.side.Open():
		out = append(out, t.side.HelpKeys()...)
	case t.source.Upstream() && t.source.Missing() != nil && !t.fetch.Off():
		out = append(out, k.Fetch)
	}
	switch {
	case t.InTrack():
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space/n", tr.BarNext)),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", tr.BarBack)),
			key.NewBinding(key.WithKeys("r"), key.WithHelp("r", tr.BarRerun)))
	case t.serveStop() && len(t.track) > 0:
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space/n", tr.BarTrack)),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", tr.BarBack)))
	case t.review >= 0:
		out = append(out,
			key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", tr.BarEarlierLater)),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarLive)))
	default:
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space", tr.BarNext)),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", tr.BarBack)))
	}
	out = append(out, k.Help, k.Quit, k.FocusNext, zoom)
	if t.served {
		out = append(out, k.Served, key.NewBinding(key.WithKeys(":"), key.WithHelp(":", tr.BarCommand)))
	}
	switch {
	case t.focus == PaneState && t.InTrack():
		out = append(out, k.Toggle, k.ExpandAll)
	case t.focus == PaneState:
		out = append(out, k.NextChange, k.Toggle, k.Raw)
	case t.InTrack():
		out = append(out, k.Upstream, k.SideBySide, k.Search, k.Wrap)
	default:
		out = append(out, k.Upstream, k.Raw, k.Search, k.Wrap, k.SideBySide)
	}
	return append(out, k.NextPhase, k.ToEnd, k.Phase)
}
