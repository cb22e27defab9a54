package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// viewID names what the body shows: the walkthrough's panes, or one of the after-serve views
// the : command line opens.
type viewID int

const (
	viewTour viewID = iota
	viewRequests
	viewKubectl
	viewEtcd
	viewGlossary
	viewExercises
	viewBoard
)

func (v viewID) String() string {
	return [...]string{"walkthrough", "Requests", "kubectl", "etcd", "glossary", "exercises", "board"}[v]
}

// viewRects are where the after-serve views' panes go. In the stacked layout the Requests
// view's lane, request and source panes share one place (rqLane), switched by focus.
type viewRects struct {
	rqList, rqLane, rqDetails, rqSource rect
	kcOut, kcReqs                       rect
	evTree, evValue                     rect
	exList, exDetail                    rect
}

// layoutViews places the after-serve views' panes in the body.
func (m *model) layoutViews() {
	b := m.lay.body
	var r viewRects
	if m.lay.wide {
		leftW := b.w / 2
		rightW := b.w - leftW
		listH := b.h * 40 / 100
		detH := b.h / 2
		r.rqList = rect{0, b.y, leftW, listH}
		r.rqLane = rect{0, b.y + listH, leftW, b.h - listH}
		r.rqDetails = rect{leftW, b.y, rightW, detH}
		r.rqSource = rect{leftW, b.y + detH, rightW, b.h - detH}
		outW := b.w * 60 / 100
		r.kcOut = rect{0, b.y, outW, b.h}
		r.kcReqs = rect{outW, b.y, b.w - outW, b.h}
		treeW := b.w * 45 / 100
		r.evTree = rect{0, b.y, treeW, b.h}
		r.evValue = rect{treeW, b.y, b.w - treeW, b.h}
		exW := b.w * 45 / 100
		r.exList = rect{0, b.y, exW, b.h}
		r.exDetail = rect{exW, b.y, b.w - exW, b.h}
	} else {
		listH := b.h * 40 / 100
		r.rqList = rect{0, b.y, b.w, listH}
		r.rqLane = rect{0, b.y + listH, b.w, b.h - listH}
		r.rqDetails, r.rqSource = r.rqLane, r.rqLane
		outH := b.h * 60 / 100
		r.kcOut = rect{0, b.y, b.w, outH}
		r.kcReqs = rect{0, b.y + outH, b.w, b.h - outH}
		treeH := b.h * 45 / 100
		r.evTree = rect{0, b.y, b.w, treeH}
		r.evValue = rect{0, b.y + treeH, b.w, b.h - treeH}
		exH := b.h * 40 / 100
		r.exList = rect{0, b.y, b.w, exH}
		r.exDetail = rect{0, b.y + exH, b.w, b.h - exH}
	}
	if m.zoom {
		m.zoomViews(&r)
	}
	m.vr = r
	m.rq.SetSize(m.lay.wide, r.rqList, r.rqLane, r.rqDetails, r.rqSource)
	m.kc.SetSize(r.kcOut, r.kcReqs)
	m.ev.SetSize(r.evTree, r.evValue)
	m.ex.SetSize(m.lay.wide, r.exList, r.exDetail)
	m.applyViewFocus()
}

// applyViewFocus tells the views' panes who is focused and sets the stacked layout's tab bar.
func (m *model) applyViewFocus() {
	rq := m.rq
	if !m.lay.wide && rq.focus != rqList {
		rq.tab = rq.focus
	}
	rq.lane.SetFocused(rq.focus == rqLane)
	rq.details.SetFocused(rq.focus == rqDetails)
	rq.source.SetFocused(rq.focus == rqSource)
	bar := ""
	if !m.lay.wide {
		var parts []string
		for _, p := range []rqPane{rqLane, rqDetails, rqSource} {
			if p == rq.tab {
				parts = append(parts, "["+p.name(m.tr)+"]")
			} else {
				parts = append(parts, p.name(m.tr))
			}
		}
		bar = strings.Join(parts, " ")
	}
	rq.lane.SetTabs(bar)
	rq.details.SetTabs(bar)
	rq.source.SetTabs(bar)
	m.kc.out.SetFocused(m.kc.focus == kcOutput)
	m.kc.reqs.SetFocused(m.kc.focus == kcRequests)
	m.ev.value.SetFocused(m.ev.focus == 1)
	m.ev.tree.SetFocused(m.ev.focus == 0)
	m.ex.SetFocus(m.ex.focus)
}

