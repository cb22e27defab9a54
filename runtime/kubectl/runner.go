// Package kubectl runs the real kubectl command tree (k8s.io/kubectl v0.37.2,
// cmd.NewKubectlCommand) in-process against the run's server, for `:kubectl ARGS` in the TUI:
// no shell, no second binary. A command's stdout and stderr go to one writer, in order; its
// Result carries the exit code kubectl would exit with and the requests it made, each with the
// Audit-Id the server gave it, so a view can show the lanes of those requests beside the output.
//
// kubectl is written as a program: it keeps state in process-wide variables and ends the
// process on errors. Runner contains that (see Run): one command runs at a time in the whole
// process, except beside a command whose watch is open (see Run); the fatal-error handler ends
// only the command that called it; the warning handler kubectl installs is put back after each
// command; nothing is written to the process's stdout or stderr; the commands that need a
// terminal of their own are refused with the line to run elsewhere.
package kubectl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/auth"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	// Before kubectl's commands: their help texts are translated as they initialise.
	_ "github.com/kubewalk/kubewalk/runtime/kubectl/translations"
)

// Options configure a Runner.
type Options struct {
	// Kubeconfig is the path of the run's kubeconfig (server.Server.Kubeconfig()). Required;
	// every command uses it: --kubeconfig is pinned.
	Kubeconfig string
	// DefaultContext is the context a command uses when it passes no --context; "admin" when
	// empty.
	DefaultContext string
	// CacheDir is kubectl's discovery and HTTP cache (--cache-dir). Empty: a private temporary
	// directory that Close removes, so nothing is written under ~/.kube.
	CacheDir string
	// WarningHandler is what client-go's process-wide default warning handler is set back to
	// after each command (kubectl installs its own, which writes to the command's stderr).
	// client-go has no getter for the handler in place, so it cannot be saved and restored;
	// nil means rest.WarningLogger{}, client-go's own default.
	WarningHandler rest.WarningHandler
	// StopGrace bounds how long Run waits for a command to return once ctx is done; 0 means
	// 5s. Every request a command makes ends with ctx, so commands return well within it.
	StopGrace time.Duration
	// Confined runs only the commands and flags on the allow-list (allow.go): set when the
	// screen belongs to someone who is not this machine's user (a student in `kubewalk class
	// ssh`), whose kubectl must not read or write the class host's files, start programs, or
	// reach anything but this run's server. It is layer 1 of the class's confinement; the OS
	// sandbox (runtime/sandbox) holds without it.
	Confined bool
	// NoExecPlugins refuses a kubeconfig user with a credential plugin (exec:) or an auth
	// provider — programs of their own — before any request, and strips them from every client
	// config as a second check. Part of layer 2 (no new programs) of a class's confinement.
	NoExecPlugins bool
	// Unguarded drops every refusal except those that protect the screen's own terminal and
	// process (ownTerminal, standard input, -v, plugins): no allow-list, no pinned flags. It
	// exists for the escape tests of `class ssh`, which prove that the OS sandbox holds alone;
	// kubewalk never sets it otherwise.
	Unguarded bool
}

// InputProvider may be implemented by the writer Run is given: KubectlInput is then the
// command's standard input (the manifest of `-f -`, typed into the kubectl pane's text box);
// without it standard input is empty and `-f -` is refused.
type InputProvider interface {
	KubectlInput() (data string, ok bool)
}

// Runner runs kubectl commands against one kubeconfig. Its methods may be called from any
// goroutine; commands run one at a time (across all Runners: kubectl's state is global).
type Runner struct {
	opts     Options
	cacheDir string
	ownCache bool
}

