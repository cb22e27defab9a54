package tui

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// refreshEvery bounds how often the Requests view re-reads the store while events keep
// coming: under load one re-read covers many requests.
const refreshEvery = 50 * time.Millisecond

// reqQuery is what the loaders read: the filter, the traces wanted by ID besides the list (the
// kubectl pane's), and a sequence number. It is shared between the update loop (which writes
// it) and the loaders (tea.Cmds); loads are serialised so that a higher sequence number is
// always a later snapshot.
type reqQuery struct {
	mu     sync.Mutex
	filter tracing.Filter
	want   []string

	loadMu sync.Mutex
	seq    uint64
}

func (q *reqQuery) set(f tracing.Filter, want []string) {
	q.mu.Lock()
	q.filter, q.want = f, want
	q.mu.Unlock()
}

// reqLoadedMsg is one snapshot of the store (and the breakpoints).
type reqLoadedMsg struct {
	seq         uint64
	traces      []tracing.Trace // newest first
	extra       map[string]tracing.Trace
	dropped     uint64
	held        []HeldRequest
	breakpoints []string
	waiter      bool // from the subscription waiter: re-arm it
	closed      bool // the subscription's channel was closed
}

// ownRequest reports whether kubewalk itself made the request: its clients name themselves
// "kubewalk-…" in the User-Agent (the panel's and the state pane's health checks,
// server.SelfCheckAgent; the exercise checks; the loopback client). The Requests view counts
// them with the loopback traffic, hidden until L, or they would bury the learner's requests.
func ownRequest(t tracing.Trace) bool { return strings.HasPrefix(t.UserAgent, "kubewalk-") }

// load reads a snapshot. It runs in a tea.Cmd.
func load(reqs Requests, bps Breakpoints, q *reqQuery) reqLoadedMsg {
	q.loadMu.Lock()
	defer q.loadMu.Unlock()
	q.seq++
	q.mu.Lock()
	f, want := q.filter, append([]string(nil), q.want...)
	q.mu.Unlock()
	msg := reqLoadedMsg{seq: q.seq, extra: map[string]tracing.Trace{}}
	if bps != nil {
		msg.held = bps.Held()
		msg.breakpoints = bps.List()
		for _, h := range msg.held {
			want = append(want, h.ID)
		}
	}
	msg.traces = reqs.List(f)
	if !f.Loopback {
		msg.traces = slices.DeleteFunc(msg.traces, func(t tracing.Trace) bool { return ownRequest(t) })
	}
	sort.SliceStable(msg.traces, func(i, j int) bool { return msg.traces[i].Seq > msg.traces[j].Seq })
	for _, id := range want {
		if t, ok := reqs.Get(id); ok {
			msg.extra[id] = t
		}
	}
	msg.dropped = reqs.Dropped()
	return msg
}

// rqPane names a pane of the Requests view.
type rqPane int

const (
	rqList rqPane = iota
	rqLane
	rqDetails
	rqSource
)

// name is the pane's name in its title and the tab bar.
func (p rqPane) name(tr *i18n.Strings) string {
	return [...]string{tr.PaneRequests, tr.PaneLane, tr.PaneRequest, tr.PaneStageSource}[p]
}

// requestsView is the Requests view: the live list, the selected request's lane (a picture of
// its stages and the selected stage's details), its attributes, and the code of the stage.
type requestsView struct {
	st *Styles
	tr *i18n.Strings

	list    frame
	lane    *textPane
	details *textPane
	source  *sourcePane
	focus   rqPane
	tab     rqPane // the pane in the shared place of the stacked layout
	wide    bool

	loaded  bool
	seq     uint64
	all     []tracing.Trace // as the store filtered them, newest first
	shown   []tracing.Trace // after the :clear mark
	extra   map[string]tracing.Trace
	dropped uint64
	held    map[string]HeldRequest

	loopback bool
	text     string
	typing   bool
	input    []rune
	since    uint64 // :clear hides traces up to this Seq

	sel string // the selected trace's ID
	// chosen is set once the learner (or a held request) picks a request; until then, and
	// again after g (top) or :clear, the selection follows the newest request, so that
	// :requests opens on the request just made rather than on whatever came first.
	chosen bool
	stage  int // the selected stage of its lane
	cursor int
	offset int

	srcKey string // the trace and stage whose code the source pane shows
	notice string // why the list is empty, when it is not for a filter
}

