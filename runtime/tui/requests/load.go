package requests

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/runtime/tracing"
)

// refreshEvery bounds how often the Requests view re-reads the store while events keep
// coming: under load one re-read covers many requests.
const refreshEvery = 50 * time.Millisecond

// query is what the loaders read: the filter, the traces wanted by ID besides the list (the
// kubectl pane's), and a sequence number. It is shared between the update loop (which writes
// it) and the loaders (tea.Cmds); loads are serialised so that a higher sequence number is
// always a later snapshot.
type query struct {
	mu     sync.Mutex
	filter tracing.Filter
	want   []string

	loadMu sync.Mutex
	seq    uint64
}

func (q *query) set(f tracing.Filter, want []string) {
	q.mu.Lock()
	q.filter, q.want = f, want
	q.mu.Unlock()
}

// loadedMsg is one snapshot of the store (and the breakpoints).
type loadedMsg struct {
	seq         uint64
	traces      []tracing.Trace // newest first
	extra       map[string]tracing.Trace
	dropped     uint64
	held        []HeldRequest
	breakpoints []string
	waiter      bool // from the subscription waiter: re-arm it
	closed      bool // the subscription's channel was closed
}

// subscribedMsg carries the trace store's subscription.
type subscribedMsg struct {
	ch     <-chan tracing.Event
	cancel func()
}

// ownRequest reports whether kubewalk itself made the request: its clients name themselves
// "kubewalk-…" in the User-Agent (the panel's and the state pane's health checks,
// server.SelfCheckAgent; the exercise checks; the loopback client). The Requests view counts
// them with the loopback traffic, hidden until L, or they would bury the learner's requests.
func ownRequest(t tracing.Trace) bool { return strings.HasPrefix(t.UserAgent, "kubewalk-") }

// load reads a snapshot. It runs in a tea.Cmd.
func load(reqs Requests, bps Breakpoints, q *query) loadedMsg {
	q.loadMu.Lock()
	defer q.loadMu.Unlock()
	q.seq++
	q.mu.Lock()
	f, want := q.filter, append([]string(nil), q.want...)
	q.mu.Unlock()
	msg := loadedMsg{seq: q.seq, extra: map[string]tracing.Trace{}}
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

// syncQuery tells the loaders what to read: the filter, and the traces wanted by ID (the
// kubectl pane's, extra, and the selected one).
func (v *Model) syncQuery(extra ...string) {
	var want []string
	if v.opt.Want != nil {
		want = v.opt.Want()
	}
	want = append(want, extra...)
	if v.sel != "" {
		want = append(want, v.sel)
	}
	v.q.set(v.filter(), want)
}

// loadNow reads the store at once (after the filter or the selection changed).
func (v *Model) loadNow() tea.Cmd {
	if v.opt.Requests == nil {
		return nil
	}
	v.syncQuery()
	reqs, bps, q := v.opt.Requests, v.opt.Breakpoints, v.q
	return func() tea.Msg { return load(reqs, bps, q) }
}

// subscribe subscribes to the trace store, off the update loop.
func (v *Model) subscribe() tea.Cmd {
	if v.opt.Requests == nil {
		return nil
	}
	reqs := v.opt.Requests
	return func() tea.Msg {
		ch, cancel := reqs.Subscribe()
		return subscribedMsg{ch: ch, cancel: cancel}
	}
}

// done is the channel closed when the program ends (nil: never).
func (v *Model) done() <-chan struct{} {
	if v.opt.Done == nil {
		return nil
	}
	return v.opt.Done()
}

// waitRequests waits for the store's next events, at most one re-read per refreshEvery, and
// reads it.
func (v *Model) waitRequests() tea.Cmd {
	ch, reqs, bps, q, done, w := v.subCh, v.opt.Requests, v.opt.Breakpoints, v.q, v.done(), &v.blocked
	var stop <-chan struct{}
	if v.opt.Ctx != nil {
		stop = v.opt.Ctx.Done()
	}
	next := v.lastLoad.Add(refreshEvery)
	return func() tea.Msg {
		w.Enter()
		select {
		case _, ok := <-ch:
			w.Leave()
			if !ok {
				return loadedMsg{waiter: true, closed: true}
			}
		case <-done:
			w.Leave()
			return nil
		case <-stop:
			w.Leave()
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

// onLoad takes a store snapshot: the list, the traces wanted beside it (for the kubectl
// pane, TracesMsg), and the held requests (a newly held one brings the screen to it).
func (v *Model) onLoad(msg loadedMsg) tea.Cmd {
	var cmds []tea.Cmd
	if msg.waiter {
		v.lastLoad = time.Now()
		if msg.closed {
			v.armed = false
			return nil
		}
		cmds = append(cmds, v.waitRequests())
	}
	if !v.take(msg) {
		return tea.Batch(cmds...)
	}
	v.breakpoints = msg.breakpoints
	extra := msg.extra
	cmds = append(cmds, func() tea.Msg { return TracesMsg{Traces: extra} }, v.heldChanged(msg.held))
	return tea.Batch(cmds...)
}
