package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// rect is a place on the screen.
type rect struct{ x, y, w, h int }

func (r rect) contains(x, y int) bool { return x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h }

// layout places the panes for a window size.
//
// At least wideWidth columns: the chain on top, the source on the left (55%), the state over
// the lesson on the right (the lesson place is shared with the kubectl panel after serve), the
// help bar at the bottom. Narrower: the chain, the source, and below it one shared place for
// the state, the lesson and the kubectl panel, switched by focus (tab). Under MinWidth×MinHeight
// only a message shows.
type layout struct {
	small  bool
	wide   bool
	body   rect
	source rect
	upper  rect // wide only: the state
	shared rect // the tabbed place
}

func computeLayout(w, h, classLines int) layout {
	if w < MinWidth || h < MinHeight {
		return layout{small: true}
	}
	l := layout{wide: w >= wideWidth}
	l.body = rect{0, headerLines + classLines, w, h - headerLines - classLines - 1}
	b := l.body
	if l.wide {
		srcW := w * 55 / 100
		rightW := w - srcW
		upperH := b.h * 45 / 100
		l.source = rect{0, b.y, srcW, b.h}
		l.upper = rect{srcW, b.y, rightW, upperH}
		l.shared = rect{srcW, b.y + upperH, rightW, b.h - upperH}
	} else {
		srcH := b.h / 2
		l.source = rect{0, b.y, w, srcH}
		l.shared = rect{0, b.y + srcH, w, b.h - srcH}
	}
	return l
}

// paneAt finds the pane at a screen cell.
func (l layout) paneAt(x, y int, m *model) (paneID, bool) {
	switch {
	case l.small:
		return 0, false
	case l.source.contains(x, y):
		return paneSource, true
	case l.wide && l.upper.contains(x, y):
		return paneState, true
	case l.shared.contains(x, y):
		return m.tab, true
	}
	return 0, false
}

// resize lays the panes out for a new window size.
func (m *model) resize(w, h int) {
	m.w, m.h = w, h
	m.lay = computeLayout(w, h, m.classLineCount())
	m.help.Width = w
	if m.lay.small {
		return
	}
	if m.side {
		b := m.lay.body
		m.source.SetSize(b.w/2, b.h)
		m.kubeSrc.SetSize(b.w-b.w/2, b.h)
	} else {
		m.source.SetSize(m.lay.source.w, m.lay.source.h)
	}
	if m.lay.wide {
		m.state.SetSize(m.lay.upper.w, m.lay.upper.h)
	} else {
		m.state.SetSize(m.lay.shared.w, m.lay.shared.h)
	}
	m.lesson.SetSize(m.lay.shared.w, m.lay.shared.h)
	m.kubect.SetSize(m.lay.shared.w, m.lay.shared.h)
	if m.zoom {
		m.zoomTour()
	}
	m.tab = m.visibleTab()
	m.applyFocus()
	m.layoutViews()
}

// visibleTab keeps the shared place on a pane that lives there in this layout.
func (m *model) visibleTab() paneID {
	if m.shared(m.focus) {
		return m.focus
	}
	if m.tab == paneState && m.lay.wide {
		return paneLesson
	}
	return m.tab
}

func (m *model) view() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	if m.lay.small {
		msg := fmt.Sprintf(m.tr.TooSmall, MinWidth, MinHeight, m.w, m.h)
		lines := append(wrapLines(m.st.Small.Render(msg), m.w), "", ansi.Truncate(m.tr.TooSmallQuit, m.w, ""))
		return strings.Join(placeCenter(lines, m.w, m.h), "\n")
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header()...)
	body := m.body()
	if m.prompt.IsOpen() {
		// The suggestions cover the bottom of the body, right above the prompt line.
		over := m.prompt.Overlay(m.st, m.tr, m.w)
		if len(over) > len(body) {
			over = over[len(over)-len(body):]
		}
		body = append(append([]string{}, body[:len(body)-len(over)]...), over...)
	}
	if !m.prompt.IsOpen() {
		body = overlayRight(body, m.toastBox(m.w), m.w)
	}
	lines = append(lines, body...)
	switch {
	case m.prompt.IsOpen():
		lines = append(lines, m.prompt.View(m.st, m.tr, m.w))
	case m.exView().Capturing():
		lines = append(lines, m.exView().AnswerLine(m.w))
	default:
		lines = append(lines, fit(m.help.ShortHelpView(m.shortHelp()), m.w))
	}
	return strings.Join(lines, "\n")
}