func newRequestsView(st *Styles, tr *i18n.Strings, content Content) *requestsView {
	v := &requestsView{
		st: st, tr: tr, list: frame{st: st, tr: tr, dirty: true},
		lane:    newTextPane(st, tr, rqLane.name(tr)),
		details: newTextPane(st, tr, rqDetails.name(tr)),
		source:  newSourcePane(st, tr, stageContent{content}),
		extra:   map[string]tracing.Trace{},
		held:    map[string]HeldRequest{},
		tab:     rqLane,
	}
	v.source.empty = tr.RqSelectStage
	return v
}

// stageContent emphasises the first line of a declaration the lessons' resolver returns
// without a focus, so the source pane marks the stage's function with ▶.
type stageContent struct{ Content }

func (c stageContent) Local(anchor, focus string) (Location, error) {
	loc, err := c.Content.Local(strings.TrimPrefix(anchor, "server/"), focus)
	return emphasiseStart(loc), err
}

func (c stageContent) Upstream(symbol string) (Location, error) {
	loc, err := c.Content.Upstream(symbol)
	return emphasiseStart(loc), err
}

func emphasiseStart(loc Location) Location {
	if loc.FocusStart == 0 && loc.StartLine > 0 {
		loc.FocusStart, loc.FocusEnd = loc.StartLine, loc.StartLine
	}
	return loc
}

// filter is what the store is asked for.
func (v *requestsView) filter() tracing.Filter {
	return tracing.Filter{Loopback: v.loopback, Text: v.text}
}

// Loaded takes a snapshot; it reports false for one older than what is shown.
func (v *requestsView) Loaded(msg reqLoadedMsg) bool {
	if msg.seq <= v.seq {
		return false
	}
	v.seq, v.loaded = msg.seq, true
	v.all, v.extra, v.dropped = msg.traces, msg.extra, msg.dropped
	v.held = map[string]HeldRequest{}
	for _, h := range msg.held {
		v.held[h.ID] = h
	}
	v.applyMark()
	return true
}

// applyMark recomputes the shown list and keeps the cursor on the selected trace.
func (v *requestsView) applyMark() {
	v.shown = v.all
	if v.since > 0 {
		n := 0
		for n < len(v.all) && v.all[n].Seq > v.since {
			n++
		}
		v.shown = v.all[:n]
	}
	v.cursor = -1
	for i, t := range v.shown {
		if t.ID == v.sel {
			v.cursor = i
			break
		}
	}
	if len(v.shown) > 0 && ((v.cursor < 0 && v.sel == "") || (!v.chosen && v.shown[0].ID != v.sel)) {
		v.sel, v.cursor, v.stage = v.shown[0].ID, 0, pickStage(v.shown[0], "")
	}
	v.keepCursorVisible()
	v.list.dirty = true
	v.refreshLane(false)
}

// selected is the selected trace, if it is still known.
func (v *requestsView) selected() (tracing.Trace, bool) {
	if v.sel == "" {
		return tracing.Trace{}, false
	}
	if v.cursor >= 0 && v.cursor < len(v.shown) && v.shown[v.cursor].ID == v.sel {
		return v.shown[v.cursor], true
	}
	if t, ok := v.extra[v.sel]; ok {
		return t, true
	}
	for _, t := range v.all {
		if t.ID == v.sel {
			return t, true
		}
	}
	return tracing.Trace{}, false
}

// trace returns the trace with the given ID, if the list (or the traces it keeps beside it)
// has it.
func (v *requestsView) trace(id string) (tracing.Trace, bool) {
	if t, ok := v.extra[id]; ok {
		return t, true
	}
	for _, t := range v.all {
		if t.ID == id {
			return t, true
		}
	}
	return tracing.Trace{}, false
}

// Select shows a trace by ID, at the stage named (or, when stage is "", where it is held or
// stopped, else its first stage).
func (v *requestsView) Select(id, stage string) {
	v.chosen = true
	if v.sel != id {
		v.sel = id
		v.stage = -1
	}
	v.applyMark()
	t, ok := v.selected()
	if !ok {
		return
	}
	v.stage = pickStage(t, stage)
	v.refreshLane(true)
}

