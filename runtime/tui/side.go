package tui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/server"
)

// kube-apiserver side by side: s splits the body into our code for the step on screen and,
// beside it, the kube-apiserver v1.37.2 function its kube: location names, read from
// k8s.io/kubernetes in the Go module cache. When the cache lacks a module (k8s.io/kubernetes
// here, k8s.io/apiserver for u), the pane says so and F fetches it with the go command, in a
// tea.Cmd that reports progress; quitting cancels it (the go command is killed) and Run waits
// for it to end.

// Fetch downloads module at version into the Go module cache and returns its directory,
// calling progress (from its own goroutine) with the bytes written so far. It must return when
// ctx ends. lessons.FetchModule is the real one.
type Fetch func(ctx context.Context, module, version string, progress func(bytes int64)) (string, error)

// fetchState is the download under way (at most one) and the downloads that failed, by
// module; off when F is turned off (Options.NoFetch).
type fetchState struct {
	job    *fetchJob
	failed map[string]error
	off    bool
}

// fetchJob is one download.
type fetchJob struct {
	module, version string
	bytes           int64         // written so far, as last reported (update loop only)
	ch              chan int64    // the latest progress (capacity 1: older reports are dropped)
	finished        chan struct{} // closed when the fetch returned
}

type (
	fetchProgressMsg struct {
		job   *fetchJob
		bytes int64
	}
	fetchDoneMsg struct {
		job *fetchJob
		err error
	}
	// upstreamCheckMsg says whether k8s.io/apiserver's source is missing (for the welcome).
	upstreamCheckMsg struct{ missing *MissingModuleError }
)

// checkUpstream asks the content, off the update loop, whether u will find its source.
func (m *model) checkUpstream() tea.Cmd {
	c, ok := m.content.(UpstreamChecker)
	if !ok {
		return nil
	}
	return func() tea.Msg { return upstreamCheckMsg{missing: c.UpstreamMissing()} }
}

// sideStep gives the kube pane the step on screen; it resolves the location only while the
// side-by-side view is open.
func (m *model) sideStep(step Step, ok bool, cp server.Checkpoint) tea.Cmd {
	if m.side {
		return m.kubeSrc.SetStep(step, ok, cp)
	}
	p := m.kubeSrc
	p.step, p.hasStep, p.cp = step, ok, cp
	p.browse, p.key, p.rows = "", "", nil
	return nil
}

// toggleSide opens or closes the side-by-side view.
func (m *model) toggleSide() tea.Cmd {
	if !m.side && !m.kubeSrc.hasStep {
		m.note = m.tr.NoteSideNoStep
		return nil
	}
	m.side = !m.side
	m.sideFocus = 0
	m.resize(m.w, m.h)
	if m.side {
		m.kubeSrc.key = ""
		return m.kubeSrc.load()
	}
	return nil
}

// sideKey handles the keys that differ in the side-by-side view: tab switches side, the
// scrolling keys scroll the focused side, s closes it. It reports false for the rest.
func (m *model) sideKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	k := m.keys
	p := m.source
	if m.sideFocus == 1 {
		p = m.kubeSrc
	}
	switch {
	case m.source.search.typing || m.source.search.active():
		return nil, false
	case msgIs(msg, k.FocusNext), msgIs(msg, k.FocusPrev):
		m.sideFocus = 1 - m.sideFocus
		m.applyFocus()
	case msgIs(msg, k.Up):
		p.Scroll(-1)
	case msgIs(msg, k.Down):
		p.Scroll(1)
	case msgIs(msg, k.PageUp):
		p.Scroll(-p.Page())
	case msgIs(msg, k.PageDown):
		p.Scroll(p.Page())
	case msgIs(msg, k.Top):
		p.Scroll(-1 << 30)
	case msgIs(msg, k.Bottom):
		p.Scroll(1 << 30)
	case msgIs(msg, k.Wrap):
		m.source.ToggleWrap()
		m.kubeSrc.ToggleWrap()
	default:
		return nil, false
	}
	return nil, true
}

// missingOnScreen is the module a pane on screen lacks: the kube pane's (side by side), else
// the upstream source's; nil when none.
func (m *model) missingOnScreen() *MissingModuleError {
	if m.side {
		if mm := m.kubeSrc.missing(); mm != nil {
			return mm
		}
	}
	if m.source.upstream {
		return m.source.missing()
	}
	return nil
}

