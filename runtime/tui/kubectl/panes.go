package kubectl

import (
	"errors"
	"fmt"
	"strings"

	kctl "github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
)

// This file draws the two panes: the output (or the text box) and the requests made.

func (v *Model) relayout() {
	v.relayoutOutput()
	v.relayoutRequests()
}

func (v *Model) relayoutOutput() {
	w := v.out.Inner()
	st, tr := v.c.Styles, v.c.Tr
	if v.box != nil {
		v.out.SetTitle(tr.PaneKubectl, kctl.Quote(v.box.args), tr.KubectlBoxFigure)
		v.out.SetLines(v.boxLines(w))
		v.out.SetOffset(0)
		return
	}
	if v.run == nil {
		v.out.SetTitle(tr.PaneKubectl, "", "")
		var lines []string
		for _, p := range []string{tr.KubectlIntro, tr.KubectlIntroWatch} {
			lines = append(append(lines, common.WrapLines(st.Served.Dim.Render(p), w)...), "")
		}
		v.out.SetLines(lines)
		return
	}
	r := v.run
	lines := common.WrapLines(st.Served.Command.Render("$ kubectl "+kctl.Quote(r.args))+st.Served.Dim.Render(fmt.Sprintf(tr.KubectlAs, r.ctx)), w)
	if w != v.wrapW {
		v.wrapped, v.rowsOf, v.wrapFirst, v.wrapW = nil, nil, 0, w
	}
	fresh, partial, first := r.since(v.wrapFirst + len(v.rowsOf))
	if first > v.wrapFirst+len(v.rowsOf) {
		// The run dropped lines this pane never wrapped: start again from what it kept.
		v.wrapped, v.rowsOf, v.wrapFirst = nil, nil, first
	}
	for _, l := range fresh {
		rows := common.WrapLines(l, w)
		if len(rows) == 0 {
			rows = []string{""}
		}
		v.wrapped = append(v.wrapped, rows...)
		v.rowsOf = append(v.rowsOf, len(rows))
	}
	for len(v.rowsOf) > maxLines {
		v.wrapped = v.wrapped[v.rowsOf[0]:]
		v.rowsOf = v.rowsOf[1:]
		v.wrapFirst++
	}
	if v.wrapFirst > 0 {
		lines = append(lines, st.Served.Dim.Render(fmt.Sprintf(tr.KubectlDropped, v.wrapFirst)))
	}
	lines = append(lines, v.wrapped...)
	if partial != "" {
		lines = append(lines, common.WrapLines(partial, w)...)
	}
	figure := ""
	var tail []string
	var ref *kctl.RefusedError
	switch {
	case len(v.notice) > 0:
		figure = tr.KubectlNotRun
		for _, n := range v.notice {
			tail = append(tail, common.WrapLines(n, w)...)
		}
	case v.running:
		figure = tr.KubectlRunning
	case errors.As(v.err, &ref):
		figure = tr.KubectlRefused
		tail = append(tail, common.WrapLines(st.Served.Failing.Render(fmt.Sprintf(tr.KubectlRefusedWhy, ref.ReasonIn(tr))), w)...)
		if ref.Command != "" {
			tail = append(tail, "", st.Served.Heading.Render(tr.KubectlElsewhere))
			for _, l := range common.WrapCommand(ref.Command, w-2) {
				tail = append(tail, "  "+st.Served.Command.Render(l))
			}
		}
	case v.err != nil && !v.res.Canceled:
		figure = fmt.Sprintf(tr.KubectlExit, v.res.ExitCode)
		tail = append(tail, common.WrapLines(st.Served.Failing.Render("✗ "+oneLine(v.err.Error())), w)...)
	case v.res.Canceled:
		figure = fmt.Sprintf(tr.KubectlStopped, v.res.ExitCode)
		tail = append(tail, st.Served.Dim.Render(tr.KubectlStoppedEsc))
	case v.res.ExitCode == 0:
		figure = fmt.Sprintf(tr.KubectlExit, 0)
		tail = append(tail, st.Served.OK.Render(tr.KubectlExitOK))
	default:
		figure = fmt.Sprintf(tr.KubectlExit, v.res.ExitCode)
		tail = append(tail, st.Served.Failing.Render(fmt.Sprintf(tr.KubectlExitFail, v.res.ExitCode)))
	}
	if len(tail) > 0 {
		lines = append(append(lines, ""), tail...)
	}
	if v.bg != nil {
		lines = append(lines, v.besideLines(w)...)
	}
	v.out.SetTitle(tr.PaneKubectl, kctl.Quote(r.args), figure)
	v.out.SetLines(lines)
}