// body renders the panes, or the help overlay.
func (m *model) body() []string {
	b := m.lay.body
	switch {
	case m.welcome:
		return placeCenter(m.welcomeBox(b.w, b.h), b.w, b.h)
	case m.showHelp:
		return placeCenter(m.helpOverlay(b.w, b.h), b.w, b.h)
	case m.info != nil:
		return placeCenter(m.infoOverlay(b.w, b.h), b.w, b.h)
	case m.at != viewTour:
		return m.viewBody()
	case m.zoom:
		return m.zoomedTourBody()
	case m.side:
		return joinColumns(m.source.View(), m.kubeSrc.View())
	}
	var shared []string
	switch m.tab {
	case paneState:
		shared = m.state.View()
	case paneServed:
		shared = m.kubect.View()
	default:
		shared = m.lesson.View()
	}
	if m.lay.wide {
		right := append(append([]string{}, m.state.View()...), shared...)
		return joinColumns(m.source.View(), right)
	}
	return append(append([]string{}, m.source.View()...), shared...)
}

// helpOverlay is the ? screen: every key by what it acts on, then how the main ones work, in a
// box that scrolls when the window is too small for it.
func (m *model) helpOverlay(w, h int) []string {
	k, tr := m.keys, m.tr
	sections := []struct {
		title string
		keys  []key.Binding
	}{
		{tr.HelpLiveServer, []key.Binding{k.Next, k.NextPhase, k.ToEnd, k.Phase}},
		{tr.HelpReviewing, []key.Binding{k.Back, k.Forward, k.Live}},
		{tr.HelpPanes, []key.Binding{k.FocusNext, k.FocusPrev, k.Zoom, k.Served,
			joinHelp(k.Up, k.Down, tr.HelpUpDown), joinHelp(k.PageUp, k.PageDown, tr.HelpPageUpDown), joinHelp(k.Top, k.Bottom, tr.HelpTopBottom)}},
		{tr.HelpSource, []key.Binding{k.Upstream, k.Wrap, k.Search, k.MatchNext, k.OpenMatch}},
		{tr.HelpState, []key.Binding{k.NextChange, k.Toggle, k.ExpandAll, k.CollapseAll, k.Raw}},
		{tr.HelpTrack, []key.Binding{k.Rerun, k.SideBySide, k.Fetch}},
		{tr.HelpRequestsView, []key.Binding{k.Filter, k.Loopback, joinHelp(k.Back, k.Forward, tr.HelpLaneStage), k.StageSource, k.StageEtcd,
			k.HeldStep, k.HeldRun, k.HeldAbort}},
		{tr.HelpExercisesView, []key.Binding{k.Hint, k.Answer, k.Choose}},
		{tr.HelpClass, []key.Binding{k.ClassFollow, k.ClassStuck, k.ClassAssigned, k.ClassBoard}},
		{"", []key.Binding{k.Command, k.Help, k.Quit}},
	}
	keyW := 0
	for _, s := range sections {
		for _, b := range s.keys {
			keyW = max(keyW, ansi.StringWidth(b.Help().Key))
		}
	}
	st := m.st.Help
	var blocks [][]string
	colW := 0
	for _, s := range sections {
		var bl []string
		if s.title != "" {
			bl = append(bl, m.st.Pane.FocusedTitle.Render(s.title))
		}
		for _, b := range s.keys {
			hk := b.Help()
			l := st.FullKey.Render(hk.Key+strings.Repeat(" ", keyW-ansi.StringWidth(hk.Key))) + "  " + st.FullDesc.Render(hk.Desc)
			colW = max(colW, ansi.StringWidth(l))
			bl = append(bl, l)
		}
		blocks = append(blocks, bl)
	}
	bw := min(w, 100)
	inner := bw - 4
	var body []string
	if inner >= 2*colW+3 {
		// Two columns, the sections in order, split where the taller column is shortest.
		height := func(bls [][]string) int {
			n := 0
			for _, bl := range bls {
				n += len(bl) + 1
			}
			return n
		}
		split := 1
		for i := 1; i < len(blocks); i++ {
			if max(height(blocks[:i]), height(blocks[i:])) < max(height(blocks[:split]), height(blocks[split:])) {
				split = i
			}
		}
		var left, right []string
		for i, bl := range blocks {
			if i < split {
				left = append(append(left, bl...), "")
			} else {
				right = append(append(right, bl...), "")
			}
		}
		left, right = left[:len(left)-1], right[:len(right)-1]
		body = nil
		for i := range max(len(left), len(right)) {
			l, r := "", ""
			if i < len(left) {
				l = left[i]
			}
			if i < len(right) {
				r = right[i]
			}
			body = append(body, fit(l, colW+3)+r)
		}
		body = append(body, "")
	} else {
		for _, bl := range blocks {
			body = append(append(body, bl...), "")
		}
	}
	for _, p := range []string{
		tr.HelpParaSpace, tr.HelpParaPhases, tr.HelpParaSearch, tr.HelpParaState, tr.HelpParaServed, tr.HelpParaTrack, tr.HelpParaCommand,
		tr.HelpParaExercises,
	} {
		body = append(append(body, wrapLines(p, inner)...), "")
	}
	body = body[:len(body)-1]
	for i := range body {
		body[i] = " " + body[i]
	}
	// Scrolling: the offset is kept within the lines.
	vis := max(h-2, 1)
	m.helpOffset = max(min(m.helpOffset, len(body)-vis), 0)
	title := tr.HelpTitle
	if len(body) > vis {
		title = fmt.Sprintf(tr.HelpTitleScroll, 100*(m.helpOffset+vis)/len(body))
		body = body[m.helpOffset : m.helpOffset+vis]
	}
	return box(m.st, title, body, bw, min(len(body)+2, h), true)
}

