package requests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
)

// A lane is drawn as a picture of the chain: one box per stage, in the order the handler chain
// met them, left to right and wrapping. Every box carries its outcome as a symbol and a word,
// so the picture reads the same without colour:
//
//	✓ passed on (ok, allowed, changed, no change, served from the cache or etcd)
//	✗ ended the request here (denied, refused, failed, aborted), with STOPPED under the box
//	⏸ held here by a breakpoint, with HELD under the box
//	– did not apply (skipped) or had no opinion
//
// The selected box has a thick border (or, in the one-line form, a ▶ before it).

// StageSymbol is the outcome's symbol.
func StageSymbol(o tracing.Outcome) string {
	switch o {
	case tracing.OutcomeDenied, tracing.OutcomeRefused, tracing.OutcomeFailed, tracing.OutcomeAborted, tracing.OutcomeNotFound:
		return "✗"
	case tracing.OutcomeHeld:
		return "⏸"
	case tracing.OutcomeSkipped, tracing.OutcomeNoOpinion:
		return "–"
	}
	return "✓"
}

// StageLabel names a stage for a box: admission plugins by plugin and kind. Stage and plugin
// names stay English (they are what :break and the admission flags take).
func StageLabel(tr *i18n.Strings, name string, short bool) string {
	switch {
	case strings.HasPrefix(name, tracing.StageMutatingPrefix):
		p := strings.TrimPrefix(name, tracing.StageMutatingPrefix)
		if short {
			return p
		}
		return fmt.Sprintf(tr.LaneMutating, p)
	case strings.HasPrefix(name, tracing.StageValidatingPrefix):
		p := strings.TrimPrefix(name, tracing.StageValidatingPrefix)
		if short {
			return p
		}
		return fmt.Sprintf(tr.LaneValidating, p)
	}
	return name
}

// OutcomeWord is what a box says besides its symbol.
func OutcomeWord(tr *i18n.Strings, o tracing.Outcome) string { return o.In(tr) }

// FmtDuration prints a stage or request time compactly.
func FmtDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
}

// laneCell is one stage drawn: 1 or 3 lines of equal width.
type laneCell struct {
	lines []string
	w     int
}

// lanePicture draws t's stages in at most w cells per line, the stage at index sel selected.
// With tall, every stage is a three-line box; otherwise a one-line [box].
func lanePicture(st *common.Styles, tr *i18n.Strings, t tracing.Trace, sel, w int, tall bool) []string {
	if len(t.Stages) == 0 {
		return []string{st.Lane.Dim.Render(tr.LaneNoStage)}
	}
	var cells []laneCell
	for i, s := range t.Stages {
		if tall {
			cells = append(cells, tallBox(st, tr, s, i == sel, w))
		} else {
			cells = append(cells, flatBox(st, tr, s, i == sel, w))
		}
	}
	if !t.Done && !stoppedOrHeld(t) {
		more := st.Lane.Dim.Render(tr.LaneInFlight)
		if tall {
			cells = append(cells, laneCell{lines: []string{"", more, ""}, w: ansi.StringWidth(more)})
		} else {
			cells = append(cells, laneCell{lines: []string{more}, w: ansi.StringWidth(more)})
		}
	}
	arrow, arrowW := st.Lane.Arrow.Render(" → "), 3
	if !tall {
		arrow, arrowW = st.Lane.Arrow.Render(" →"), 2 // a flat box starts with a space (or ▶)
	}
	var out []string
	var row []laneCell
	rowW := 0
	flush := func(cont bool) {
		if len(row) == 0 {
			return
		}
		n := len(row[0].lines)
		for li := range n {
			var b strings.Builder
			for ci, c := range row {
				if ci > 0 {
					if li == n/2 {
						b.WriteString(arrow)
					} else {
						b.WriteString(strings.Repeat(" ", arrowW))
					}
				}
				b.WriteString(c.lines[li])
			}
			if cont && li == n/2 {
				b.WriteString(arrow)
			}
			out = append(out, b.String())
		}
		row, rowW = nil, 0
	}
	for _, c := range cells {
		need := c.w
		if len(row) > 0 {
			need += arrowW
		}
		// Keep room for the arrow that says the chain goes on in the next row.
		if len(row) > 0 && rowW+need+arrowW > w {
			flush(true)
			need = c.w
		}
		row = append(row, c)
		rowW += need
	}
	flush(false)
	return out
}

// stoppedOrHeld reports whether the lane ended at (or waits in) a stage.
func stoppedOrHeld(t tracing.Trace) bool {
	for _, s := range t.Stages {
		if s.Stopped || s.Outcome == tracing.OutcomeHeld {
			return true
		}
	}
	return false
}

// mark is the word under a box that ended or holds the request.
func mark(tr *i18n.Strings, s tracing.Stage) string {
	switch {
	case s.Outcome == tracing.OutcomeHeld:
		return tr.MarkHeld
	case s.Stopped:
		return tr.MarkStopped
	}
	return ""
}