// New checks the kubeconfig (it must exist and define DefaultContext) and returns a Runner.
func New(opts Options) (*Runner, error) {
	if opts.Kubeconfig == "" {
		return nil, errors.New("kubectl runner: no kubeconfig given")
	}
	if opts.DefaultContext == "" {
		opts.DefaultContext = "admin"
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = 5 * time.Second
	}
	cfg, err := clientcmd.LoadFromFile(opts.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("kubectl runner: kubeconfig: %w", err)
	}
	if _, ok := cfg.Contexts[opts.DefaultContext]; !ok {
		return nil, fmt.Errorf("kubectl runner: kubeconfig %s has no context %q", opts.Kubeconfig, opts.DefaultContext)
	}
	r := &Runner{opts: opts, cacheDir: opts.CacheDir}
	if r.cacheDir == "" {
		dir, err := os.MkdirTemp("", "kubewalk-kubectl-cache-")
		if err != nil {
			return nil, fmt.Errorf("kubectl runner: --cache-dir: %w", err)
		}
		r.cacheDir, r.ownCache = dir, true
	}
	return r, nil
}

// Close removes the private cache directory, if New made one.
func (r *Runner) Close() error {
	if !r.ownCache {
		return nil
	}
	if err := os.RemoveAll(r.cacheDir); err != nil {
		return fmt.Errorf("kubectl runner: removing --cache-dir: %w", err)
	}
	return nil
}

// Kubeconfig returns the kubeconfig path every command uses.
func (r *Runner) Kubeconfig() string { return r.opts.Kubeconfig }

// ExternalCommand returns the shell line that runs `kubectl ARGS` in another terminal against
// the same server: KUBECONFIG=<path> kubectl <args>, quoted for a POSIX shell.
func (r *Runner) ExternalCommand(args []string) string {
	line := "KUBECONFIG=" + quoteWord(r.opts.Kubeconfig) + " kubectl"
	if len(args) > 0 {
		line += " " + Quote(args)
	}
	return line
}

// Result is what a command did.
type Result struct {
	// Args are the arguments as given (the pinned --kubeconfig is not among them).
	Args []string
	// Context is the kubeconfig context the command ran as ("" if it stopped before parsing).
	Context string
	// ExitCode is the code the kubectl binary would exit with: 0 success, 1 an error, 2 a
	// panic inside kubectl; `kubectl diff` uses 1 for "differences found" and more for errors.
	ExitCode int
	// Canceled is set when ctx ended the command (esc on `get -w`, `logs -f`). As with the
	// binary interrupted by ^C, output stops at once; ExitCode is what kubectl returned then.
	Canceled bool
	// Stderr is what kubectl wrote to its stderr (it is also in the output, in order), at most
	// the last 64 KiB.
	Stderr string
	// Requests are the HTTP requests the command made, in the order they were sent.
	Requests []Request
}

// AuditIDs returns the Audit-Id of every request that got a response, in order.
func (r Result) AuditIDs() []string {
	var ids []string
	for _, q := range r.Requests {
		if q.AuditID != "" {
			ids = append(ids, q.AuditID)
		}
	}
	return ids
}

// runSlot serialises commands process-wide: kubectl sets process-wide state while it starts a
// command (client-go's default warning handler, its profiling flags, os.Stdin for `-f -`,
// os.Stderr for logs). A command gives the slot up before it ends once its watch is open
// (runState.yield), when it has nothing left to set.
var runSlot = make(chan struct{}, 1)

// RunLine splits line as a shell would (see Split; nothing is expanded) and runs it. A leading
// "kubectl" word is dropped, so a pasted "kubectl get cm" works.
func (r *Runner) RunLine(ctx context.Context, line string, out io.Writer) (Result, error) {
	args, err := Split(line)
	if err != nil {
		return Result{ExitCode: 1}, err
	}
	if len(args) > 0 && args[0] == "kubectl" {
		args = args[1:]
	}
	return r.Run(ctx, args, out)
}