// startFetch downloads the module a pane on screen lacks, off the update loop.
func (m *model) startFetch() tea.Cmd {
	mm := m.missingOnScreen()
	switch {
	case m.fetch.off:
		m.note = m.tr.NoteFetchOff
		return nil
	case m.fetch.job != nil:
		m.note = fmt.Sprintf(m.tr.NoteFetchBusy, m.fetch.job.module)
		return nil
	case mm == nil:
		m.note = m.tr.NoteFetchNothing
		return nil
	}
	job := &fetchJob{module: mm.Module, version: mm.Version, ch: make(chan int64, 1), finished: make(chan struct{})}
	m.fetch.job = job
	delete(m.fetch.failed, job.module)
	m.fetchDirty()
	ctx, fetch := m.ctx, m.fetcher
	run := func() tea.Msg {
		defer close(job.finished)
		_, err := fetch(ctx, job.module, job.version, func(b int64) {
			select { // keep only the latest report
			case <-job.ch:
			default:
			}
			select {
			case job.ch <- b:
			default:
			}
		})
		return fetchDoneMsg{job: job, err: err}
	}
	return tea.Batch(run, waitFetch(job))
}

// waitFetch waits for the next progress report of job, until it finishes.
func waitFetch(job *fetchJob) tea.Cmd {
	return func() tea.Msg {
		select {
		case b := <-job.ch:
			return fetchProgressMsg{job: job, bytes: b}
		case <-job.finished:
			return nil
		}
	}
}

// fetchMsg handles a fetch's progress and end.
func (m *model) fetchMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case fetchProgressMsg:
		if msg.job == m.fetch.job {
			msg.job.bytes = msg.bytes
			m.fetchDirty()
		}
		return waitFetch(msg.job)
	case fetchDoneMsg:
		if msg.job != m.fetch.job {
			return nil
		}
		m.fetch.job = nil
		if msg.err != nil {
			if m.ctx.Err() != nil {
				return nil // quitting: the fetch was stopped
			}
			m.fetch.failed[msg.job.module] = msg.err
			m.note = fmt.Sprintf(m.tr.NoteFetchFailed, msg.job.module, oneLine(msg.err.Error()))
			m.fetchDirty()
			return nil
		}
		m.note = fmt.Sprintf(m.tr.NoteFetched, msg.job.module, msg.job.version)
		if m.upMissing != nil && m.upMissing.Module == msg.job.module {
			m.upMissing = nil
		}
		return tea.Batch(m.source.Reload(), m.reloadKube())
	case upstreamCheckMsg:
		m.upMissing = msg.missing
	}
	return nil
}

// reloadKube reloads the kube pane if it is open (else it loads when it opens).
func (m *model) reloadKube() tea.Cmd {
	if !m.side {
		m.kubeSrc.forgetErrors()
		return nil
	}
	return m.kubeSrc.Reload()
}

// fetchDirty redraws the panes that may show a fetch's state.
func (m *model) fetchDirty() {
	m.source.dirty = true
	m.kubeSrc.dirty = true
}

// waitFetchEnd waits (bounded) for a fetch that Run's end cancelled, so that no go command
// outlives the program.
func (m *model) waitFetchEnd() {
	if j := m.fetch.job; j != nil {
		select {
		case <-j.finished:
		case <-time.After(10 * time.Second):
		}
	}
}

// fetchFunc is the Fetch Options.Fetch asks for, or the go command's.
func fetchFunc(f Fetch) Fetch {
	if f != nil {
		return f
	}
	return lessons.FetchModule
}

// missing is the module the pane's location lacks, if that is why it shows no code.
func (p *sourcePane) missing() *MissingModuleError {
	res, ok := p.locs[p.locKey()]
	var mm *MissingModuleError
	if ok && errors.As(res.err, &mm) {
		return mm
	}
	return nil
}

// forgetErrors drops the failed resolutions, so they are tried again.
func (p *sourcePane) forgetErrors() {
	for k, r := range p.locs {
		if r.err != nil {
			delete(p.locs, k)
		}
	}
}

// Reload resolves the shown location again if it had failed (a module fetched since).
func (p *sourcePane) Reload() tea.Cmd {
	p.forgetErrors()
	p.key = ""
	return p.load()
}

// missingText explains a missing module to the learner: the offer to fetch it, the fetch under
// way, or why it failed.
func (p *sourcePane) missingText(mm *MissingModuleError) string {
	tr := p.tr
	if f := p.fetch; f != nil && f.off {
		return fmt.Sprintf(tr.ModuleMissingNoFetch, mm.Module, mm.Version)
	}
	if f := p.fetch; f != nil {
		if j := f.job; j != nil && j.module == mm.Module {
			return fmt.Sprintf(tr.ModuleFetching, mm.Module, mm.Version, formatBytes(j.bytes))
		}
		if err := f.failed[mm.Module]; err != nil {
			return fmt.Sprintf(tr.ModuleFetchFailed, mm.Module, mm.Version, err)
		}
	}
	if mm.Module == lessons.KubeModule {
		return fmt.Sprintf(tr.ModuleMissing, mm.Module, mm.Version, lessons.KubeDownloadSize)
	}
	return fmt.Sprintf(tr.ModuleMissingNoSz, mm.Module, mm.Version)
}

// formatBytes renders a byte count for the fetch's progress: 812 kB, 23.4 MB.
func formatBytes(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%d kB", n/1000)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}
