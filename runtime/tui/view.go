package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/x/ansi"

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

func computeLayout(w, h int) layout {
	if w < MinWidth || h < MinHeight {
		return layout{small: true}
	}
	l := layout{wide: w >= wideWidth}
	l.body = rect{0, headerLines, w, h - headerLines - 1}
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
	m.lay = computeLayout(w, h)
	m.help.Width = w
	if m.lay.small {
		return
	}
	m.source.SetSize(m.lay.source.w, m.lay.source.h)
	if m.lay.wide {
		m.state.SetSize(m.lay.upper.w, m.lay.upper.h)
	} else {
		m.state.SetSize(m.lay.shared.w, m.lay.shared.h)
	}
	m.lesson.SetSize(m.lay.shared.w, m.lay.shared.h)
	m.kubect.SetSize(m.lay.shared.w, m.lay.shared.h)
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
		msg := fmt.Sprintf("kubewalk needs at least %d×%d; this window is %d×%d", MinWidth, MinHeight, m.w, m.h)
		lines := append(wrapLines(m.st.Small.Render(msg), m.w), "", ansi.Truncate("q quits", m.w, ""))
		return strings.Join(placeCenter(lines, m.w, m.h), "\n")
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header()...)
	body := m.body()
	if m.prompt.open {
		// The suggestions cover the bottom of the body, right above the prompt line.
		over := m.prompt.overlay(m.st, m.w)
		if len(over) > len(body) {
			over = over[len(over)-len(body):]
		}
		body = append(append([]string{}, body[:len(body)-len(over)]...), over...)
	}
	lines = append(lines, body...)
	if m.prompt.open {
		lines = append(lines, m.prompt.line(m.st, m.w))
	} else {
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
	k := m.keys
	sections := []struct {
		title string
		keys  []key.Binding
	}{
		{"The live server", []key.Binding{k.Next, k.NextPhase, k.ToEnd, k.Phase}},
		{"Reviewing", []key.Binding{k.Back, k.Forward, k.Live}},
		{"Panes", []key.Binding{k.FocusNext, k.FocusPrev, k.Served,
			joinHelp(k.Up, k.Down, "up/down"), joinHelp(k.PageUp, k.PageDown, "page up/down"), joinHelp(k.Top, k.Bottom, "top/bottom")}},
		{"Source", []key.Binding{k.Upstream, k.Wrap, k.Search, k.MatchNext, k.OpenMatch}},
		{"State", []key.Binding{k.NextChange, k.Toggle, k.ExpandAll, k.CollapseAll, k.Raw}},
		{"Requests view (:req)", []key.Binding{k.Filter, k.Loopback, joinHelp(k.Back, k.Forward, "a stage of the lane"), k.StageSource, k.StageEtcd,
			k.HeldStep, k.HeldRun, k.HeldAbort}},
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
		"space runs the live server to its next checkpoint and pauses it there. ← reviews the stops recorded so far (their code, state and lesson); the server stays where it is.",
		"1-7 go to the first step of a phase: ahead of the server they run it there; behind, they review that phase's first recorded stop.",
		"/ searches all of kubewalk's server/ source: n/N move between matches across files (the search line names the file), enter keeps the match's file open, esc goes back to the step's code.",
		"In the state pane + marks what this step added and ~ what it changed: the pane opens on the first of them, and ] / [ jump between them. enter opens a node, or shows a row cut at the edge (…) whole; r shows the live objects.",
		"After serve, K switches between the lesson and the kubectl panel.",
		": opens the command line, as in k9s: :req, :k (kubectl), :etcd, :break… — :help lists the commands.",
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
	title := "Keys · any key closes"
	if len(body) > vis {
		title = fmt.Sprintf("Keys · ↑/↓ scroll (%d%%) · any other key closes", 100*(m.helpOffset+vis)/len(body))
		body = body[m.helpOffset : m.helpOffset+vis]
	}
	return box(m.st, title, body, bw, min(len(body)+2, h), true)
}

// commandsHelp is what :help shows: the commands and how the after-serve views work.
func commandsHelp(st *Styles) *infoBox {
	lines := []string{"The : command line, as in k9s: tab completes, ↑/↓ bring back earlier lines, enter runs, esc backs out.", ""}
	w := 0
	for _, c := range commands {
		w = max(w, ansi.StringWidth(c.usage()))
	}
	for _, c := range commands {
		lines = append(lines, "  "+st.Help.FullKey.Render(fit(c.usage(), w))+"  "+st.Help.FullDesc.Render(c.desc))
	}
	lines = append(lines, "",
		"The Requests view lists every request the server handled, newest first. A request's lane shows each stage of the chain it went through as a box: ✓ passed, ✗ STOPPED the request, ⏸ HELD by a breakpoint, – did not apply. ←/→ select a stage, s opens its code, S a storage stage's etcd key; / filters, L shows the server's own loopback requests, :clear starts the list afresh.",
		"",
		"A breakpoint (:break authorization:user=bob) holds matching requests: the screen jumps to one, and space/n steps it on to the next breakpoint stage, E lets it run to the end, x fails it at that stage with an error the client sees. ? lists every key.")
	return &infoBox{title: "Commands · any key closes", lines: lines}
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
	k := m.st.Help.FullKey
	var phases []string
	for _, p := range server.Phases() {
		phases = append(phases, string(p))
	}
	paras := [][]string{
		{"kubewalk starts a real Kubernetes-style API server on this machine (k8s.io/apiserver with an embedded etcd) and walks you through its startup, phase by phase:"},
		{"  " + strings.Join(phases, " → ")},
		{"The server is real, and paused right now at its first checkpoint. At every stop you see the code that just ran, the state it built (+ new, ~ changed) and a lesson about it. After serve, kubectl works against it."},
		{
			k.Render("  space ") + " run the server to its next checkpoint",
			k.Render("  ←     ") + " review an earlier stop (the server stays where it is)",
			k.Render("  ?     ") + " every key",
		},
		{m.st.Status.Note.Render("Press any key to begin · q quits")},
	}
	var body []string
	for i, p := range paras {
		if i > 0 {
			body = append(body, "")
		}
		for _, l := range p {
			for _, wl := range wrapLines(l, inner) {
				body = append(body, " "+wl)
			}
		}
	}
	return box(m.st, "Welcome to kubewalk", body, bw, min(len(body)+2, h), true)
}

// header is the chain, the checkpoint line and the status line.
func (m *model) header() []string {
	chain, title := m.chain(), m.checkpointLine()
	if m.served && (m.at != viewTour || len(m.rq.held) > 0) {
		chain = m.requestChain()
	}
	if m.at != viewTour {
		title = m.viewTitle()
	}
	return []string{fit(chain, m.w), fit(title, m.w), fit(m.status(), m.w)}
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
				s := st.Done.Render("✓ " + string(p))
				if times && isDone {
					s += " " + st.Time.Render(shortDuration(d))
				}
				parts = append(parts, s)
			case p == cur:
				parts = append(parts, st.Current.Render("▶ "+string(p)))
			default:
				parts = append(parts, st.Pending.Render("· "+string(p)))
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
		return m.st.Status.Note.Render("Starting the server…")
	}
	all := server.Checkpoints()
	pos := 0
	for i, c := range all {
		if c.ID() == stop.Checkpoint.ID() {
			pos = i + 1
		}
	}
	right := fmt.Sprintf("  checkpoint %d/%d", pos, len(all))
	left := m.st.Chain.Checkpoint.Render(stop.Checkpoint.ID()) + "  " + m.st.Chain.Title.Render(stop.Checkpoint.Title)
	room := m.w - ansi.StringWidth(right)
	if room < 20 {
		return left
	}
	return fit(left, room) + m.st.Status.Note.Render(right)
}