// tallBox draws ╭─ label ─╮ / │ ✓ word 1ms │ / ╰─ STOPPED ─╯, thick when selected.
func tallBox(st *common.Styles, tr *i18n.Strings, s tracing.Stage, selected bool, maxW int) laneCell {
	label := StageLabel(tr, s.Name, false)
	body := StageSymbol(s.Outcome) + " " + OutcomeWord(tr, s.Outcome)
	if d := FmtDuration(s.Duration); d != "" {
		body += " " + d
	}
	m := mark(tr, s)
	inner := max(ansi.StringWidth(label)+2, ansi.StringWidth(body)+2, ansi.StringWidth(m)+2)
	if inner+2 > maxW {
		label = StageLabel(tr, s.Name, true)
		inner = max(min(inner, maxW-2), 4)
	}
	b, bs := common.ThinBorder, st.Lane.Border
	if selected {
		b, bs = common.ThickBorder, st.Lane.Selected
	}
	ts := st.Lane.Label
	top := bs.Render(b.TL+b.H) + ts.Render(ansi.Truncate(label, inner-1, "…"))
	top += bs.Render(strings.Repeat(b.H, max(inner-1-min(ansi.StringWidth(label), inner-1), 0)) + b.TR)
	mid := bs.Render(b.V) + outcomeStyle(st, s).Render(common.Fit(" "+body, inner)) + bs.Render(b.V)
	bottom := bs.Render(b.BL + b.H)
	if m != "" {
		bottom += st.Lane.Mark.Render(m)
		bottom += bs.Render(strings.Repeat(b.H, max(inner-1-ansi.StringWidth(m), 0)) + b.BR)
	} else {
		bottom += bs.Render(strings.Repeat(b.H, inner-1) + b.BR)
	}
	return laneCell{lines: []string{top, mid, bottom}, w: inner + 2}
}

// flatBox draws [✓ label] on one line, ▶ before it when selected and the outcome spelled out
// when it is not a plain pass.
func flatBox(st *common.Styles, tr *i18n.Strings, s tracing.Stage, selected bool, maxW int) laneCell {
	text := StageSymbol(s.Outcome) + " " + StageLabel(tr, s.Name, true)
	switch s.Outcome {
	case tracing.OutcomeOK, tracing.OutcomeAllowed, tracing.OutcomeHeld:
	default:
		text += " " + OutcomeWord(tr, s.Outcome)
	}
	if m := mark(tr, s); m != "" {
		text += " " + m
	}
	lead := " "
	if selected {
		lead = "▶"
	}
	cell := lead + "[" + text + "]"
	if ansi.StringWidth(cell) > maxW {
		cell = ansi.Truncate(cell, maxW-1, "…") + "]"
	}
	style := outcomeStyle(st, s)
	if selected {
		style = style.Reverse(true)
	}
	return laneCell{lines: []string{style.Render(cell)}, w: ansi.StringWidth(cell)}
}

// outcomeStyle colours a box's outcome (the symbol and word carry the meaning).
func outcomeStyle(st *common.Styles, s tracing.Stage) lipgloss.Style {
	switch StageSymbol(s.Outcome) {
	case "✗":
		return st.Lane.Stopped
	case "⏸":
		return st.Lane.Held
	case "–":
		return st.Lane.Dim
	}
	return st.Lane.OK
}

// stageDetails is what the details part of the lane pane shows for one stage: its outcome and
// time, the summary, its fields, the JSON patch of a mutating plugin and where its code is.
func stageDetails(st *common.Styles, tr *i18n.Strings, s tracing.Stage, w int, hasEtcd bool) []string {
	var out []string
	add := func(style lipgloss.Style, text string) {
		for _, l := range common.WrapLines(text, w) {
			out = append(out, style.Render(l))
		}
	}
	head := StageLabel(tr, s.Name, false) + " · " + StageSymbol(s.Outcome) + " " + OutcomeWord(tr, s.Outcome)
	if s.Stopped {
		head += tr.LaneStoppedHere
	}
	if s.Outcome == tracing.OutcomeHeld {
		head += tr.LaneHeldHere
	}
	if d := FmtDuration(s.Duration); d != "" {
		head += " · " + d
	}
	add(st.Lane.Heading, head)
	// kubewalk's words in the learner's language; what the server wrote as it is.
	if d := s.DetailIn(tr); d != "" {
		add(st.Lane.Text, d)
	}
	labelW := 0
	for _, f := range s.Fields {
		labelW = max(labelW, ansi.StringWidth(f.LabelIn(tr)))
	}
	labelW = min(labelW, w/3)
	for _, f := range s.Fields {
		label := common.Fit(f.LabelIn(tr), labelW)
		for i, l := range common.WrapLines(f.ValueIn(tr), max(w-labelW-3, 10)) {
			if i == 0 {
				out = append(out, "  "+st.Lane.Dim.Render(label)+" "+l)
			} else {
				out = append(out, "  "+strings.Repeat(" ", labelW)+" "+l)
			}
		}
	}
	if s.Patch != "" {
		add(st.Lane.Heading, tr.LanePatch)
		for _, l := range patchLines(s.Patch) {
			for _, wl := range common.WrapLines("  "+l, w) {
				out = append(out, wl)
			}
		}
	}
	var src []string
	if s.Source.Anchor != "" {
		src = append(src, fmt.Sprintf(tr.LaneCode, s.Source.Anchor))
	}
	if s.Source.Upstream != "" {
		src = append(src, fmt.Sprintf(tr.LaneUpstream, s.Source.Upstream))
	}
	if len(src) > 0 {
		add(st.Lane.Dim, strings.Join(src, " · ")+tr.LaneOpens)
	}
	if hasEtcd && s.Name == tracing.StageStorage && StorageKey(s) != "" {
		add(st.Lane.Dim, fmt.Sprintf(tr.LaneEtcdKey, StorageKey(s)))
	}
	return out
}