// viewBody renders the body of an after-serve view.
func (m *model) viewBody() []string {
	if m.zoom {
		if body := m.zoomedViewBody(); body != nil {
			return body
		}
	}
	if v, ok := m.views[m.at]; ok {
		return v.View(m.lay.body.w, m.lay.body.h)
	}
	switch m.at {
	case viewRequests:
		rq := m.rq
		// Whether requests can reach the server is the server's own state, not the
		// walkthrough's: paused in the serve phase, it listens already.
		listening := m.srv != nil && (m.srv.ServeStatus() == server.Listening || m.srv.ServeStatus() == server.Serving)
		list := rq.listView(rq.focus == rqList, m.reqs != nil, listening, m.now())
		if m.lay.wide {
			left := append(append([]string{}, list...), rq.lane.View()...)
			right := append(append([]string{}, rq.details.View()...), rq.source.View()...)
			return joinColumns(left, right)
		}
		var shared []string
		switch rq.tab {
		case rqDetails:
			shared = rq.details.View()
		case rqSource:
			shared = rq.source.View()
		default:
			shared = rq.lane.View()
		}
		return append(append([]string{}, list...), shared...)
	case viewKubectl:
		if m.lay.wide {
			return joinColumns(m.kc.out.View(), m.kc.reqs.View())
		}
		return append(append([]string{}, m.kc.out.View()...), m.kc.reqs.View()...)
	case viewEtcd:
		tree := m.ev.treeView(m.ev.focus == 0, m.etcd != nil)
		if m.lay.wide {
			return joinColumns(tree, m.ev.value.View())
		}
		return append(append([]string{}, tree...), m.ev.value.View()...)
	case viewExercises:
		list := m.ex.listView(m.exs != nil)
		if m.lay.wide {
			return joinColumns(list, m.ex.detail.View())
		}
		return append(append([]string{}, list...), m.ex.detail.View()...)
	case viewBoard:
		return m.boardBody()
	}
	return nil
}

// viewTitle is the second header line of an after-serve view.
func (m *model) viewTitle() string {
	st, tr := m.st, m.tr
	var left, right string
	if v, ok := m.views[m.at]; ok {
		left, right = v.Title()
	}
	switch m.at {
	case viewRequests:
		left = tr.ViewRequestsTitle
		right = fmt.Sprintf(tr.ViewBreakpoints, len(m.breakpoints))
	case viewKubectl:
		left = tr.ViewKubectlTitle
		right = tr.ViewKubectlHint
	case viewEtcd:
		left = fmt.Sprintf(tr.ViewEtcdTitle, etcdPrefix)
		right = tr.ViewEtcdLive
		if !m.ev.watching {
			right = ""
		}
	case viewExercises:
		left = tr.ViewExercisesTitle
		right = tr.ViewGlossaryHint
	case viewBoard:
		left, right = m.boardTitle()
	}
	l := st.Chain.Checkpoint.Render(left)
	room := m.w - ansi.StringWidth(right) - 2
	if room < 20 {
		return l
	}
	return fit(l, room) + "  " + st.Status.Note.Render(right)
}

// requestChain draws the request path in the chain bar: the stage a held request is in (or,
// in the Requests view, where the selected request got) marked by a symbol, not colour alone.
// Each stage before it reads as its lane does: ✓ passed, – skipped (impersonation without an
// Impersonate-User header); a held request's lane, when the list has it, says which.
func (m *model) requestChain() string {
	st := m.st.Chain
	at, sym, lead := -1, "", m.tr.PathLead
	var passed, skipped map[int]bool
	mark := func(t tracing.Trace, before int) {
		passed, skipped = map[int]bool{}, map[int]bool{}
		for _, s := range t.Stages {
			i := pathIndex(s.Name)
			if i < 0 || (before >= 0 && i >= before) {
				continue
			}
			switch {
			case s.Stopped:
				at, sym = i, "✗"
			case s.Outcome == tracing.OutcomeSkipped:
				skipped[i] = true
			default:
				passed[i] = true
			}
		}
		for i := range skipped {
			if passed[i] {
				delete(skipped, i) // one admission plugin skipped, another ran: the step ran
			}
		}
	}
	if h, ok := m.focusHeld(); ok {
		at, sym = pathIndex(h.Stage), "⏸"
		lead = fmt.Sprintf(m.tr.PathHeldAt, h.Stage)
		if t, ok := m.rq.trace(h.ID); ok && at >= 0 {
			mark(t, at)
		}
	} else if t, ok := m.rq.selected(); ok && m.at == viewRequests {
		mark(t, -1)
	}
	render := func(short bool, arrow string) string {
		var parts []string
		for i, p := range requestPath {
			name := p.name
			if short {
				name = p.short
			}
			switch {
			case i == at:
				parts = append(parts, st.Current.Render(sym+" "+name))
			case skipped[i]:
				parts = append(parts, st.Pending.Render("– "+name))
			case passed != nil && passed[i]:
				parts = append(parts, st.Done.Render("✓ "+name))
			case passed == nil && at >= 0 && i < at:
				parts = append(parts, st.Done.Render("✓ "+name))
			default:
				parts = append(parts, st.Pending.Render("· "+name))
			}
		}
		return strings.Join(parts, st.Arrow.Render(arrow))
	}
	for _, try := range []struct {
		short bool
		arrow string
		lead  bool
	}{{false, " → ", true}, {true, " → ", true}, {true, " → ", false}, {true, "›", true}, {true, "›", false}} {
		l := lead
		if !try.lead {
			l = ""
		}
		s := l + render(try.short, try.arrow)
		if ansi.StringWidth(s) <= m.w {
			return s
		}
	}
	return render(true, "›")
}

