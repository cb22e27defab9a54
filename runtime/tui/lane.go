package tui

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

// stageSymbol is the outcome's symbol.
func stageSymbol(o tracing.Outcome) string {
	switch o {
	case tracing.OutcomeDenied, tracing.OutcomeRefused, tracing.OutcomeFailed, tracing.OutcomeAborted:
		return "✗"
	case tracing.OutcomeHeld:
		return "⏸"
	case tracing.OutcomeSkipped, tracing.OutcomeNoOpinion:
		return "–"
	}
	return "✓"
}

// stageLabel names a stage for a box: admission plugins by plugin and kind. Stage and plugin
// names stay English (they are what :break and the admission flags take).
func stageLabel(tr *i18n.Strings, name string, short bool) string {
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

// outcomeWord is what a box says besides its symbol.
func outcomeWord(tr *i18n.Strings, o tracing.Outcome) string { return o.In(tr) }

// fmtDuration prints a stage or request time compactly.
func fmtDuration(d time.Duration) string {
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
func lanePicture(st *Styles, tr *i18n.Strings, t tracing.Trace, sel, w int, tall bool) []string {
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
func tallBox(st *Styles, tr *i18n.Strings, s tracing.Stage, selected bool, maxW int) laneCell {
	label := stageLabel(tr, s.Name, false)
	body := stageSymbol(s.Outcome) + " " + outcomeWord(tr, s.Outcome)
	if d := fmtDuration(s.Duration); d != "" {
		body += " " + d
	}
	m := mark(tr, s)
	inner := max(ansi.StringWidth(label)+2, ansi.StringWidth(body)+2, ansi.StringWidth(m)+2)
	if inner+2 > maxW {
		label = stageLabel(tr, s.Name, true)
		inner = max(min(inner, maxW-2), 4)
	}
	b, bs := thinBorder, st.Lane.Border
	if selected {
		b, bs = thickBorder, st.Lane.Selected
	}
	ts := st.Lane.Label
	top := bs.Render(b.TL+b.H) + ts.Render(ansi.Truncate(label, inner-1, "…"))
	top += bs.Render(strings.Repeat(b.H, max(inner-1-min(ansi.StringWidth(label), inner-1), 0)) + b.TR)
	mid := bs.Render(b.V) + outcomeStyle(st, s).Render(fit(" "+body, inner)) + bs.Render(b.V)
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
func flatBox(st *Styles, tr *i18n.Strings, s tracing.Stage, selected bool, maxW int) laneCell {
	text := stageSymbol(s.Outcome) + " " + stageLabel(tr, s.Name, true)
	switch s.Outcome {
	case tracing.OutcomeOK, tracing.OutcomeAllowed, tracing.OutcomeHeld:
	default:
		text += " " + outcomeWord(tr, s.Outcome)
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
func outcomeStyle(st *Styles, s tracing.Stage) lipgloss.Style {
	switch stageSymbol(s.Outcome) {
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
func stageDetails(st *Styles, tr *i18n.Strings, s tracing.Stage, w int, hasEtcd bool) []string {
	var out []string
	add := func(style lipgloss.Style, text string) {
		for _, l := range wrapLines(text, w) {
			out = append(out, style.Render(l))
		}
	}
	head := stageLabel(tr, s.Name, false) + " · " + stageSymbol(s.Outcome) + " " + outcomeWord(tr, s.Outcome)
	if s.Stopped {
		head += tr.LaneStoppedHere
	}
	if s.Outcome == tracing.OutcomeHeld {
		head += tr.LaneHeldHere
	}
	if d := fmtDuration(s.Duration); d != "" {
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
		label := fit(f.LabelIn(tr), labelW)
		for i, l := range wrapLines(f.ValueIn(tr), max(w-labelW-3, 10)) {
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
			for _, wl := range wrapLines("  "+l, w) {
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
	if hasEtcd && s.Name == tracing.StageStorage && storageKey(s) != "" {
		add(st.Lane.Dim, fmt.Sprintf(tr.LaneEtcdKey, storageKey(s)))
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

// storageKey is the etcd key a storage stage names: its "key" field, else the first word of
// its detail that starts with /registry/.
func storageKey(s tracing.Stage) string {
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

// pathStep is one stage of the request path drawn in the chain bar.
type pathStep struct{ name, short string }

// requestPath is the chain a request goes through, as the top bar draws it after serve.
var requestPath = []pathStep{
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

// pathIndex maps a trace stage (or a breakpoint stage) to its place in requestPath.
func pathIndex(stage string) int {
	switch {
	case stage == tracing.StageMutatingAdmission || strings.HasPrefix(stage, tracing.StageMutatingPrefix):
		return 4
	case strings.HasPrefix(stage, tracing.StageValidatingPrefix):
		return 6
	}
	for i, p := range requestPath {
		if p.name == stage {
			return i
		}
	}
	return -1
}