// patchLines prints a JSON patch one operation per line, or as it is when it is not a JSON
// array.
func patchLines(patch string) []string {
	var ops []json.RawMessage
	if err := json.Unmarshal([]byte(patch), &ops); err != nil {
		return strings.Split(strings.TrimSpace(patch), "\n")
	}
	out := make([]string, 0, len(ops))
	for _, op := range ops {
		var b bytes.Buffer
		if json.Compact(&b, op) == nil {
			out = append(out, b.String())
		}
	}
	return out
}

// StorageKey is the etcd key a storage stage names: its "key" field, else the first word of
// its detail that starts with /registry/.
func StorageKey(s tracing.Stage) string {
	for _, f := range s.Fields {
		if f.Label == "key" && strings.HasPrefix(f.Value, "/") {
			return f.Value
		}
	}
	for _, w := range strings.Fields(s.Detail) {
		if strings.HasPrefix(w, "/registry/") {
			return strings.TrimRight(w, ",;:")
		}
	}
	return ""
}

// PathStep is one stage of the request path drawn in the chain bar.
type PathStep struct{ Name, Short string }

// requestPath is the chain a request goes through, as the top bar draws it after serve.
var requestPath = []PathStep{
	{tracing.StageAuthentication, "authn"},
	{tracing.StageImpersonation, "imp"},
	{tracing.StageFlowControl, "flow"},
	{tracing.StageAuthorization, "authz"},
	{"mutating admission", "mutate"},
	{tracing.StageValidation, "valid"},
	{"validating admission", "admit"},
	{tracing.StageStorage, "storage"},
	{tracing.StageResponse, "resp"},
}

// PathIndex maps a trace stage (or a breakpoint stage) to its place in Path.
func PathIndex(stage string) int {
	switch {
	case stage == tracing.StageMutatingAdmission || strings.HasPrefix(stage, tracing.StageMutatingPrefix):
		return 4
	case strings.HasPrefix(stage, tracing.StageValidatingPrefix):
		return 6
	}
	for i, p := range requestPath {
		if p.Name == stage {
			return i
		}
	}
	return -1
}

// Path is the chain a request goes through, as the chain bar draws it after serve (a copy).
func Path() []PathStep { return append([]PathStep(nil), requestPath...) }

// tabWidth is how many columns a tab takes (as in the source pane).
const tabWidth = 4

// expandTabs replaces tabs by spaces to the next tab stop (a held request's body).
func expandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			n := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// chainShort are the one-line names of the delegation chain's stages.
var chainShort = map[string]string{
	tracing.StageAggregator:    "agg",
	tracing.StageAPIExtensions: "apiext",
}

// LaneSummary is a lane on one line, as the kubectl view lists a command's requests: each
// stage's symbol and short name (an outcome that is not plain pass or skip in parentheses),
// then the response code ("…" before it) and, once done, the time.
func LaneSummary(tr *i18n.Strings, t tracing.Trace) string {
	var parts []string
	for _, s := range t.Stages {
		if s.Name == tracing.StageResponse {
			continue
		}
		name := StageLabel(tr, s.Name, true)
		if i := PathIndex(s.Name); i >= 0 && s.Name == requestPath[i].Name {
			name = requestPath[i].Short
		}
		if short, ok := chainShort[s.Name]; ok {
			name = short
		}
		p := StageSymbol(s.Outcome) + name
		switch s.Outcome {
		case tracing.OutcomeCache, tracing.OutcomeDenied, tracing.OutcomeRefused, tracing.OutcomeHeld, tracing.OutcomeAborted, tracing.OutcomeFailed, tracing.OutcomeNotFound:
			p += "(" + OutcomeWord(tr, s.Outcome) + ")"
		}
		parts = append(parts, p)
	}
	end := "…"
	if t.Code != 0 {
		end = fmt.Sprint(t.Code)
	}
	if t.Done {
		end += " " + FmtDuration(t.Duration)
	}
	return strings.Join(parts, " ") + " → " + end
}