// focusHeld is the held request the screen is about: the selected one when it is held, else
// the one held longest.
func (m *model) focusHeld() (HeldRequest, bool) {
	if h, ok := m.rq.held[m.rq.sel]; ok {
		return h, true
	}
	var first HeldRequest
	found := false
	for _, h := range m.rq.held {
		if !found || h.Since.Before(first.Since) || (h.Since.Equal(first.Since) && h.ID < first.ID) {
			first, found = h, true
		}
	}
	return first, found
}

// viewHelp is the help bar of an after-serve view.
func (m *model) viewHelp() []key.Binding {
	k, tr := m.keys, m.tr
	b := func(keys, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
	}
	if m.at == viewKubectl && m.kc.Editing() {
		// Every other key is typed into the text box, q and : too.
		return []key.Binding{b("ctrl+d", tr.BarRunManifest), b("esc", tr.BarPutAway), b("ctrl+c", tr.BarQuitAll)}
	}
	out := []key.Binding{b(":", tr.BarCommand)}
	if v, ok := m.views[m.at]; ok {
		out = append(out, v.Keys()...)
	}
	switch m.at {
	case viewRequests:
		if _, ok := m.focusHeld(); ok {
			out = append(out, b("space/n", tr.BarStepHeld), b("E", tr.BarRunToEnd), b("x", tr.BarFailIt))
		}
		switch m.rq.focus {
		case rqList:
			out = append(out, b("↑/↓", tr.BarSelect), b("enter", tr.BarLane), k.Filter, k.Loopback)
		case rqLane:
			out = append(out, b("←/→", tr.BarStage), k.StageSource, k.StageEtcd)
		case rqSource:
			out = append(out, k.Upstream, k.Wrap)
		}
		out = append(out, k.FocusNext, m.zoomBinding())
	case viewKubectl:
		if m.kc.running || m.kc.bg != nil {
			out = append(out, b("esc", tr.BarStop))
		}
		out = append(out, k.FocusNext, m.zoomBinding(), b("↑/↓", tr.BarScroll))
		if m.kc.focus == kcRequests {
			out = append(out, b("enter", tr.BarOpenLane))
		}
	case viewEtcd:
		out = append(out, b("↑/↓", tr.BarMove), b("enter", tr.BarOpenClose), k.FocusNext, m.zoomBinding())
	case viewExercises:
		out = append(out, k.Hint)
		if e, ok := m.ex.selected(); ok && e.State != ExerciseDone {
			switch e.Input {
			case InputText:
				out = append(out, k.Answer)
			case InputChoice:
				out = append(out, k.Choose)
			}
		}
		out = append(out, b("↑/↓", tr.BarSelect), k.FocusNext, m.zoomBinding())
	case viewBoard:
		out = append(out, b("B", tr.BarBoardBack), b(":msg", tr.BarMsg), b("↑/↓", tr.BarScroll))
	}
	return append(out, k.Help, k.Quit)
}

// viewKey handles a key in an after-serve view.
func (m *model) viewKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp, m.helpOffset = true, 0
		return nil
	case key.Matches(msg, k.Served):
		m.at = viewTour
		if m.served && m.tab != paneServed {
			m.toggleServed()
		}
		return nil
	}
	if v, ok := m.views[m.at]; ok {
		return v.Update(msg)
	}
	switch m.at {
	case viewRequests:
		return m.requestsKey(msg)
	case viewKubectl:
		return m.kubectlKey(msg)
	case viewEtcd:
		return m.etcdKey(msg)
	case viewExercises:
		return m.exercisesKey(msg)
	case viewBoard:
		return m.boardKey(msg)
	}
	return nil
}