// pickStage finds the stage to select in a lane.
func pickStage(t tracing.Trace, stage string) int {
	for i, s := range t.Stages {
		if stage != "" && (s.Name == stage || (stage == tracing.StageMutatingAdmission && strings.HasPrefix(s.Name, tracing.StageMutatingPrefix))) {
			return i
		}
	}
	for i, s := range t.Stages {
		if s.Outcome == tracing.OutcomeHeld || s.Stopped {
			return i
		}
	}
	return 0
}

// Move moves the list cursor by n rows and selects the trace there.
func (v *requestsView) Move(n int) {
	if len(v.shown) == 0 {
		return
	}
	c := max(min(v.cursor+n, len(v.shown)-1), 0)
	if v.cursor < 0 {
		c = 0
	}
	v.cursor = c
	// A jump to the top (g) follows the newest request again; any other move picks one.
	v.chosen = !(c == 0 && n <= -len(v.shown))
	if t := v.shown[c]; t.ID != v.sel {
		v.sel = t.ID
		v.stage = pickStage(t, "")
	}
	v.keepCursorVisible()
	v.list.dirty = true
	v.refreshLane(true)
}

// MoveStage selects the next (d=1) or previous (d=-1) stage of the lane.
func (v *requestsView) MoveStage(d int) {
	t, ok := v.selected()
	if !ok || len(t.Stages) == 0 {
		return
	}
	v.stage = max(min(v.stage+d, len(t.Stages)-1), 0)
	v.refreshLane(true)
}

// Stage is the selected stage.
func (v *requestsView) Stage() (tracing.Trace, tracing.Stage, bool) {
	t, ok := v.selected()
	if !ok || v.stage < 0 || v.stage >= len(t.Stages) {
		return t, tracing.Stage{}, false
	}
	return t, t.Stages[v.stage], true
}

// listRows is how many trace rows fit in the list pane.
func (v *requestsView) listRows() int {
	n := v.list.h - 3 // borders and the header
	if v.typing || v.text != "" {
		n--
	}
	return max(n, 1)
}

func (v *requestsView) keepCursorVisible() {
	rows := v.listRows()
	if v.cursor >= 0 {
		if v.cursor < v.offset {
			v.offset = v.cursor
		}
		if v.cursor >= v.offset+rows {
			v.offset = v.cursor - rows + 1
		}
	}
	v.offset = max(min(v.offset, len(v.shown)-rows), 0)
}

// SetSize lays the view's panes out in rects.
func (v *requestsView) SetSize(wide bool, list, lane, details, source rect) {
	v.wide = wide
	if v.list.w != list.w || v.list.h != list.h {
		v.list.w, v.list.h = list.w, list.h
		v.list.dirty = true
	}
	v.lane.SetSize(lane.w, lane.h)
	v.details.SetSize(details.w, details.h)
	v.source.SetSize(source.w, source.h)
	v.keepCursorVisible()
	v.refreshLane(false)
}

