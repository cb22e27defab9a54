package kubectl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	kctl "github.com/kubewalk/kubewalk/runtime/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// Kubectl runs kubectl commands in-process for the view (*kubectl.Runner).
type Kubectl interface {
	// Run runs `kubectl ARGS`, writing its output to out as it comes, until it ends or ctx
	// does (see kubectl.Runner.Run). A *kubectl.RefusedError says the command was not run.
	Run(ctx context.Context, args []string, out io.Writer) (kctl.Result, error)
	// Close releases what the runner holds (its cache directory).
	Close() error
}

// NewKubectl makes the kubectl runner once the server serves and its kubeconfig exists; it
// is called from a tea.Cmd on the first :kubectl command.
type NewKubectl func(kubeconfig string) (Kubectl, error)

// Server is what the view reads of the walkthrough's server (tui.ServerInfo has it).
type Server interface {
	// Kubeconfig is the path of the kubeconfig the server wrote.
	Kubeconfig() string
	// ServeStatus is what a client of the server finds now; safe to call at any time.
	ServeStatus() server.ServeStatus
	// Identities are the kubeconfig's users and contexts (the : line completes --context).
	Identities() []server.Identity
}

// maxLines bounds the output the pane keeps (the oldest lines go first).
const maxLines = 10000

// holder makes the runner on first use (the kubeconfig exists only once the server serves)
// and closes it when the screen ends. Only tea.Cmds and Close use it.
type holder struct {
	mu     sync.Mutex
	tr     *i18n.Strings
	make   NewKubectl
	r      Kubectl
	closed bool
}

func (h *holder) get(kubeconfig string) (Kubectl, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, errors.New(h.tr.KubectlShuttingDown)
	}
	if h.r == nil {
		r, err := h.make(kubeconfig)
		if err != nil {
			return nil, fmt.Errorf(h.tr.KubectlStarting, err)
		}
		h.r = r
	}
	return h.r, nil
}

// Close closes the runner, if one was made; later gets fail.
func (h *holder) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.r == nil {
		return nil
	}
	return h.r.Close()
}

// Run is one kubectl command: the writer its output goes to (written on the command's
// goroutine, read by the update loop on each output message), and how to stop it.
type Run struct {
	line   string
	args   []string
	ctx    string // the --context it runs as
	cancel context.CancelFunc
	done   chan struct{} // closed when Run has returned
	notify chan struct{} // output arrived (coalesced)

	input    string // the manifest of `-f -`, from the text box
	hasInput bool

	mu      sync.Mutex
	lines   []string
	partial []byte
	dropped int
	reqs    []kctl.Request // as their responses arrived (ObserveRequest)
}

func newRun(line string, args []string, cancel context.CancelFunc) *Run {
	return &Run{line: line, args: args, ctx: ContextOf(args), cancel: cancel,
		done: make(chan struct{}), notify: make(chan struct{}, 1)}
}

// Args are the command's arguments (after `kubectl`).
func (r *Run) Args() []string { return r.args }

// Done is closed once the command has returned.
func (r *Run) Done() <-chan struct{} { return r.done }

// KubectlInput implements kubectl.InputProvider: the manifest typed into the text box.
func (r *Run) KubectlInput() (string, bool) { return r.input, r.hasInput }

// ObserveRequest implements kubectl.RequestObserver: the pane lists a command's requests, and
// their lanes, while it runs (a `get -w` ends only when stopped).
func (r *Run) ObserveRequest(q kctl.Request) {
	r.mu.Lock()
	r.reqs = append(r.reqs, q)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

// WatchOpen reports whether the command has a watch the server answered 200: the runner
// lets the next command run beside it from then on.
func (r *Run) WatchOpen() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.reqs {
		if q.WatchOpen() {
			return true
		}
	}
	return false
}

// Tail returns the last n lines of output (the unfinished last line among them) and how many
// lines came before them.
func (r *Run) Tail(n int) (lines []string, before int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := r.lines
	if len(r.partial) > 0 {
		all = append(all[:len(all):len(all)], cleanLine(r.partial))
	}
	start := max(len(all)-n, 0)
	return append([]string(nil), all[start:]...), r.dropped + start
}

// requests returns the requests observed so far.
func (r *Run) requests() []kctl.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]kctl.Request(nil), r.reqs...)
}

// ContextOf is the --context args choose, "admin" by default.
func ContextOf(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--context" && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--context="); ok {
			return v
		}
	}
	return "admin"
}

// Write collects output line by line.
func (r *Run) Write(p []byte) (int, error) {
	r.mu.Lock()
	data := append(r.partial, p...)
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		r.lines = append(r.lines, cleanLine(data[:i]))
		data = data[i+1:]
	}
	r.partial = append([]byte(nil), data...)
	if over := len(r.lines) - maxLines; over > maxLines/10 {
		r.lines = append([]string(nil), r.lines[over:]...)
		r.dropped += over
	}
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

// since returns the complete lines from absolute line number from on (lines are numbered
// from 0 since the command started; those dropped are gone, so from is raised to the first
// kept), the unfinished last line, and the number of the first line returned.
func (r *Run) since(from int) (lines []string, partial string, first int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(len(r.lines)-maxLines, 0)
	first = max(from, r.dropped+start)
	lines = append([]string(nil), r.lines[first-r.dropped:]...)
	if len(r.partial) > 0 {
		partial = cleanLine(r.partial)
	}
	return lines, partial, first
}

// cleanLine makes a line of output safe to draw: no escape sequences or control characters
// (they would move the TUI's cursor), tabs expanded, invalid UTF-8 replaced.
func cleanLine(b []byte) string {
	s := strings.TrimSuffix(string(b), "\r")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	s = ansi.Strip(s)
	if strings.IndexFunc(s, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
		s = strings.Map(func(r rune) rune {
			if r < ' ' && r != '\t' || r == 0x7f {
				return -1
			}
			return r
		}, s)
	}
	return common.ExpandTabs(s)
}

// Messages of a kubectl run, handled in Model.Update.
type (
	// outputMsg says run wrote more output, observed a request, or ended.
	outputMsg struct{ run *Run }
	// doneMsg says run has returned, and how.
	doneMsg struct {
		run *Run
		res kctl.Result
		err error
	}
)

// runKubectl runs the command in a tea.Cmd.
func runKubectl(h *holder, kubeconfig string, run *Run, ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		defer close(run.done)
		r, err := h.get(kubeconfig)
		if err != nil {
			return doneMsg{run: run, res: kctl.Result{Args: run.args, ExitCode: 1}, err: err}
		}
		res, err := r.Run(ctx, run.args, run)
		return doneMsg{run: run, res: res, err: err}
	}
}

// waitOutput waits for more output (or the end) of run.
func waitOutput(run *Run) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-run.notify:
		case <-run.done:
		}
		return outputMsg{run: run}
	}
}