// requestsKey handles a key in the Requests view.
func (m *model) requestsKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	rq := m.rq
	switch {
	case key.Matches(msg, k.HeldStep):
		return m.heldAction("step")
	case key.Matches(msg, k.HeldRun):
		return m.heldAction("continue")
	case key.Matches(msg, k.HeldAbort):
		return m.heldAction("abort")
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		d := 1
		if key.Matches(msg, k.FocusPrev) {
			d = 3
		}
		rq.focus = (rq.focus + rqPane(d)) % 4
		rq.list.dirty = true
		m.applyViewFocus()
	case msg.Type == tea.KeyEsc:
		switch {
		case rq.focus == rqSource && rq.source.search.active():
			return rq.source.ClearSearch()
		case rq.ClearFilter():
			return m.loadNow()
		}
	case key.Matches(msg, k.Filter):
		rq.StartFilter()
	case key.Matches(msg, k.Loopback):
		rq.loopback = !rq.loopback
		rq.list.dirty = true
		if rq.loopback {
			m.note = m.tr.NoteLoopbackShown
		} else {
			m.note = m.tr.NoteLoopbackHidden
		}
		return m.loadNow()
	case key.Matches(msg, k.StageSource), rq.focus == rqLane && msg.Type == tea.KeyEnter:
		cmd, ok := rq.ShowSource()
		if !ok {
			m.note = m.tr.NoteStageNoCode
			return nil
		}
		rq.focus = rqSource
		m.applyViewFocus()
		return cmd
	case key.Matches(msg, k.StageEtcd):
		// The selected stage's key; from any other stage, the lane's storage key: one key
		// takes the learner from a request to what it stored.
		t, s, ok := rq.Stage()
		key := ""
		if ok {
			key = storageKey(s)
		}
		for _, st := range t.Stages {
			if key == "" && st.Name == tracing.StageStorage {
				key = storageKey(st)
			}
		}
		if key == "" {
			m.note = m.tr.NoteStageNoEtcd
			return nil
		}
		return m.openEtcdKey(key)
	case rq.focus == rqList && msg.Type == tea.KeyEnter:
		rq.focus = rqLane
		m.applyViewFocus()
	case rq.focus == rqSource && key.Matches(msg, k.Upstream):
		return rq.source.ToggleUpstream()
	case rq.focus == rqSource && key.Matches(msg, k.Wrap):
		rq.source.ToggleWrap()
	case rq.focus == rqLane && (msg.String() == "left" || msg.String() == "h"):
		rq.MoveStage(-1)
	case rq.focus == rqLane && (msg.String() == "right" || msg.String() == "l"):
		rq.MoveStage(1)
	case key.Matches(msg, k.Up), key.Matches(msg, k.Down), key.Matches(msg, k.PageUp), key.Matches(msg, k.PageDown),
		key.Matches(msg, k.Top), key.Matches(msg, k.Bottom):
		m.requestsScroll(msg)
	}
	return nil
}

// requestsScroll moves in the focused pane of the Requests view.
func (m *model) requestsScroll(msg tea.KeyMsg) {
	k := m.keys
	rq := m.rq
	n := 0
	switch {
	case key.Matches(msg, k.Up):
		n = -1
	case key.Matches(msg, k.Down):
		n = 1
	case key.Matches(msg, k.PageUp):
		n = -max(rq.listRows()-1, 1)
	case key.Matches(msg, k.PageDown):
		n = max(rq.listRows()-1, 1)
	case key.Matches(msg, k.Top):
		n = -1 << 30
	case key.Matches(msg, k.Bottom):
		n = 1 << 30
	}
	switch rq.focus {
	case rqList:
		rq.Move(n)
	case rqLane:
		if n == 1 || n == -1 {
			rq.MoveStage(n)
		} else {
			rq.lane.Scroll(n)
		}
	case rqDetails:
		rq.details.Scroll(n)
	case rqSource:
		rq.source.Scroll(n)
	}
}

// kubectlKey handles a key in the kubectl view.
func (m *model) kubectlKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	kc := m.kc
	switch {
	case msg.Type == tea.KeyEsc:
		switch {
		case kc.running:
			kc.run.cancel()
			m.note = m.tr.NoteStoppingKubectl
		case kc.bg != nil:
			kc.bg.cancel()
			m.note = m.tr.NoteStoppingKubectl
		}
	case key.Matches(msg, k.FocusNext), key.Matches(msg, k.FocusPrev):
		kc.focus = 1 - kc.focus
		m.applyViewFocus()
	case kc.focus == kcRequests && msg.Type == tea.KeyEnter:
		id := kc.Selected()
		if id == "" || m.reqs == nil {
			m.note = m.tr.NoteNoLane
			return nil
		}
		return m.openTrace(id)
	case kc.focus == kcRequests && (key.Matches(msg, k.Up) || key.Matches(msg, k.Down)):
		d := 1
		if key.Matches(msg, k.Up) {
			d = -1
		}
		kc.MoveRequest(d)
	default:
		p := kc.out
		if kc.focus == kcRequests {
			p = kc.reqs
		}
		switch {
		case key.Matches(msg, k.Up):
			p.Scroll(-1)
		case key.Matches(msg, k.Down):
			p.Scroll(1)
		case key.Matches(msg, k.PageUp):
			p.Scroll(-p.Page())
		case key.Matches(msg, k.PageDown):
			p.Scroll(p.Page())
		case key.Matches(msg, k.Top):
			p.Top()
		case key.Matches(msg, k.Bottom):
			p.Scroll(1 << 30)
		}
	}
	return nil
}