// Run runs `kubectl ARGS` in-process: a fresh cmd.NewKubectlCommand whose stdout and stderr
// both write to out (in the order written; Result.Stderr keeps the stderr part too) and whose
// stdin is empty, with --kubeconfig pinned and --context defaulting to Options.DefaultContext.
// No args, or `help`, prints kubectl's help.
//
// A kubectl error is not a Go error: it is written to out as the binary writes it to stderr
// ("Error from server (Forbidden): ...") and Result.ExitCode says 1. Run returns an error
// when it did not run the command: *RefusedError (a command that needs a terminal of its own,
// a pinned flag, standard input), a context error while waiting for the previous command, or
// a command that did not stop within Options.StopGrace of ctx ending.
//
// If out implements RequestObserver, it hears of each request as its response arrives.
//
// Commands run one at a time, in the whole process: Run waits for the command before to end —
// or to have its watch open. A command whose watch request has been answered 200 (`get -w`,
// `events -w`, `rollout status`, `wait`, `get --raw '...?watch=1'`) only streams and prints from
// then on, so the next command runs beside it while it goes on: a watch in one place and the
// change that reaches it typed in another, as with two terminals. (A `logs` command, which has
// os.Stderr captured, keeps the slot to its end.)
//
// Cancelling ctx stops the command: every HTTP request it makes carries a context that ends
// with ctx, so `get -w` and `logs -f` return promptly, and Run leaves no goroutine behind. Should
// a command still not return within Options.StopGrace, Run returns an error while the command
// goes on in the background, and the next Run waits for it (kubectl's globals are its).
func (r *Runner) Run(ctx context.Context, args []string, out io.Writer) (Result, error) {
	args = append([]string(nil), args...)
	res := Result{Args: args, ExitCode: 1}
	if err := ctx.Err(); err != nil {
		return res, fmt.Errorf("kubectl %s: %w", Quote(args), err)
	}
	select {
	case runSlot <- struct{}{}:
	case <-ctx.Done():
		return res, fmt.Errorf("kubectl %s: waiting for the previous command: %w", Quote(args), ctx.Err())
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	st := &runState{ctx: runCtx, out: out, rec: &recorder{ctx: runCtx}}
	if o, ok := out.(RequestObserver); ok {
		st.rec.observe = o.ObserveRequest
	}
	st.rec.watchOpen = st.yield
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer st.release()
		r.execute(runCtx, st, args)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t := time.NewTimer(r.opts.StopGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			res = st.result(res)
			res.Canceled = true
			return res, fmt.Errorf("kubectl %s: did not stop within %s of being cancelled", Quote(args), r.opts.StopGrace)
		}
	}
	res = st.result(res)
	res.Canceled = ctx.Err() != nil
	switch {
	case st.refused != nil:
		return res, st.refused
	case st.failed != nil:
		return res, fmt.Errorf("kubectl %s: %w", Quote(args), st.failed)
	case st.panicked != nil:
		return res, fmt.Errorf("kubectl %s: panic: %v", Quote(args), st.panicked)
	}
	return res, nil
}

// execute builds and runs the command on the current goroutine, which Run started for it, and
// restores the globals it changed. kubectl's fatal-error handler (cmdutil.BehaviorOnFatal)
// would call os.Exit; here (fatalRoute) it records the code in the run of the goroutine that
// calls it and ends that goroutine with runtime.Goexit. Goexit rather than a panic: kubectl
// calls cmdutil.CheckErr from goroutines of its own too (cp), where a panic could not be
// recovered and would end the process, and no recover() in kubectl or client-go can swallow a
// Goexit.
func (r *Runner) execute(ctx context.Context, st *runState, args []string) {
	defer routeFatal(st)()
	defer func() {
		// A watch that gave its turn up and ends while the command in front runs leaves that
		// command's handler in place: the one in front puts the default back when it ends.
		st.mu.Lock()
		yielded := st.released
		st.mu.Unlock()
		if !yielded || !othersLive(st) {
			rest.SetDefaultWarningHandler(r.warningHandler())
		}
	}()
	defer st.restoreStderr()
	defer st.restoreStdin()
	defer func() {
		if v := recover(); v != nil {
			st.mu.Lock()
			st.panicked, st.code, st.exited = v, 2, true
			st.mu.Unlock()
			fmt.Fprintf(st.stream(true), "panic: %v\n", v)
		}
	}()

	input, hasInput := "", false
	if ip, ok := st.out.(InputProvider); ok {
		input, hasInput = ip.KubectlInput()
	}
	if hasInput {
		if err := st.feedStdin(input); err != nil {
			st.set(func() { st.failed = err })
			return
		}
	}
	root, err := r.newCommand(st, args, input, hasInput)
	if err != nil {
		st.set(func() { st.failed = err })
		return
	}
	if ref := r.refuseUnparsed(root, args); ref != nil {
		st.set(func() { st.refused = ref })
		return
	}
	if err := root.ExecuteContext(ctx); err != nil {
		var ref *RefusedError
		if errors.As(err, &ref) {
			st.set(func() { st.refused = ref })
			return
		}
		// As cmd/kubectl's main does with what cli.RunNoErrOutput returns.
		cmdutil.CheckErr(err)
	}
}

