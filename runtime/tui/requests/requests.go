package requests

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/source"
	"github.com/kubewalk/kubewalk/server"
)

// filter is what the store is asked for.
func (v *Model) filter() tracing.Filter {
	return tracing.Filter{Loopback: v.loopback, Text: v.text}
}

// take takes a snapshot; it reports false for one older than what is shown.
func (v *Model) take(msg loadedMsg) bool {
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
func (v *Model) applyMark() {
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
func (v *Model) selected() (tracing.Trace, bool) {
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
func (v *Model) trace(id string) (tracing.Trace, bool) {
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
func (v *Model) Select(id, stage string) {
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
func (v *Model) Move(n int) {
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
func (v *Model) MoveStage(d int) {
	t, ok := v.selected()
	if !ok || len(t.Stages) == 0 {
		return
	}
	v.stage = max(min(v.stage+d, len(t.Stages)-1), 0)
	v.refreshLane(true)
}

// Stage is the selected stage.
func (v *Model) Stage() (tracing.Trace, tracing.Stage, bool) {
	t, ok := v.selected()
	if !ok || v.stage < 0 || v.stage >= len(t.Stages) {
		return t, tracing.Stage{}, false
	}
	return t, t.Stages[v.stage], true
}

// listRows is how many trace rows fit in the list pane.
func (v *Model) listRows() int {
	n := v.list.h - 3 // borders and the header
	if v.typing || v.text != "" {
		n--
	}
	return max(n, 1)
}

func (v *Model) keepCursorVisible() {
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

// setSize sizes the view's panes to the rects layout placed them in.
func (v *Model) setSize(wide bool, list, lane, details, source rect) {
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
func (v *Model) refreshLane(top bool) {
	t, ok := v.selected()
	w := v.lane.Inner()
	tr := v.tr
	if !ok {
		msg := tr.RqSelectRequest
		if len(v.shown) == 0 {
			msg = tr.RqLaneLater
		}
		v.lane.SetLines(common.WrapLines(v.st.Lane.Dim.Render(msg), w))
		v.lane.SetTitle(PaneLane.name(tr), "", "")
		v.details.SetLines(nil)
		v.details.SetTitle(PaneDetails.name(tr), "", "")
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
	v.lane.SetTitle(PaneLane.name(tr), t.Verb+" "+resourceText(t)+" → "+code, fmt.Sprintf(tr.RqStageOf, v.stage+1, len(t.Stages)))
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
	v.details.SetTitle(PaneDetails.name(tr), title, "")
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
func requestLines(st *common.Styles, tr *i18n.Strings, t tracing.Trace, held *HeldRequest, w int) []string {
	var out []string
	// The labels' column is as wide as the widest label in this language (CJK labels are two
	// cells a character), at least the 10 cells English has always had.
	labels := []string{tr.RqUser, tr.RqGroups, tr.RqActingAs, tr.RqVerb, tr.RqResource, tr.RqNamespace,
		tr.RqName, tr.RqPath, tr.RqChain, tr.RqResponse, tr.RqReceived, tr.RqAgent, tr.RqAuditCol}
	labelW := 10
	for _, l := range labels {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	row := func(label, value string) {
		if value == "" {
			return
		}
		label = i18n.PadRight(label, labelW) + " "
		for i, l := range common.WrapLines(value, max(w-labelW-1, 10)) {
			if i == 0 {
				out = append(out, st.Lane.Dim.Render(label)+l)
			} else {
				out = append(out, strings.Repeat(" ", labelW+1)+l)
			}
		}
	}
	if held != nil {
		for _, l := range common.WrapLines(fmt.Sprintf(tr.RqHeldAt, held.Stage, held.Since.Format("15:04:05"), held.Spec), w) {
			out = append(out, st.Lane.Held.Render(l))
		}
		for _, l := range common.WrapLines(tr.RqHeldKeys, w) {
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
			for _, l := range common.WrapLines(tr.RqBodyNone, w) {
				out = append(out, st.Lane.Dim.Render(l))
			}
		} else {
			out = append(out, st.Lane.Heading.Render(tr.RqBodyDecoded))
			for _, l := range strings.Split(strings.TrimRight(held.Body, "\n"), "\n") {
				out = append(out, common.WrapLines("  "+expandTabs(l), w)...)
			}
		}
	}
	row(tr.RqPath, t.Path)
	row(tr.RqChain, ChainPath(t))
	code := tr.RqInFlight
	if t.Code != 0 {
		code = fmt.Sprint(t.Code)
	}
	if t.Done && t.Duration > 0 {
		code = fmt.Sprintf(tr.RqAfter, code, FmtDuration(t.Duration))
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

// ChainPath is the servers of the delegation chain a request went through, as its lane's
// boxes name them: "aggregator → kube → apiextensions", "aggregator → proxy"; "" when the lane
// has none (a request stopped by the filters, or recorded without the chain).
func ChainPath(t tracing.Trace) string {
	var names []string
	for _, s := range t.Stages {
		if isChainStage(s.Name) {
			names = append(names, s.Name)
		}
	}
	return strings.Join(names, " → ")
}

// isChainStage reports whether a stage is a server of the delegation chain or the proxy hop.
func isChainStage(name string) bool {
	switch name {
	case tracing.StageAggregator, tracing.StageKube, tracing.StageAPIExtensions, tracing.StageNotFound, tracing.StageProxy:
		return true
	}
	return false
}

// listView renders the list pane.
func (v *Model) listView(focused bool, reqsWired, served bool) []string {
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
	return v.list.render(v.st, PaneList.name(tr), detail, figure, func() []string {
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

func (v *Model) listBody(reqsWired, served bool) []string {
	w := v.list.w - 2
	if w <= 0 {
		return nil
	}
	st, tr := v.st.List, v.tr
	rest := max(w-3-colTime-colVerb-colCode-colLatency-5, 10)
	userW := min(max(rest*35/100, 6), 20)
	resW := rest - userW
	header := "   " + common.Fit(tr.ColTime, colTime) + " " + common.Fit(tr.ColUser, userW) + " " + common.Fit(tr.ColVerb, colVerb) + " " +
		common.Fit(tr.ColResource, resW) + " " + padLeft(tr.ColCode, colCode) + " " + padLeft(tr.ColLatency, colLatency)
	out := []string{st.Header.Render(common.Fit(header, w))}
	rows := v.listRows()
	switch {
	case !reqsWired:
		out = append(out, common.WrapLines(st.Dim.Render(tr.RqNotWired), w)...)
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
		out = append(out, common.WrapLines(st.Dim.Render(msg), w)...)
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
			lat = FmtDuration(t.Duration)
		}
		user := t.User
		if user == "" {
			user = "–"
		}
		line := mark + flag + " " + common.Fit(t.Received.Format("15:04:05"), colTime) + " " + common.Fit(user, userW) + " " +
			common.Fit(t.Verb, colVerb) + " " + common.Fit(resourceText(t), resW) + " " + padLeft(code, colCode) + " " + padLeft(lat, colLatency)
		switch {
		case i == v.cursor:
			line = st.Cursor.Render(common.Fit(line, w))
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
func (v *Model) filterLine() string {
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
		return common.Fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// filterKey edits the / filter. It returns true when the filter changed (the store must be
// asked again).
func (v *Model) filterKey(msg tea.KeyMsg) bool {
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
func (v *Model) StartFilter() {
	v.typing = true
	v.input = []rune(v.text)
	v.list.dirty = true
	v.keepCursorVisible()
}

// ClearFilter drops the text filter; it reports whether there was one.
func (v *Model) ClearFilter() bool {
	if v.text == "" {
		return false
	}
	v.text = ""
	v.list.dirty = true
	v.keepCursorVisible()
	return true
}

// Clear hides every request so far (the :clear command) and drops the filter.
func (v *Model) Clear() {
	if len(v.all) > 0 {
		v.since = v.all[0].Seq
	}
	v.text, v.typing, v.input = "", false, nil
	v.chosen = false
	v.applyMark()
}

// Unclear shows again what Clear hid.
func (v *Model) Unclear() {
	v.since = 0
	v.applyMark()
}

// ShowSource points the source pane at the selected stage's code. It returns a command when
// the code must be loaded, and false when the stage names no code.
func (v *Model) ShowSource() (tea.Cmd, bool) {
	t, s, ok := v.Stage()
	if !ok || (s.Source.Anchor == "" && s.Source.Upstream == "") {
		return nil, false
	}
	key := t.ID + "\x00" + s.Name
	if key == v.srcKey {
		return nil, true
	}
	v.srcKey = key
	title := fmt.Sprintf(v.tr.RqStageTitle, StageLabel(v.tr, s.Name, false))
	v.source.SetUpstream(s.Source.Anchor == "")
	code := source.Code{Title: title, Anchor: s.Source.Anchor, Upstream: s.Source.Upstream}
	return v.source.SetStep(code, true, server.Checkpoint{}), true
}