// etcdKey handles a key in the etcd view.
func (m *model) etcdKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	ev := m.ev
	if key.Matches(msg, k.FocusNext) || key.Matches(msg, k.FocusPrev) {
		ev.focus = 1 - ev.focus
		m.applyViewFocus()
		return nil
	}
	if ev.focus == 1 {
		p := ev.value
		switch {
		case key.Matches(msg, k.Up):
			p.Scroll(-1)
		case key.Matches(msg, k.Down):
			p.Scroll(1)
		case key.Matches(msg, k.PageUp):
			p.Scroll(-p.Page())
		case key.Matches(msg, k.PageDown):
			p.Scroll(p.Page())
		case key.Matches(msg, k.Top):
			p.Top()
		case key.Matches(msg, k.Bottom):
			p.Scroll(1 << 30)
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Up):
		ev.Move(-1)
	case key.Matches(msg, k.Down):
		ev.Move(1)
	case key.Matches(msg, k.PageUp):
		ev.Move(-ev.visible())
	case key.Matches(msg, k.PageDown):
		ev.Move(ev.visible())
	case key.Matches(msg, k.Top):
		ev.Move(-1 << 30)
	case key.Matches(msg, k.Bottom):
		ev.Move(1 << 30)
	case msg.Type == tea.KeyEnter, msg.Type == tea.KeySpace:
		if r, ok := ev.current(); ok && r.kind == rowMore && ev.err != "" {
			ev.err = ""
			return m.etcdNextPage(true)
		}
		ev.Toggle(0)
	case msg.String() == "right" || msg.String() == "l":
		ev.Toggle(1)
	case msg.String() == "left" || msg.String() == "h":
		ev.Toggle(-1)
	default:
		return nil
	}
	return tea.Batch(m.etcdSelect(), m.etcdNextPage(false))
}

// etcdSelect decodes the key under the cursor when it is a new one.
func (m *model) etcdSelect() tea.Cmd {
	key := m.ev.CursorKey()
	if key == "" || key == m.ev.sel || m.etcd == nil {
		return nil
	}
	m.ev.Decoding(key)
	return decodeEtcd(m.ctx, m.etcd, key)
}

// etcdNextPage reads the next page when the cursor nears the end (or force says so).
func (m *model) etcdNextPage(force bool) tea.Cmd {
	ev := m.ev
	if m.etcd == nil || ev.loading || (!force && !ev.NeedPage()) || (ev.started && ev.cont == "") {
		return nil
	}
	ev.loading = true
	ev.tree.dirty = true
	return listEtcd(m.ctx, m.etcd, ev.cont)
}

// openEtcd shows the etcd view, listing and watching on first use.
func (m *model) openEtcd() tea.Cmd {
	m.at = viewEtcd
	m.ev.tree.dirty = true
	if m.etcd == nil {
		return nil
	}
	if !m.ev.started && !m.ev.loading {
		m.ev.loading = true
		m.ev.tree.dirty = true
		return listEtcd(m.ctx, m.etcd, "")
	}
	return m.etcdWatch()
}

// etcdWatch starts the watch, once the first page is listed (from its revision), unless one
// runs.
func (m *model) etcdWatch() tea.Cmd {
	if m.etcd == nil || m.ev.watching || !m.ev.started {
		return nil
	}
	m.ev.watching = true
	b, ctx, rev := m.etcd, m.ctx, m.ev.listRev
	return func() tea.Msg { return etcdWatchMsg{ch: b.Watch(ctx, rev)} }
}

// etcdWatchMsg carries a started watch.
type etcdWatchMsg struct{ ch <-chan EtcdChange }

// openEtcdKey shows one key in the etcd view (from a trace's storage stage).
func (m *model) openEtcdKey(key string) tea.Cmd {
	if m.etcd == nil {
		m.note = m.tr.NoteEtcdNotWired
		return nil
	}
	cmd := m.openEtcd()
	m.ev.want = ""
	if !m.ev.SelectKey(key) {
		if m.ev.started && !m.ev.more() {
			m.note = m.tr.NoteKeyNotListed
		} else {
			m.ev.want = key // the listing brings it: the cursor goes there then
		}
	}
	m.ev.Decoding(key)
	m.ev.focus = 0
	m.applyViewFocus()
	return tea.Batch(cmd, decodeEtcd(m.ctx, m.etcd, key))
}

// openTrace shows a trace in the Requests view.
func (m *model) openTrace(id string) tea.Cmd {
	m.at = viewRequests
	m.rq.Select(id, "")
	m.rq.focus = rqLane
	m.applyViewFocus()
	m.syncQuery(id)
	return m.loadNow()
}

// syncQuery tells the loaders what to read: the filter, and the traces wanted by ID.
func (m *model) syncQuery(extra ...string) {
	want := append(m.kc.IDs(), extra...)
	if m.rq.sel != "" {
		want = append(want, m.rq.sel)
	}
	m.query.set(m.rq.filter(), want)
}

// loadNow reads the store at once (after the filter or the selection changed).
func (m *model) loadNow() tea.Cmd {
	if m.reqs == nil {
		return nil
	}
	m.syncQuery()
	reqs, bps, q := m.reqs, m.bps, m.query
	return func() tea.Msg { return load(reqs, bps, q) }
}

// subscribedMsg carries the trace store's subscription.
type subscribedMsg struct {
	ch     <-chan tracing.Event
	cancel func()
}