func (r *Runner) warningHandler() rest.WarningHandler {
	if r.opts.WarningHandler != nil {
		return r.opts.WarningHandler
	}
	return rest.WarningLogger{}
}

// newCommand builds the kubectl root command for one run, as cmd/kubectl's main does (its
// ConfigFlags are kubectl's defaultConfigFlags), with the run's streams and transport.
func (r *Runner) newCommand(st *runState, args []string, input string, hasInput bool) (*cobra.Command, error) {
	streams := genericiooptions.IOStreams{In: strings.NewReader(input), Out: st.stream(false), ErrOut: st.stream(true)}
	cf := genericclioptions.NewConfigFlags(true).
		WithDeprecatedPasswordFlag().
		WithDiscoveryBurst(300).
		WithDiscoveryQPS(50.0).
		WithWarningPrinter(streams).
		WithWrapConfigFn(func(c *rest.Config) *rest.Config {
			if r.opts.NoExecPlugins && (c.ExecProvider != nil || c.AuthProvider != nil) {
				// refuseParsed refused this identity already; should a path get here anyway,
				// the plugin never runs and every request fails saying why.
				c.ExecProvider, c.AuthProvider = nil, nil
				c.Wrap(func(http.RoundTripper) http.RoundTripper { return refusedTransport{} })
			}
			c.Wrap(st.rec.wrap)
			return c
		})
	// No Arguments: kubectl would read ~/.kube/kuberc from them (and os.Exit on a bad one);
	// personal preferences and aliases are not applied here.
	root := kubectlcmd.NewKubectlCommand(kubectlcmd.KubectlOptions{ConfigFlags: cf, IOStreams: streams})
	// Never nil: cobra parses os.Args (kubewalk's own command line) when given nil.
	root.SetArgs(append([]string{}, args...))
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	// As component-base/cli.RunNoErrOutput does for the binary (kubectl's root already sets
	// SilenceUsage and its own flag-error function).
	root.SilenceErrors = true

	pre := root.PersistentPreRunE
	root.PersistentPreRunE = func(c *cobra.Command, a []string) error {
		if ref := r.refuseParsed(c, args, hasInput); ref != nil {
			return ref
		}
		if err := r.pin(c, cf); err != nil {
			return err
		}
		st.set(func() { st.context = *cf.Context })
		if c.CommandPath() == "kubectl logs" {
			if err := st.captureStderr(); err != nil {
				return err
			}
		}
		return pre(c, a)
	}
	if err := replaceCanI(root, cf, streams); err != nil {
		return nil, err
	}
	return root, nil
}

// pin sets the flags the run decides: the kubeconfig always (also `kubectl config`'s own
// --kubeconfig, which shadows the global one), the context and cache directory unless given.
// They are set after parsing, so help texts show kubectl's own defaults.
func (r *Runner) pin(c *cobra.Command, cf *genericclioptions.ConfigFlags) error {
	*cf.KubeConfig = r.opts.Kubeconfig
	if f := c.Flags().Lookup("kubeconfig"); f != nil {
		if err := f.Value.Set(r.opts.Kubeconfig); err != nil {
			return fmt.Errorf("pinning --kubeconfig: %w", err)
		}
	}
	if !c.Flags().Changed("context") {
		*cf.Context = r.opts.DefaultContext
	}
	if !c.Flags().Changed("cache-dir") {
		*cf.CacheDir = r.cacheDir
	}
	return nil
}