// status says what the server is doing, and whether the screen shows an earlier stop.
func (m *model) status() string {
	st := m.st.Status
	live := m.live()
	where := ""
	switch {
	case m.failed != nil:
		where = "the server failed"
	case m.served:
		where = "the server is serving"
	case m.running:
		where = "the server is running to " + m.target
	case live != nil:
		where = "the server is paused at " + live.Checkpoint.ID()
	}
	var s string
	switch {
	case m.review >= 0:
		shown := m.history[m.review]
		s = st.Review.Render(fmt.Sprintf(" REVIEWING step %d/%d (%s) ", m.review+1, len(m.history), shown.Checkpoint.ID())) +
			"— " + where + st.Note.Render(" · ←/→ step through · esc back to live")
	case m.failed != nil:
		s = st.Failed.Render("✗ FAILED: ") + oneLine(m.failed.Error()) + st.Note.Render(" · q quits")
	case m.served && m.at != viewTour:
		addr := ""
		if m.srv != nil {
			addr = " at " + m.srv.Address()
		}
		s = st.Served.Render("✓ SERVING"+addr) + st.Note.Render(" · :lesson goes back to the walkthrough")
	case m.served:
		addr := ""
		if m.srv != nil {
			addr = " at " + m.srv.Address()
		}
		s = st.Served.Render("✓ SERVING"+addr) + st.Note.Render(" · all phases done · K: try kubectl (the kubectl panel)")
	case m.running:
		s = st.Running.Render("… running to " + m.target)
	case live != nil:
		s = st.Paused.Render("⏸ PAUSED at "+live.Checkpoint.ID()) + st.Note.Render(" · the live server waits here · space: next checkpoint")
	default:
		s = st.Running.Render("… starting the server")
	}
	if n := len(m.rq.held); n > 0 {
		s = st.Paused.Render(fmt.Sprintf("⏸ %d HELD", n)) + " · " + s
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
	k := m.keys
	switch {
	case m.lay.small:
		return []key.Binding{k.Quit}
	case m.source.search.typing:
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "search")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		}
	case m.showHelp:
		return []key.Binding{key.NewBinding(key.WithKeys("up", "down"), key.WithHelp("↑/↓", "scroll")),
			key.NewBinding(key.WithKeys("?"), key.WithHelp("any other key", "close help")), k.Quit}
	case m.welcome:
		return []key.Binding{key.NewBinding(key.WithKeys(" "), key.WithHelp("any key", "begin")), k.Quit}
	case m.info != nil:
		return []key.Binding{key.NewBinding(key.WithKeys(" "), key.WithHelp("any key", "close")), k.Quit}
	case m.at == viewRequests && m.rq.typing:
		return []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "filter")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		}
	case m.at != viewTour:
		return m.viewHelp()
	}
	// The bar is cut at the window's width: the keys that matter most come first.
	var out []key.Binding
	switch {
	case m.source.search.active():
		out = append(out, k.MatchNext, k.OpenMatch, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search")))
	case m.source.Browsing():
		out = append(out, key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to the step's code")))
	}
	if m.review >= 0 {
		out = append(out,
			key.NewBinding(key.WithKeys("left", "right"), key.WithHelp("←/→", "earlier/later")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "live")))
	} else {
		out = append(out, key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "next")),
			key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "back")))
	}
	out = append(out, k.Help, k.Quit, k.FocusNext)
	if m.served {
		out = append(out, k.Served, key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "command")))
	}
	if m.focus == paneState {
		out = append(out, k.NextChange, k.Toggle, k.Raw)
	} else {
		out = append(out, k.Upstream, k.Raw, k.Search, k.Wrap)
	}
	return append(out, k.NextPhase, k.ToEnd, k.Phase)
}