// refreshLane re-renders the lane and details panes for the selection; top scrolls them up.
func (v *requestsView) refreshLane(top bool) {
	t, ok := v.selected()
	w := v.lane.Inner()
	tr := v.tr
	if !ok {
		msg := tr.RqSelectRequest
		if len(v.shown) == 0 {
			msg = tr.RqLaneLater
		}
		v.lane.SetLines(wrapLines(v.st.Lane.Dim.Render(msg), w))
		v.lane.SetTitle(rqLane.name(tr), "", "")
		v.details.SetLines(nil)
		v.details.SetTitle(rqDetails.name(tr), "", "")
		return
	}
	if v.stage < 0 || v.stage >= len(t.Stages) {
		v.stage = pickStage(t, "")
	}
	pic := lanePicture(v.st, tr, t, v.stage, w, true)
	if _, lh := v.lane.Size(); len(pic) > max(lh-2, 0)/2 {
		pic = lanePicture(v.st, tr, t, v.stage, w, false)
	}
	lines := append([]string{}, pic...)
	if v.stage >= 0 && v.stage < len(t.Stages) {
		lines = append(lines, "")
		lines = append(lines, stageDetails(v.st, tr, t.Stages[v.stage], w, true)...)
	}
	v.lane.SetLines(lines)
	code := "…"
	if t.Code != 0 {
		code = fmt.Sprint(t.Code)
	}
	v.lane.SetTitle(rqLane.name(tr), t.Verb+" "+resourceText(t)+" → "+code, fmt.Sprintf(tr.RqStageOf, v.stage+1, len(t.Stages)))
	if top {
		v.lane.Top()
		v.details.Top()
	}
	h, held := v.held[t.ID]
	var hp *HeldRequest
	if held {
		hp = &h
	}
	v.details.SetLines(requestLines(v.st, tr, t, hp, v.details.Inner()))
	title := fmt.Sprintf(tr.RqAuditID, t.ID)
	if held {
		title = fmt.Sprintf(tr.RqHeldTitle, title)
	}
	v.details.SetTitle(rqDetails.name(tr), title, "")
}

// resourceText is a trace's resource as the list shows it: resource[/subresource]
// [namespace/]name, or the path of a non-resource request.
func resourceText(t tracing.Trace) string {
	if t.Resource == "" {
		return t.Path
	}
	s := t.Resource
	if t.Subresource != "" {
		s += "/" + t.Subresource
	}
	switch {
	case t.Namespace != "" && t.Name != "":
		s += " " + t.Namespace + "/" + t.Name
	case t.Namespace != "":
		s += " -n " + t.Namespace
	case t.Name != "":
		s += " " + t.Name
	}
	return s
}