// replaceCanI replaces the Run of `kubectl auth can-i`: upstream's (pkg/cmd/auth/cani.go
// NewCmdCanI at v0.37.2) calls os.Exit(1) itself when the answer is "no". This Run is the same
// sequence — Complete, Validate, RunAccessList or RunAccessCheck, CheckErr — on options read
// from the command's own parsed flags (canIFlags; TestCanIFlagsCovered fails if upstream adds
// one), and a "no" goes through the fatal-error handler with code 1 like any other error.
func replaceCanI(root *cobra.Command, cf *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams) error {
	canI, _, err := root.Find([]string{"auth", "can-i"})
	if err != nil || canI.Name() != "can-i" {
		return fmt.Errorf("kubectl auth can-i is not in the command tree (%v)", err)
	}
	mvf := cmdutil.NewMatchVersionFlags(cf)
	f := cmdutil.NewFactory(mvf)
	canI.Run = func(cmd *cobra.Command, args []string) {
		fs := cmd.Flags()
		mvf.RequireMatchedServerVersion, _ = fs.GetBool("match-server-version")
		o := &auth.CanIOptions{IOStreams: streams}
		o.AllNamespaces, _ = fs.GetBool("all-namespaces")
		o.Quiet, _ = fs.GetBool("quiet")
		o.Subresource, _ = fs.GetString("subresource")
		o.List, _ = fs.GetBool("list")
		o.NoHeaders, _ = fs.GetBool("no-headers")
		cmdutil.CheckErr(o.Complete(f, args))
		cmdutil.CheckErr(o.Validate())
		var err error
		if o.List {
			err = o.RunAccessList()
		} else {
			var allowed bool
			allowed, err = o.RunAccessCheck()
			if err == nil && !allowed {
				err = cmdutil.ErrExit // exit code 1, no message: what os.Exit(1) did
			}
		}
		cmdutil.CheckErr(err)
	}
	return nil
}

// refusedTransport fails every request of a client config whose credential plugin was
// stripped (Options.NoExecPlugins).
type refusedTransport struct{}

func (refusedTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("credential plugins do not run here: kubectl uses only the kubeconfig's identities without one")
}

// canIFlags are the local flags of `auth can-i` the replacement Run reads.
var canIFlags = []string{"all-namespaces", "quiet", "subresource", "list", "no-headers"}

// maxStderr bounds Result.Stderr.
const maxStderr = 64 << 10

// runState is one run's output, outcome and recorder, shared by the command's goroutines.
type runState struct {
	ctx context.Context
	rec *recorder

	mu       sync.Mutex
	out      io.Writer
	outErr   error
	stderr   []byte
	code     int
	exited   bool
	panicked any
	refused  *RefusedError
	failed   error
	context  string

	origStderr *os.File
	stderrPipe *os.File
	origStdin  *os.File
	stdinPipe  *os.File
	copied     chan struct{}
	released   bool // the run gave runSlot back (yield or release)
}

// yield gives runSlot back while the command goes on, once its watch is open (the recorder
// calls it when a watch request is answered 200): from then on the command only streams and
// prints to its own writer. It puts os.Stdin back first — a manifest given with `-f -` has been
// read before any watch starts — and does nothing while os.Stderr is captured (logs), which
// only the end of the command puts back.
func (st *runState) yield() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.released || st.stderrPipe != nil {
		return
	}
	st.restoreStdinLocked()
	st.released = true
	<-runSlot
}

// release gives runSlot back when the command has ended, unless yield did.
func (st *runState) release() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.released {
		st.released = true
		<-runSlot
	}
}

// set runs f with the state locked.
func (st *runState) set(f func()) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f()
}

// stream returns the writer kubectl's stdout (false) or stderr (true) writes to.
func (st *runState) stream(stderr bool) io.Writer { return streamWriter{st: st, stderr: stderr} }

type streamWriter struct {
	st     *runState
	stderr bool
}