// subscribe subscribes to the trace store, off the update loop.
func (m *model) subscribe() tea.Cmd {
	if m.reqs == nil {
		return nil
	}
	reqs := m.reqs
	return func() tea.Msg {
		ch, cancel := reqs.Subscribe()
		return subscribedMsg{ch: ch, cancel: cancel}
	}
}

// waitRequests waits for the store's next events, at most one re-read per refreshEvery, and
// reads it.
func (m *model) waitRequests() tea.Cmd {
	ch, reqs, bps, q, done, stop := m.subCh, m.reqs, m.bps, m.query, m.done, m.ctx.Done()
	next := m.lastLoad.Add(refreshEvery)
	return func() tea.Msg {
		select {
		case _, ok := <-ch:
			if !ok {
				return reqLoadedMsg{waiter: true, closed: true}
			}
		case <-done:
			return nil
		case <-stop:
			return nil
		}
		if d := time.Until(next); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-done:
				t.Stop()
				return nil
			case <-stop:
				t.Stop()
				return nil
			}
		}
	drain:
		for {
			select {
			case _, ok := <-ch:
				if !ok {
					break drain
				}
			default:
				break drain
			}
		}
		msg := load(reqs, bps, q)
		msg.waiter = true
		return msg
	}
}

// requestsLoaded takes a store snapshot: the list, the kubectl pane's lanes, and the held
// requests (a newly held one brings the screen to it).
func (m *model) requestsLoaded(msg reqLoadedMsg) tea.Cmd {
	var cmds []tea.Cmd
	if msg.waiter {
		m.lastLoad = time.Now()
		if msg.closed {
			m.subArmed = false
			return nil
		}
		cmds = append(cmds, m.waitRequests())
	}
	if !m.rq.Loaded(msg) {
		return tea.Batch(cmds...)
	}
	m.breakpoints = msg.breakpoints
	m.kc.SetTraces(msg.extra)
	cmds = append(cmds, m.heldChanged(msg.held))
	return tea.Batch(cmds...)
}

// heldChanged jumps to a request held since the last snapshot, and follows the selected
// request from stage to stage as it is stepped.
func (m *model) heldChanged(held []HeldRequest) tea.Cmd {
	now := map[string]string{}
	var fresh *HeldRequest
	moved := ""
	for i, h := range held {
		now[h.ID] = h.Stage
		prev, seen := m.heldSeen[h.ID]
		switch {
		case !seen && fresh == nil:
			fresh = &held[i]
		case seen && prev != h.Stage && h.ID == m.rq.sel:
			moved = h.Stage
		}
	}
	m.heldSeen = now
	if fresh == nil {
		if moved == "" {
			return nil
		}
		m.rq.Select(m.rq.sel, moved)
		cmd, _ := m.rq.ShowSource()
		return cmd
	}
	if m.prompt.open || m.ex.typing {
		m.note = fmt.Sprintf(m.tr.NoteHeldWhileTyping, fresh.Stage)
		return nil
	}
	m.showHelp, m.info = false, nil
	m.at = viewRequests
	m.rq.Select(fresh.ID, fresh.Stage)
	m.rq.focus = rqLane
	m.applyViewFocus()
	m.note = fmt.Sprintf(m.tr.NoteHeldJump, fresh.Stage)
	cmd, _ := m.rq.ShowSource()
	return cmd
}

// heldActionMsg reports a step, continue or abort.
type heldActionMsg struct {
	action, id string
	err        error
}

// heldAction steps, continues or aborts the held request the screen is about.
func (m *model) heldAction(action string) tea.Cmd {
	if m.bps == nil {
		m.note = m.tr.NoteBreakNotWired
		return nil
	}
	h, ok := m.focusHeld()
	if !ok {
		m.note = m.tr.NoteNothingHeld
		return nil
	}
	bps, id := m.bps, h.ID
	return func() tea.Msg {
		var err error
		switch action {
		case "step":
			err = bps.Step(id)
		case "continue":
			err = bps.Continue(id)
		default:
			err = bps.Abort(id)
		}
		return heldActionMsg{action: action, id: id, err: err}
	}
}

// Messages of the : break commands.
type (
	breakListMsg struct{ specs []string }
	breakSetMsg  struct {
		line, spec string
		remove     bool
		err        error
	}
)

// infoBox is a box of lines shown over the body until a key closes it.
type infoBox struct {
	title string
	lines []string
}