// requestLines are the request's attributes (and, when it is held, what it is held for).
func requestLines(st *Styles, tr *i18n.Strings, t tracing.Trace, held *HeldRequest, w int) []string {
	var out []string
	// The labels' column is as wide as the widest label in this language (CJK labels are two
	// cells a character), at least the 10 cells English has always had.
	labels := []string{tr.RqUser, tr.RqGroups, tr.RqActingAs, tr.RqVerb, tr.RqResource, tr.RqNamespace,
		tr.RqName, tr.RqPath, tr.RqResponse, tr.RqReceived, tr.RqAgent, tr.RqAuditCol}
	labelW := 10
	for _, l := range labels {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	row := func(label, value string) {
		if value == "" {
			return
		}
		label = i18n.PadRight(label, labelW) + " "
		for i, l := range wrapLines(value, max(w-labelW-1, 10)) {
			if i == 0 {
				out = append(out, st.Lane.Dim.Render(label)+l)
			} else {
				out = append(out, strings.Repeat(" ", labelW+1)+l)
			}
		}
	}
	if held != nil {
		for _, l := range wrapLines(fmt.Sprintf(tr.RqHeldAt, held.Stage, held.Since.Format("15:04:05"), held.Spec), w) {
			out = append(out, st.Lane.Held.Render(l))
		}
		for _, l := range wrapLines(tr.RqHeldKeys, w) {
			out = append(out, st.Lane.Dim.Render(l))
		}
		out = append(out, "")
	}
	user := t.User
	if t.Loopback {
		user += tr.RqLoopbackUser
	}
	row(tr.RqUser, user)
	row(tr.RqGroups, strings.Join(t.Groups, ", "))
	if t.Impersonator != "" {
		row(tr.RqActingAs, fmt.Sprintf(tr.RqImpersonatedBy, t.User, t.Impersonator))
	}
	verb := t.Verb
	if t.LongRunning {
		verb += tr.RqLongRunning
	}
	row(tr.RqVerb, verb)
	gv := t.APIVersion
	if t.APIGroup != "" {
		gv = t.APIGroup + "/" + t.APIVersion
	}
	res := t.Resource
	if t.Subresource != "" {
		res += "/" + t.Subresource
	}
	if res != "" && gv != "" {
		res += " (" + gv + ")"
	}
	row(tr.RqResource, res)
	row(tr.RqNamespace, t.Namespace)
	row(tr.RqName, t.Name)
	if held != nil {
		// What a held write would store comes right after who, what and where.
		if held.Body == "" {
			for _, l := range wrapLines(tr.RqBodyNone, w) {
				out = append(out, st.Lane.Dim.Render(l))
			}
		} else {
			out = append(out, st.Lane.Heading.Render(tr.RqBodyDecoded))
			for _, l := range strings.Split(strings.TrimRight(held.Body, "\n"), "\n") {
				out = append(out, wrapLines("  "+expandTabs(l), w)...)
			}
		}
	}
	row(tr.RqPath, t.Path)
	code := tr.RqInFlight
	if t.Code != 0 {
		code = fmt.Sprint(t.Code)
	}
	if t.Done && t.Duration > 0 {
		code = fmt.Sprintf(tr.RqAfter, code, fmtDuration(t.Duration))
	}
	if t.Bytes > 0 {
		code = fmt.Sprintf(tr.RqBytes, code, t.Bytes)
	}
	row(tr.RqResponse, code)
	if !t.Received.IsZero() {
		row(tr.RqReceived, t.Received.Format("15:04:05.000"))
	}
	row(tr.RqAgent, t.UserAgent)
	row(tr.RqAuditCol, t.ID)
	return out
}

// listView renders the list pane.
func (v *requestsView) listView(focused bool, reqsWired, served bool, now time.Time) []string {
	v.list.SetFocused(focused)
	if !v.list.dirty && v.list.view != nil {
		return v.list.view
	}
	tr := v.tr
	detail := fmt.Sprintf(tr.RqShown, len(v.shown))
	if v.since > 0 {
		detail += tr.RqSinceClear
	}
	if !v.loopback {
		detail += tr.RqLoopbackHidden
	} else {
		detail += tr.RqLoopbackShown
	}
	figure := fmt.Sprintf(tr.RqDropped, v.dropped)
	if n := len(v.held); n > 0 {
		figure = fmt.Sprintf(tr.RqHeldCount, n) + figure
	}
	return v.list.render(rqList.name(tr), detail, figure, func() []string {
		return v.listBody(reqsWired, served)
	})
}

// Column widths of the list.
const (
	colTime    = 8
	colVerb    = 7
	colCode    = 4
	colLatency = 7
)

func (v *requestsView) listBody(reqsWired, served bool) []string {
	w := v.list.w - 2
	if w <= 0 {
		return nil
	}
	st, tr := v.st.List, v.tr
	rest := max(w-3-colTime-colVerb-colCode-colLatency-5, 10)
	userW := min(max(rest*35/100, 6), 20)
	resW := rest - userW
	header := "   " + fit(tr.ColTime, colTime) + " " + fit(tr.ColUser, userW) + " " + fit(tr.ColVerb, colVerb) + " " +
		fit(tr.ColResource, resW) + " " + padLeft(tr.ColCode, colCode) + " " + padLeft(tr.ColLatency, colLatency)
	out := []string{st.Header.Render(fit(header, w))}
	rows := v.listRows()
	switch {
	case !reqsWired:
		out = append(out, wrapLines(st.Dim.Render(tr.RqNotWired), w)...)
	case len(v.shown) == 0 && !v.loaded:
		out = append(out, st.Dim.Render(tr.RqReading))
	case len(v.shown) == 0:
		var msg string
		switch {
		case !served:
			msg = tr.RqNotServing
		case v.text != "":
			msg = fmt.Sprintf(tr.RqNoMatch, v.text)
		case v.since > 0:
			msg = tr.RqNoneSinceClear
		default:
			msg = tr.RqNoneYet
		}
		out = append(out, wrapLines(st.Dim.Render(msg), w)...)
	}
	end := min(v.offset+rows, len(v.shown))
	for i := v.offset; i < end; i++ {
		t := v.shown[i]
		mark := " "
		if i == v.cursor {
			mark = "›"
		}
		flag := " "
		if _, ok := v.held[t.ID]; ok {
			flag = "⏸"
		} else if stoppedAt(t) >= 0 {
			flag = "✗"
		}
		code := "…"
		if _, ok := v.held[t.ID]; ok {
			code = tr.CodeHeld
		} else if t.Code != 0 {
			code = fmt.Sprint(t.Code)
		}
		lat := ""
		if t.Done {
			lat = fmtDuration(t.Duration)
		}
		user := t.User
		if user == "" {
			user = "–"
		}
		line := mark + flag + " " + fit(t.Received.Format("15:04:05"), colTime) + " " + fit(user, userW) + " " +
			fit(t.Verb, colVerb) + " " + fit(resourceText(t), resW) + " " + padLeft(code, colCode) + " " + padLeft(lat, colLatency)
		switch {
		case i == v.cursor:
			line = st.Cursor.Render(fit(line, w))
		case flag == "⏸":
			line = st.Held.Render(line)
		case t.Loopback:
			line = st.Dim.Render(line)
		}
		out = append(out, line)
	}
	if v.typing || v.text != "" {
		for len(out) < rows+1 {
			out = append(out, "")
		}
		out = append(out[:rows+1], v.filterLine())
	}
	return out
}

// filterLine is the / prompt at the bottom of the list.
func (v *requestsView) filterLine() string {
	ps := v.st.Source
	if v.typing {
		return ps.Prompt.Render("/") + string(v.input) + "█" + ps.Info.Render(v.tr.RqFilterTyping)
	}
	return ps.Prompt.Render("/") + v.text + ps.Info.Render(fmt.Sprintf(v.tr.RqFilterMatches, len(v.shown)))
}

// stoppedAt is the index of the stage that stopped t, or -1.
func stoppedAt(t tracing.Trace) int {
	for i, s := range t.Stages {
		if s.Stopped {
			return i
		}
	}
	return -1
}

// padLeft right-aligns s in w cells.
func padLeft(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// FilterKey edits the / filter. It returns true when the filter changed (the store must be
// asked again).
func (v *requestsView) FilterKey(msg tea.KeyMsg) bool {
	v.list.dirty = true
	switch msg.Type {
	case tea.KeyEsc:
		v.typing = false
		v.input = nil
		v.keepCursorVisible()
	case tea.KeyEnter:
		v.typing = false
		v.text = strings.TrimSpace(string(v.input))
		v.keepCursorVisible()
		return true
	case tea.KeyBackspace:
		if len(v.input) > 0 {
			v.input = v.input[:len(v.input)-1]
		}
	case tea.KeyRunes, tea.KeySpace:
		v.input = append(v.input, msg.Runes...)
		if msg.Type == tea.KeySpace && len(msg.Runes) == 0 {
			v.input = append(v.input, ' ')
		}
	}
	return false
}

// StartFilter opens the / prompt with the current filter.
func (v *requestsView) StartFilter() {
	v.typing = true
	v.input = []rune(v.text)
	v.list.dirty = true
	v.keepCursorVisible()
}

// ClearFilter drops the text filter; it reports whether there was one.
func (v *requestsView) ClearFilter() bool {
	if v.text == "" {
		return false
	}
	v.text = ""
	v.list.dirty = true
	v.keepCursorVisible()
	return true
}

// Clear hides every request so far (the :clear command) and drops the filter.
func (v *requestsView) Clear() {
	if len(v.all) > 0 {
		v.since = v.all[0].Seq
	}
	v.text, v.typing, v.input = "", false, nil
	v.chosen = false
	v.applyMark()
}

// Unclear shows again what Clear hid.
func (v *requestsView) Unclear() {
	v.since = 0
	v.applyMark()
}

// ShowSource points the source pane at the selected stage's code. It returns a command when
// the code must be loaded, and false when the stage names no code.
func (v *requestsView) ShowSource() (tea.Cmd, bool) {
	t, s, ok := v.Stage()
	if !ok || (s.Source.Anchor == "" && s.Source.Upstream == "") {
		return nil, false
	}
	key := t.ID + "\x00" + s.Name
	if key == v.srcKey {
		return nil, true
	}
	v.srcKey = key
	title := fmt.Sprintf(v.tr.RqStageTitle, stageLabel(v.tr, s.Name, false))
	step := Step{ID: key, Title: title, Anchor: s.Source.Anchor, Upstream: s.Source.Upstream}
	v.source.upstream = s.Source.Anchor == ""
	return v.source.SetStep(step, true, server.Checkpoint{}), true
}