// commandsHelp is what :help shows: the commands offered (the table, cmdline.go) and how the
// after-serve views work.
func (m *model) commandsHelp() *infoBox {
	lines := append([]string{m.tr.CommandsIntro, ""}, m.prompt.Table().HelpLines(m.st)...)
	lines = append(lines, "", m.tr.CommandsRequests, "", m.tr.CommandsBreak)
	return &infoBox{title: m.tr.CommandsTitle, lines: lines}
}

// infoOverlay is the box of an infoBox (the :break list, :help).
func (m *model) infoOverlay(w, h int) []string {
	bw := min(w, 90)
	var body []string
	for _, l := range m.info.lines {
		for _, wl := range wrapLines(l, bw-4) {
			body = append(body, " "+wl)
		}
	}
	if len(body) > h-2 {
		body = body[:max(h-2, 0)]
	}
	return box(m.st, m.info.title, body, bw, min(len(body)+2, h), true)
}

// joinHelp shows two bindings as one help row: "↑/k ↓/j  up/down".
func joinHelp(a, b key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithHelp(a.Help().Key+" "+b.Help().Key, desc))
}

// welcomeBox is the first-run screen: what kubewalk is, the chain, the keys that matter, and
// that the server is real and paused.
func (m *model) welcomeBox(w, h int) []string {
	bw := min(w, 78)
	inner := bw - 4
	k, tr := m.st.Help.FullKey, m.tr
	var phases []string
	for _, p := range server.Phases() {
		phases = append(phases, string(p))
	}
	paras := [][]string{
		{tr.WelcomeIntro},
		{"  " + strings.Join(phases, " → ")},
		{tr.WelcomePaused},
		{
			k.Render("  space ") + " " + tr.WelcomeKeySpace,
			k.Render("  ←     ") + " " + tr.WelcomeKeyBack,
			k.Render("  ?     ") + " " + tr.WelcomeKeyHelp,
		},
		{m.st.Status.Note.Render(tr.WelcomeBegin)},
	}
	if mm := m.upMissing; mm != nil {
		say := tr.WelcomeNoUpstream
		if m.fetch.Off() {
			say = tr.WelcomeNoUpstreamNoFetch
		}
		paras = append(paras[:len(paras)-1], []string{fmt.Sprintf(say, mm.Module, mm.Version)}, paras[len(paras)-1])
	}
	// On a short screen (80×24 with a class's join line, or the module cache note) the box
	// sheds, in turn, the blank lines between paragraphs, the chain (the header shows it),
	// the paused paragraph and the intro's tail; the last line, how to begin, always stays.
	layout := func(paras [][]string, blank bool) []string {
		var body []string
		for i, p := range paras {
			if i > 0 && blank {
				body = append(body, "")
			}
			for _, l := range p {
				for _, wl := range wrapLines(l, inner) {
					body = append(body, " "+wl)
				}
			}
		}
		return body
	}
	without := func(paras [][]string, drop ...int) [][]string {
		var out [][]string
		for i, p := range paras {
			if !slices.Contains(drop, i) {
				out = append(out, p)
			}
		}
		return out
	}
	body := layout(paras, true)
	for _, try := range []func() []string{
		func() []string { return layout(paras, false) },
		func() []string { return layout(without(paras, 1), false) },
		func() []string { return layout(without(paras, 1, 2), false) },
	} {
		if len(body)+2 <= h {
			break
		}
		body = try()
	}
	if len(body)+2 > h && h > 3 {
		last := body[len(body)-1]
		body = append(body[:h-3], last)
	}
	return box(m.st, tr.WelcomeTitle, body, bw, min(len(body)+2, h), true)
}