// Write forwards to the run's writer. Once the run is cancelled output is dropped, as the
// binary stops writing when ^C ends it.
func (w streamWriter) Write(p []byte) (int, error) {
	st := w.st
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ctx.Err() != nil {
		return len(p), nil
	}
	if w.stderr {
		st.stderr = append(st.stderr, p...)
		if over := len(st.stderr) - maxStderr; over > 0 {
			st.stderr = append(st.stderr[:0], st.stderr[over:]...)
		}
	}
	if st.outErr != nil {
		return 0, st.outErr
	}
	if _, err := st.out.Write(p); err != nil {
		st.outErr = fmt.Errorf("writing kubectl output: %w", err)
		return 0, st.outErr
	}
	return len(p), nil
}

// fatal is the run's cmdutil.BehaviorOnFatal: print as kubectl's own fatal does (to the
// command's stderr), record the first exit code, end this goroutine.
func (st *runState) fatal(msg string, code int) {
	if msg != "" {
		if !strings.HasSuffix(msg, "\n") {
			msg += "\n"
		}
		_, _ = st.stream(true).Write([]byte(msg))
	}
	st.mu.Lock()
	if !st.exited {
		st.code, st.exited = code, true
	}
	st.mu.Unlock()
	runtime.Goexit()
}

// captureStderr points os.Stderr at a pipe into the command's stderr for the rest of the run.
// Only `kubectl logs` needs it: polymorphichelpers.logsForObjectWithClient (v0.37.2) writes
// "Defaulted container ..." to os.Stderr itself, which would land on the TUI's terminal.
func (st *runState) captureStderr() error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("capturing kubectl logs' stderr: %w", err)
	}
	st.set(func() { st.origStderr, st.stderrPipe, st.copied = os.Stderr, pw, make(chan struct{}) })
	os.Stderr = pw
	go func() {
		defer close(st.copied)
		_, _ = io.Copy(st.stream(true), pr)
		pr.Close()
	}()
	return nil
}

// feedStdin points os.Stdin at a pipe that holds input, for the rest of the run: `-f -` is read
// by cli-runtime's resource builder from os.Stdin itself (resource.FileVisitorForSTDIN at
// v0.37.2), not from the command's IOStreams. Commands run one at a time (runSlot), and the
// TUI's own input reader holds the terminal's *os.File it was given at start, so the swap
// reaches only this command.
func (st *runState) feedStdin(input string) error {
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("kubectl's standard input: %w", err)
	}
	st.set(func() { st.origStdin, st.stdinPipe = os.Stdin, pr })
	os.Stdin = pr
	go func() {
		_, _ = io.WriteString(pw, input)
		pw.Close()
	}()
	return nil
}

// restoreStdin undoes feedStdin, unless yield has.
func (st *runState) restoreStdin() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.restoreStdinLocked()
}

// restoreStdinLocked is restoreStdin with st.mu held.
func (st *runState) restoreStdinLocked() {
	if st.stdinPipe == nil {
		return
	}
	os.Stdin = st.origStdin
	st.stdinPipe.Close() // a writer still blocked on a full pipe gets EPIPE and ends
	st.stdinPipe = nil
}

// restoreStderr undoes captureStderr, once everything written has been copied.
func (st *runState) restoreStderr() {
	st.mu.Lock()
	pipe, orig, copied := st.stderrPipe, st.origStderr, st.copied
	st.mu.Unlock()
	if pipe == nil {
		return
	}
	os.Stderr = orig
	pipe.Close()
	<-copied // the copy writes through st.stream, which takes st.mu
	st.set(func() { st.stderrPipe = nil })
}

// result fills res from the run's state.
func (st *runState) result(res Result) Result {
	st.mu.Lock()
	defer st.mu.Unlock()
	res.Context = st.context
	res.ExitCode = 0
	if st.exited {
		res.ExitCode = st.code
	}
	if st.refused != nil || st.failed != nil {
		res.ExitCode = 1
	}
	res.Stderr = string(st.stderr)
	res.Requests = st.rec.requests()
	return res
}