// runLine runs a command line. It returns the reason it could not run (the line stays in the
// prompt then) or "".
func (m *model) runLine(line string) (tea.Cmd, string) {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ":"))
	if line == "" {
		return nil, ""
	}
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	c, ok := lookupCommand(name)
	if !ok {
		return nil, fmt.Sprintf(m.tr.CmdUnknown, name)
	}
	if rest != "" && c.args == "" {
		return nil, fmt.Sprintf(m.tr.CmdNoArgs, c.name)
	}
	switch c.name {
	case "requests":
		if rest != "" && rest != "all" {
			return nil, m.tr.CmdRequestsArg
		}
		m.at = viewRequests
		m.rq.list.dirty = true
		if rest == "all" {
			m.rq.Unclear()
		}
		return m.loadNow(), ""
	case "kubectl":
		return m.kubectlLine(rest)
	case "etcd":
		return m.openEtcd(), ""
	case "break", "unbreak":
		if m.bps == nil {
			m.note = m.tr.NoteBreakNotWired
			return nil, ""
		}
		bps := m.bps
		if rest == "" {
			if c.name == "unbreak" {
				return nil, m.tr.CmdUnbreakWhich
			}
			return func() tea.Msg { return breakListMsg{specs: bps.List()} }, ""
		}
		remove := c.name == "unbreak"
		return func() tea.Msg {
			var err error
			if remove {
				err = bps.Remove(rest)
			} else {
				err = bps.Add(rest)
			}
			return breakSetMsg{line: line, spec: rest, remove: remove, err: err}
		}, ""
	case "clear":
		m.at = viewRequests
		m.rq.Clear()
		m.note = m.tr.NoteCleared
		return m.loadNow(), ""
	case "lesson":
		m.at = viewTour
	case "track":
		m.at = viewTour
		return m.trackCommand(strings.Fields(rest))
	case "glossary":
		m.at = viewGlossary
	case "exercises":
		m.at = viewExercises
		m.syncCurrent()
	case "board":
		if m.cls == nil || m.cls.host == nil {
			return nil, m.tr.BoardNotHost
		}
		m.at = viewBoard
	case "msg":
		return m.msgLine(rest)
	case "assign":
		return m.assignLine(rest)
	case "help":
		m.info = commandsHelp(m.st, m.tr, m.cls != nil && m.cls.host != nil)
	case "quit":
		return tea.Quit, ""
	}
	return nil, ""
}

// kubectlLine runs `:kubectl ARGS` (no ARGS shows the pane with the last command).
func (m *model) kubectlLine(rest string) (tea.Cmd, string) {
	if rest == "" {
		m.at = viewKubectl
		return nil, ""
	}
	args, err := kubectl.Split(rest)
	if err != nil {
		var pe *kubectl.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Sprintf(m.tr.CmdColumn, pe.Col+len(":k "), pe.MsgIn(m.tr))
		}
		return nil, err.Error()
	}
	if len(args) > 0 && args[0] == "kubectl" {
		args = args[1:]
	}
	if why := m.kubectlBusy(); why != "" {
		return nil, why
	}
	m.at = viewKubectl
	m.kc.focus = kcOutput
	m.applyViewFocus()
	// What the server answers is the server's own state, not how far the walkthrough has
	// gone: paused at serve/kubeconfig (a student following an instructor who ran to the end
	// stopped there), the server serves and its kubeconfig is written.
	status := server.NotListening
	if m.srv != nil {
		status = m.srv.ServeStatus()
	}
	switch {
	case m.srv == nil || status == server.NotListening:
		m.kc.Notice(rest, args,
			m.st.Served.Failing.Render(m.tr.KubectlNotServing),
			m.tr.KubectlRunToEnd)
		return nil, ""
	case status == server.Listening:
		m.kc.Notice(rest, args, m.tr.KubectlNoKubeconfigYet, m.tr.KubectlRunToEnd)
		return nil, ""
	case status == server.Stopped:
		m.kc.Notice(rest, args, m.st.Served.Failing.Render(m.tr.KubectlServerStopped))
		return nil, ""
	case m.kube == nil:
		m.kc.Notice(rest, args, m.tr.KubectlNotWired,
			"  KUBECONFIG="+m.srv.Kubeconfig()+" kubectl "+kubectl.Quote(args))
		return nil, ""
	}
	if kubectl.ReadsStdin(args) {
		return m.kc.OpenBox(rest, args), ""
	}
	return m.startKubectl(rest, args, "", false), ""
}

// kubectlBusy says why no kubectl command may start now ("" if one may): one runs that has
// no watch open yet, or one runs beside already.
func (m *model) kubectlBusy() string {
	switch {
	case m.kc.CanStart():
		return ""
	case m.kc.bg != nil && m.kc.run.watchOpen():
		return fmt.Sprintf(m.tr.CmdKubectlBesideBusy, kubectl.Quote(m.kc.bg.args))
	}
	return fmt.Sprintf(m.tr.CmdKubectlRunning, kubectl.Quote(m.kc.run.args))
}

// startKubectl runs a kubectl command line in the pane, with input as its standard input when
// hasInput (the text box's manifest). A command running with its watch open goes on beside it.
func (m *model) startKubectl(line string, args []string, input string, hasInput bool) tea.Cmd {
	if why := m.kubectlBusy(); why != "" {
		m.note = why
		return nil
	}
	if m.kc.running {
		m.note = fmt.Sprintf(m.tr.NoteKubectlBeside, kubectl.Quote(m.kc.run.args))
	}
	ctx, cancel := context.WithCancel(m.ctx)
	run := newKcRun(line, args, cancel)
	run.input, run.hasInput = input, hasInput
	m.kc.wired = m.reqs != nil
	m.kc.Start(run)
	return tea.Batch(runKubectl(m.kube, m.srv.Kubeconfig(), run, ctx), waitOutput(run))
}