// besideLines draws the command beside, under the one in front: what it is, and its newest
// lines.
func (v *Model) besideLines(w int) []string {
	st, tr := v.c.Styles, v.c.Tr
	lines := append([]string{""}, common.WrapLines(st.Served.Heading.Render(fmt.Sprintf(tr.KubectlBeside, kctl.Quote(v.bg.args))), w)...)
	tail, before := v.bg.Tail(BesideLines)
	if before > 0 {
		lines = append(lines, st.Served.Dim.Render(fmt.Sprintf(tr.KubectlBesideEarlier, before)))
	}
	for _, l := range tail {
		lines = append(lines, common.WrapLines(l, w)...)
	}
	return lines
}

func (v *Model) relayoutRequests() {
	w := v.reqs.Inner()
	st, tr := v.c.Styles, v.c.Tr
	var lines []string
	reqs := v.requests()
	switch {
	case v.run == nil || len(v.notice) > 0:
		lines = common.WrapLines(st.Lane.Dim.Render(tr.KubectlReqsIntro), w)
	case v.running && len(reqs) == 0:
		lines = common.WrapLines(st.Lane.Dim.Render(tr.KubectlReqsLater), w)
	case len(reqs) == 0:
		lines = common.WrapLines(st.Lane.Dim.Render(tr.KubectlReqsNone), w)
	}
	v.cursor = max(min(v.cursor, len(reqs)-1), 0)
	curLine := 0
	if len(v.notice) == 0 {
		for i, q := range reqs {
			mark := " "
			if i == v.cursor {
				mark = "›"
				curLine = len(lines)
			}
			code := tr.KubectlNoResponse
			if q.Code != 0 {
				code = fmt.Sprint(q.Code)
			}
			for _, l := range common.WrapLines(mark+" "+q.Method+" "+q.Path+" → "+code, w) {
				if i == v.cursor {
					l = st.List.Cursor.Render(common.Fit(l, w))
				}
				lines = append(lines, l)
			}
			var sub string
			switch {
			case q.AuditID == "":
				sub = "✗ " + q.Err
			case !v.opts.Wired:
				sub = fmt.Sprintf(tr.KubectlNoStore, q.AuditID)
			default:
				if t, ok := v.traces[q.AuditID]; ok {
					sub = requests.LaneSummary(v.c.Tr, t)
				} else {
					sub = fmt.Sprintf(tr.KubectlNoLane, q.AuditID)
				}
			}
			for _, l := range common.WrapLines(sub, w-4) {
				lines = append(lines, "    "+st.Lane.Dim.Render(l))
			}
		}
		if len(reqs) > 0 && v.opts.Wired {
			lines = append(lines, "", st.Lane.Dim.Render(tr.KubectlOpenLane))
		}
	}
	v.reqs.SetTitle(tr.PaneRequestsMade, "", fmt.Sprintf("%d", len(reqs)))
	v.reqs.SetLines(lines)
	// Keep the selected request in view.
	v.reqs.Reveal(curLine)
}

// boxLines draws the text box into the output pane.
func (v *Model) boxLines(w int) []string {
	st, tr := v.c.Styles, v.c.Tr
	b := v.box
	lines := common.WrapLines(st.Served.Command.Render("$ kubectl "+kctl.Quote(b.args)), w)
	lines = append(lines, common.WrapLines(st.Served.Dim.Render(tr.KubectlBoxHelp), w)...)
	b.ta.SetWidth(max(w, 10))
	b.ta.SetHeight(max(v.out.Visible()-len(lines)-1, 3))
	return append(append(lines, ""), strings.Split(b.ta.View(), "\n")...)
}

// oneLine puts a message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
