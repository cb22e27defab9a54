package source

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// When the module cache lacks a module (k8s.io/kubernetes for the kube pane, k8s.io/apiserver
// for u), the pane says so and F fetches it with the go command, in a tea.Cmd that reports
// progress; quitting cancels it (the go command is killed) and Run waits for it to end.

// Fetch downloads module at version into the Go module cache and returns its directory,
// calling progress (from its own goroutine) with the bytes written so far. It must return when
// ctx ends. lessons.FetchModule is the real one.
type Fetch func(ctx context.Context, module, version string, progress func(bytes int64)) (string, error)

// MissingModuleError says the source a pane wants is in a module the Go module cache does not
// hold; `go mod download Module@Version` (FetchModule) puts it there.
type MissingModuleError struct {
	Module, Version string
	Err             error
}

func (e *MissingModuleError) Error() string {
	return fmt.Sprintf("%s %s is not in the Go module cache", e.Module, e.Version)
}

func (e *MissingModuleError) Unwrap() error { return e.Err }

// Fetches are the run's downloads: the one under way (at most one) and those that failed, by
// module; off when F is turned off (Options.NoFetch). The panes that may lack a module share
// them, to say how a download goes.
type Fetches struct {
	tr     *i18n.Strings
	fetch  Fetch
	job    *fetchJob
	failed map[string]error
	off    bool
}

// NewFetches returns the run's downloads, made with f (nil: the go command's,
// lessons.FetchModule); off refuses them all.
func NewFetches(tr *i18n.Strings, off bool, f Fetch) *Fetches {
	if f == nil {
		f = lessons.FetchModule
	}
	return &Fetches{tr: tr, fetch: f, failed: map[string]error{}, off: off}
}

// Off reports whether downloads are turned off.
func (f *Fetches) Off() bool { return f.off }

// Running reports whether a download is under way.
func (f *Fetches) Running() bool { return f.job != nil }

// fetchJob is one download.
type fetchJob struct {
	module, version string
	bytes           int64         // written so far, as last reported (update loop only)
	ch              chan int64    // the latest progress (capacity 1: older reports are dropped)
	finished        chan struct{} // closed when the fetch returned
}

// FetchMsg is a download's progress or end, for Fetches.Update.
type FetchMsg struct {
	job   *fetchJob
	bytes int64
	done  bool
	err   error
}

// Start downloads mm's module off the update loop, under ctx (the run's: quitting stops it).
// It returns no command and a note for the status line when it cannot: downloads are off, one
// is under way, or mm is nil (nothing on screen lacks a module).
func (f *Fetches) Start(ctx context.Context, mm *MissingModuleError) (tea.Cmd, string) {
	switch {
	case f.off:
		return nil, f.tr.NoteFetchOff
	case f.job != nil:
		return nil, fmt.Sprintf(f.tr.NoteFetchBusy, f.job.module)
	case mm == nil:
		return nil, f.tr.NoteFetchNothing
	}
	job := &fetchJob{module: mm.Module, version: mm.Version, ch: make(chan int64, 1), finished: make(chan struct{})}
	f.job = job
	delete(f.failed, job.module)
	fetch := f.fetch
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
		return FetchMsg{job: job, done: true, err: err}
	}
	return tea.Batch(run, waitFetch(job)), ""
}

// waitFetch waits for the next progress report of job, until it finishes.
func waitFetch(job *fetchJob) tea.Cmd {
	return func() tea.Msg {
		select {
		case b := <-job.ch:
			return FetchMsg{job: job, bytes: b}
		case <-job.finished:
			return nil
		}
	}
}

// FetchResult is what a FetchMsg changed.
type FetchResult struct {
	// Cmd waits for the next report.
	Cmd tea.Cmd
	// Changed: the panes that show the download's state must be drawn again.
	Changed bool
	// Note is for the status line ("" leaves it).
	Note string
	// Fetched is the module now in the cache: the panes that lacked it resolve again.
	Fetched string
}

// Update takes a download's progress or end; ctx is the run's (a download stopped because
// the run ends says nothing).
func (f *Fetches) Update(ctx context.Context, msg FetchMsg) FetchResult {
	if !msg.done {
		if msg.job != f.job {
			return FetchResult{Cmd: waitFetch(msg.job)}
		}
		msg.job.bytes = msg.bytes
		return FetchResult{Cmd: waitFetch(msg.job), Changed: true}
	}
	if msg.job != f.job {
		return FetchResult{}
	}
	f.job = nil
	if msg.err != nil {
		if ctx.Err() != nil {
			return FetchResult{} // quitting: the fetch was stopped
		}
		f.failed[msg.job.module] = msg.err
		return FetchResult{Changed: true,
			Note: fmt.Sprintf(f.tr.NoteFetchFailed, msg.job.module, oneLine(msg.err.Error()))}
	}
	return FetchResult{Changed: true, Fetched: msg.job.module,
		Note: fmt.Sprintf(f.tr.NoteFetched, msg.job.module, msg.job.version)}
}

// Wait waits (bounded) for a download that the run's end cancelled, so that no go command
// outlives the program.
func (f *Fetches) Wait() {
	if j := f.job; j != nil {
		select {
		case <-j.finished:
		case <-time.After(10 * time.Second):
		}
	}
}

// oneLine joins a multi-line error into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Missing is the module the pane's location lacks, if that is why it shows no code.
func (p *Pane) Missing() *MissingModuleError {
	res, ok := p.locs[p.locKey()]
	var mm *MissingModuleError
	if ok && errors.As(res.err, &mm) {
		return mm
	}
	return nil
}

// ForgetErrors drops the failed resolutions, so they are tried again (when the pane next
// loads: a module fetched while the pane is not on screen).
func (p *Pane) ForgetErrors() {
	for k, r := range p.locs {
		if r.err != nil {
			delete(p.locs, k)
		}
	}
}

// Reload resolves the shown location again if it had failed (a module fetched since).
func (p *Pane) Reload() tea.Cmd {
	p.ForgetErrors()
	p.key = ""
	return p.load()
}

// MissingText explains a missing module to the learner: the offer to fetch it, the fetch under
// way, or why it failed.
func (p *Pane) MissingText(mm *MissingModuleError) string {
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

// Progress is the download under way: its module and how much it wrote ("23.4 MB"); ok is
// false when none is.
func (f *Fetches) Progress() (module, written string, ok bool) {
	if f.job == nil {
		return "", "", false
	}
	return f.job.module, formatBytes(f.job.bytes), true
}