// boxKey handles a key while the text box for `-f -` is open: ctrl+d runs the command with the
// manifest, esc puts the box away, anything else is typed into it.
func (m *model) boxKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyCtrlD:
		line, args, manifest := m.kc.CloseBox()
		if strings.TrimSpace(manifest) == "" {
			m.note = m.tr.KubectlBoxEmpty
			return nil
		}
		return m.startKubectl(line, args, manifest, true)
	case tea.KeyEsc:
		m.kc.CloseBox()
		m.note = m.tr.KubectlBoxCancelled
		return nil
	}
	return m.kc.BoxKey(msg)
}

// completer is what the command line's suggestions draw on now.
func (m *model) completer() completer {
	c := completer{tr: m.tr, breakpoints: m.breakpoints, host: m.cls != nil && m.cls.host != nil}
	seen := map[string]bool{}
	if m.srv != nil && m.srv.ServeStatus() == server.Serving {
		for _, id := range m.srv.Identities() {
			c.contexts = append(c.contexts, id.Context)
			if !seen[id.User] {
				seen[id.User] = true
				c.users = append(c.users, id.User)
			}
		}
	}
	if len(c.contexts) == 0 {
		c.contexts = []string{"admin", "alice", "bob"}
	}
	c.contexts = append(c.contexts, server.ContextAnonymous, server.ContextBadToken)
	if c.host {
		for _, e := range m.ex.all {
			c.exercises = append(c.exercises, suggestion{text: e.ID, desc: e.Title})
		}
	}
	for _, u := range []string{"alice", "bob", "system:apiserver"} {
		if !seen[u] {
			c.users = append(c.users, u)
		}
	}
	return c
}

// promptKey handles a key while the command line is open.
func (m *model) promptKey(msg tea.KeyMsg) tea.Cmd {
	run, _ := m.prompt.Key(msg, m.completer())
	if !run {
		return nil
	}
	line := m.prompt.Line()
	cmd, problem := m.runLine(line)
	if problem != "" {
		m.prompt.err = problem
		return nil
	}
	m.prompt.hist.Add(strings.TrimSpace(line))
	m.prompt.Close()
	return cmd
}

// viewMouse handles the mouse in an after-serve view: the wheel scrolls the pane under it
// (focusing it), a click focuses.
func (m *model) viewMouse(msg tea.MouseMsg) {
	r := m.vr
	type target struct {
		at    rect
		focus func()
	}
	var ts []target
	switch m.at {
	case viewRequests:
		lower := m.rq.tab
		ts = []target{{r.rqList, func() { m.rq.focus = rqList }}}
		if m.lay.wide {
			ts = append(ts, target{r.rqLane, func() { m.rq.focus = rqLane }},
				target{r.rqDetails, func() { m.rq.focus = rqDetails }}, target{r.rqSource, func() { m.rq.focus = rqSource }})
		} else {
			ts = append(ts, target{r.rqLane, func() { m.rq.focus = lower }})
		}
	case viewKubectl:
		ts = []target{{r.kcOut, func() { m.kc.focus = kcOutput }}, {r.kcReqs, func() { m.kc.focus = kcRequests }}}
	case viewEtcd:
		ts = []target{{r.evTree, func() { m.ev.focus = 0 }}, {r.evValue, func() { m.ev.focus = 1 }}}
	case viewExercises:
		ts = []target{{r.exList, func() { m.ex.focus = 0 }}, {r.exDetail, func() { m.ex.focus = 1 }}}
	}
	for _, t := range ts {
		if t.at.contains(msg.X, msg.Y) {
			t.focus()
			m.applyViewFocus()
			break
		}
	}
	n := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		n = -3
	case tea.MouseButtonWheelDown:
		n = 3
	default:
		return
	}
	switch m.at {
	case viewRequests:
		switch m.rq.focus {
		case rqList:
			m.rq.Move(n)
		case rqLane:
			m.rq.lane.Scroll(n)
		case rqDetails:
			m.rq.details.Scroll(n)
		case rqSource:
			m.rq.source.Scroll(n)
		}
	case viewKubectl:
		if m.kc.focus == kcOutput {
			m.kc.out.Scroll(n)
		} else {
			m.kc.reqs.Scroll(n)
		}
	case viewEtcd:
		if m.ev.focus == 0 {
			m.ev.Move(n)
		} else {
			m.ev.value.Scroll(n)
		}
	case viewExercises:
		if m.ex.focus == 0 {
			m.ex.Move(n)
		} else {
			m.ex.detail.Scroll(n)
		}
	}
}