// header is the chain, the checkpoint line and the status line.
func (m *model) header() []string {
	chain, title := m.chain(), m.checkpointLine()
	if m.served && (m.at != viewTour || m.rqv().HeldCount() > 0) {
		chain = m.rqv().Chain(m.w, m.at == viewRequests)
	}
	if m.at != viewTour {
		title = m.viewTitle()
	} else if m.inTrack() {
		title = m.trackLine()
	}
	return append([]string{fit(chain, m.w), fit(title, m.w), fit(m.status(), m.w)}, m.classLines()...)
}

// chain draws the seven phases, each done (✓, with its time), current (▶) or pending (·).
func (m *model) chain() string {
	st := m.st.Chain
	stop := m.displayed()
	done := map[server.Phase]time.Duration{}
	var cur server.Phase
	if stop != nil {
		for _, t := range stop.Timings {
			done[t.Phase] = t.Duration
		}
		cur = stop.Checkpoint.Phase
	}
	allDone := m.served && m.review < 0
	render := func(times bool, arrow string) string {
		var parts []string
		for _, p := range server.Phases() {
			d, isDone := done[p]
			switch {
			case isDone || allDone:
				s := st.Done.Render(m.st.Markers.Done + string(p))
				if times && isDone {
					s += " " + st.Time.Render(shortDuration(d))
				}
				parts = append(parts, s)
			case p == cur:
				parts = append(parts, st.Current.Render(m.st.Markers.Current+string(p)))
			default:
				parts = append(parts, st.Pending.Render(m.st.Markers.Pending+string(p)))
			}
		}
		return strings.Join(parts, st.Arrow.Render(arrow))
	}
	s := render(true, " → ")
	if ansi.StringWidth(s) > m.w {
		s = render(false, " → ")
	}
	if ansi.StringWidth(s) > m.w {
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

// checkpointLine names the checkpoint on screen and its place among all checkpoints.
func (m *model) checkpointLine() string {
	stop := m.displayed()
	if stop == nil {
		return m.st.Status.Note.Render(m.tr.StartingServer)
	}
	all := server.Checkpoints()
	pos := 0
	for i, c := range all {
		if c.ID() == stop.Checkpoint.ID() {
			pos = i + 1
		}
	}
	right := "  " + fmt.Sprintf(m.tr.CheckpointOf, pos, len(all))
	// The checkpoint's own title is the server's, in English; in another language the
	// translated title of the lesson step for it stands in.
	title := stop.Checkpoint.Title
	if m.tr.Lang() != i18n.English && m.content != nil {
		if step, ok := m.content.Step(stop.Checkpoint.ID()); ok && step.Title != "" {
			title = step.Title
		}
	}
	left := m.st.Chain.Checkpoint.Render(stop.Checkpoint.ID()) + "  " + m.st.Chain.Title.Render(title)
	room := m.w - ansi.StringWidth(right)
	if room < 20 {
		return left
	}
	return fit(left, room) + m.st.Status.Note.Render(right)
}

// status says what the server is doing, and whether the screen shows an earlier stop.
func (m *model) status() string {
	st, tr := m.st.Status, m.tr
	live := m.live()
	where := ""
	switch {
	case m.failed != nil:
		where = tr.WhereFailed
	case m.served:
		where = tr.WhereServing
	case m.running:
		where = fmt.Sprintf(tr.WhereRunningTo, m.target)
	case live != nil:
		where = fmt.Sprintf(tr.WherePausedAt, live.Checkpoint.ID())
	}
	serving := tr.StatusServing
	if m.srv != nil {
		serving = fmt.Sprintf(tr.StatusServingAt, m.srv.Address())
	}
	var s string
	// After serve the status ends with a hint: the longest of its forms that leaves room for
	// what comes before and after it (a held request, a note), so that at 80 columns it is
	// not cut mid-word.
	served := func(hints ...string) string {
		extra := ""
		if n := m.rqv().HeldCount(); n > 0 {
			extra = fmt.Sprintf(tr.StatusHeld, n) + " · "
		}
		if d, n := m.exView().Done(); n > 0 {
			extra += fmt.Sprintf(tr.StatusExercises, d, n) + " · "
		}
		if m.note != "" {
			extra += " · " + m.note
		}
		for _, srv := range []string{serving, tr.StatusServing} {
			for _, h := range hints {
				if ansi.StringWidth(extra+srv+h) <= m.w {
					return st.Served.Render(srv) + st.Note.Render(h)
				}
			}
		}
		return st.Served.Render(tr.StatusServing)
	}
	switch {
	case m.review >= 0:
		shown := m.history[m.review]
		s = st.Review.Render(" "+fmt.Sprintf(tr.StatusReviewing, m.review+1, len(m.history), shown.Checkpoint.ID())+" ") +
			fmt.Sprintf(tr.StatusReviewWhere, where) + st.Note.Render(tr.StatusReviewNote)
	case m.failed != nil:
		s = st.Failed.Render(tr.StatusFailed) + oneLine(m.failed.Error()) + st.Note.Render(tr.StatusQuits)
	case m.served && m.at != viewTour:
		s = served(tr.StatusBackToLesson, tr.StatusBackToLessonShort, "")
	case m.served && m.inTrack() && m.note != "":
		s = served("") // the note matters more than the reminder
	case m.served && m.inTrack():
		s = served(tr.StatusTrack, tr.StatusTrackShort, "")
	case m.served && len(m.track) > 0:
		s = served(tr.StatusAllDone, tr.StatusAllDoneShort, tr.StatusAllDoneShortest, "")
	case m.served:
		s = served(tr.StatusAllDoneNoTrack, tr.StatusAllDoneNoTrackShort, tr.StatusAllDoneNoTrackShortest, "")
	case m.running && m.auto > 0:
		s = st.Running.Render(fmt.Sprintf(tr.StatusRunningTo, m.target)) + st.Paused.Render(tr.StatusAutoRunning)
	case m.running:
		s = st.Running.Render(fmt.Sprintf(tr.StatusRunningTo, m.target))
	case live != nil && m.auto > 0:
		s = st.Paused.Render(fmt.Sprintf(tr.StatusPausedAt, live.Checkpoint.ID())) + st.Paused.Render(fmt.Sprintf(tr.StatusAutoNote, m.auto))
	case live != nil && m.note == tr.NoteAutoOff:
		s = st.Paused.Render(fmt.Sprintf(tr.StatusPausedAt, live.Checkpoint.ID())) // the note says what space does
	case live != nil:
		s = st.Paused.Render(fmt.Sprintf(tr.StatusPausedAt, live.Checkpoint.ID())) + st.Note.Render(tr.StatusPausedNote)
	default:
		s = st.Running.Render(tr.StatusStarting)
	}
	if d, n := m.exView().Done(); n > 0 {
		s = st.Served.Render(fmt.Sprintf(tr.StatusExercises, d, n)) + " · " + s
	}
	if n := m.rqv().HeldCount(); n > 0 {
		s = st.Paused.Render(fmt.Sprintf(tr.StatusHeld, n)) + " · " + s
	}
	if m.side && m.at == viewTour && m.note == "" {
		s += st.Note.Render(tr.StatusSideBySide)
	}
	if mod, written, ok := m.fetch.Progress(); ok {
		s += st.Note.Render(fmt.Sprintf(tr.StatusFetching, mod, written))
	}
	if m.note != "" {
		s += st.Note.Render(" · " + m.note)
	}
	return s
}

// oneLine flattens an error message for the status line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// shortHelp is the help bar: the keys that matter now.
func (m *model) shortHelp() []key.Binding {
	k, tr := m.keys, m.tr
	switch {
	case m.lay.small:
		return []key.Binding{k.Quit}
	case m.source.Typing():
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", tr.BarSearch)),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarCancel)),
		}
	case m.showHelp:
		return []key.Binding{key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", tr.BarScroll)),
			key.NewBinding(key.WithKeys("?"), key.WithHelp(tr.KeyAnyOtherKey, tr.BarCloseHelp)), k.Quit}
	case m.welcome:
		return []key.Binding{key.NewBinding(key.WithKeys(" "), key.WithHelp(tr.KeyAnyKey, tr.BarBegin)), k.Quit}
	case m.info != nil:
		return []key.Binding{key.NewBinding(key.WithKeys(" "), key.WithHelp(tr.KeyAnyKey, tr.BarClose)), k.Quit}
	case m.exView().Capturing():
		return m.exView().Keys() // the answer line's
	case m.capturingView() != nil:
		return m.capturingView().Keys() // a text box takes every key: its own are all the bar says
	case m.at != viewTour:
		return m.viewHelp()
	}
	// The bar is cut at the window's width: the keys that matter most come first.
	var out []key.Binding
	switch {
	case m.source.Searching():
		out = append(out, k.MatchNext, k.OpenMatch, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarClearSearch)))
	case m.source.Browsing():
		out = append(out, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarBackToStep)))
	}
	switch {
	case m.side:
		out = append(out, key.NewBinding(key.WithKeys("s"), key.WithHelp("s", tr.BarClose)))
		if m.missingOnScreen() != nil && !m.fetch.Off() {
			out = append(out, k.Fetch)
		}
	case m.source.Upstream() && m.source.Missing() != nil && !m.fetch.Off():
		out = append(out, k.Fetch)
	}
	switch {
	case m.inTrack():
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space/n", tr.BarNext)),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", tr.BarBack)),
			key.NewBinding(key.WithKeys("r"), key.WithHelp("r", tr.BarRerun)))
	case m.serveStop() && len(m.track) > 0:
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space/n", tr.BarTrack)),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", tr.BarBack)))
	case m.review >= 0:
		out = append(out,
			key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", tr.BarEarlierLater)),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", tr.BarLive)))
	default:
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space", tr.BarNext)),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", tr.BarBack)))
	}
	out = append(out, k.Help, k.Quit, k.FocusNext, m.zoomBinding())
	if m.served {
		out = append(out, k.Served, key.NewBinding(key.WithKeys(":"), key.WithHelp(":", tr.BarCommand)))
	}
	switch {
	case m.focus == paneState && m.inTrack():
		out = append(out, k.Toggle, k.ExpandAll)
	case m.focus == paneState:
		out = append(out, k.NextChange, k.Toggle, k.Raw)
	case m.inTrack():
		out = append(out, k.Upstream, k.SideBySide, k.Search, k.Wrap)
	default:
		out = append(out, k.Upstream, k.Raw, k.Search, k.Wrap, k.SideBySide)
	}
	return append(out, k.NextPhase, k.ToEnd, k.Phase)
}
