package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/tui/tour"
	"github.com/kubewalk/kubewalk/server"
)

// rect is a place on the screen.
type rect struct{ x, y, w, h int }

// layout places the body for a window size: under the header (and the class lines), over the
// help bar. Under MinWidth×MinHeight only a message shows. The views lay out their panes in
// the body themselves.
type layout struct {
	small bool
	body  rect
}

func computeLayout(w, h, classLines int) layout {
	if w < MinWidth || h < MinHeight {
		return layout{small: true}
	}
	return layout{body: rect{0, headerLines + classLines, w, h - headerLines - classLines - 1}}
}

// resize lays the screen out for a new window size.
func (m *model) resize(w, h int) {
	m.w, m.h = w, h
	m.lay = computeLayout(w, h, m.classLineCount())
	m.help.Width = w
	if m.lay.small {
		return
	}
	m.tour.Layout(m.lay.body.w, m.lay.body.h)
	m.layoutViews()
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
	}
	return m.viewBody()
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
	if mm, fetchOff := m.tour.UpstreamMissing(); mm != nil {
		say := tr.WelcomeNoUpstream
		if fetchOff {
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
	chain, title := m.tour.Chain(m.w), m.tour.TitleLine(m.w)
	if m.tour.Served() && (m.at != viewTour || m.rqv().HeldCount() > 0) {
		chain = m.rqv().Chain(m.w, m.at == viewRequests)
	}
	if m.at != viewTour {
		title = m.viewTitle()
	}
	return append([]string{fit(chain, m.w), fit(title, m.w), fit(m.status(), m.w)}, m.classLines()...)
}

// status says what the server is doing (the walkthrough's), with the held requests, the
// exercises done and the note.
func (m *model) status() string {
	done, all := m.exView().Done()
	return m.tour.Status(m.w, tour.StatusEnv{Note: m.note, Held: m.rqv().HeldCount(), Done: done, All: all, Elsewhere: m.at != viewTour})
}

// oneLine flattens an error message for the status line.
func oneLine(s string) string { return tour.OneLine(s) }

// shortHelp is the help bar: the keys that matter now.
// shortHelp is the help bar: the keys that matter now.
func (m *model) shortHelp() []key.Binding {
	k, tr := m.keys, m.tr
	switch {
	case m.lay.small:
		return []key.Binding{k.Quit}
	case m.tour.Typing():
		return m.tour.Bar(m.zoomBinding()) // the search line's enter and esc
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
	return m.tour.Bar(m.zoomBinding())
}
