// Package server is kubewalk's API server: a standalone Kubernetes-style server built on
// k8s.io/apiserver (genericapiserver) with embedded etcd.
//
// Its startup runs as seven phases in the order kube-apiserver runs them — config, authn, authz,
// admission, storage, install, serve — each in a file named after the phase and each callable on
// its own. Inside a phase the notable moments are named checkpoints; at each one the server calls
// the caller's Hook, which may block: that is how a walkthrough pauses the live server. After
// any phase, State describes what the server has built so far, read from the live objects.
//
// The package knows nothing of terminals or lessons: callers talk to it through Hook, State and
// the exported phase methods.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kubewalk/kubewalk/server/observe"
)

// Phase names one step of the startup chain.
type Phase string

// The seven phases, in the order they run.
const (
	PhaseConfig    Phase = "config"
	PhaseAuthn     Phase = "authn"
	PhaseAuthz     Phase = "authz"
	PhaseAdmission Phase = "admission"
	PhaseStorage   Phase = "storage"
	PhaseInstall   Phase = "install"
	PhaseServe     Phase = "serve"
)

// Phases lists the phases in the order they run.
func Phases() []Phase {
	return []Phase{PhaseConfig, PhaseAuthn, PhaseAuthz, PhaseAdmission, PhaseStorage, PhaseInstall, PhaseServe}
}

// Checkpoint is a named moment inside a phase at which the server calls its Hook.
type Checkpoint struct {
	// Phase is the phase the checkpoint belongs to.
	Phase Phase
	// Name is unique within the phase, e.g. "x509" in authn.
	Name string
	// Title is a one-line human description of what has just happened.
	Title string
}

// ID returns "phase/name", the checkpoint's key across the whole server.
func (c Checkpoint) ID() string { return string(c.Phase) + "/" + c.Name }

// Checkpoints lists every checkpoint the server reaches, in order.
func Checkpoints() []Checkpoint {
	var all []Checkpoint
	for _, p := range Phases() {
		all = append(all, phaseCheckpoints[p]...)
	}
	return all
}

// PhaseCheckpoints lists the checkpoints of one phase, in order.
func PhaseCheckpoints(p Phase) []Checkpoint {
	return append([]Checkpoint(nil), phaseCheckpoints[p]...)
}

// phaseCheckpoints is filled by each phase file's declarations; it is never written after init.
var phaseCheckpoints = map[Phase][]Checkpoint{
	PhaseConfig:    configCheckpoints,
	PhaseAuthn:     authnCheckpoints,
	PhaseAuthz:     authzCheckpoints,
	PhaseAdmission: admissionCheckpoints,
	PhaseStorage:   storageCheckpoints,
	PhaseInstall:   installCheckpoints,
	PhaseServe:     serveCheckpoints,
}

// checkpoint looks up a declared checkpoint; it panics on a name the phase does not declare,
// which is a programming error caught by every test that runs the phase.
func checkpoint(p Phase, name string) Checkpoint {
	for _, c := range phaseCheckpoints[p] {
		if c.Name == name {
			return c
		}
	}
	panic(fmt.Sprintf("server: phase %s has no checkpoint %q", p, name))
}

// Hook is called at every checkpoint. It may block (to pause a walkthrough) and should return
// promptly with ctx.Err() once ctx is done. A non-nil error stops the startup.
type Hook interface {
	Checkpoint(ctx context.Context, cp Checkpoint, s *Server) error
}

// HookFunc adapts a function to Hook.
type HookFunc func(ctx context.Context, cp Checkpoint, s *Server) error

// Checkpoint calls f.
func (f HookFunc) Checkpoint(ctx context.Context, cp Checkpoint, s *Server) error {
	return f(ctx, cp, s)
}

// Options are the user-facing settings, named like kube-apiserver's flags where the meaning
// is the same.
type Options struct {
	// BindAddress is the IP to listen on (--bind-address). Default 127.0.0.1.
	BindAddress string
	// SecurePort is the HTTPS port (--secure-port); 0 picks a free port.
	SecurePort int
	// EtcdServers are external etcd client URLs (--etcd-servers); empty starts embedded etcd.
	EtcdServers []string
	// DataDir holds embedded etcd's data (--data-dir); empty uses a temp dir removed on Close.
	DataDir string
	// EtcdClientPort and EtcdPeerPort are the loopback ports of the embedded etcd's client and
	// peer listeners (hidden --etcd-client-port, --etcd-peer-port); 0 picks a free port. A
	// supervisor that confines the process to known ports (class ssh's sandbox) sets them.
	EtcdClientPort, EtcdPeerPort int
	// Kubeconfig is where the serve phase writes the kubeconfig (--kubeconfig); empty writes
	// it into the run's work directory. kubewalk never overwrites a file it did not write, and
	// Close removes the one it wrote. DefaultKubeconfigPath, the CLI's default, is special: if
	// a running kubewalk holds it, this run uses its work directory (KubeconfigNote says so).
	Kubeconfig string
	// EtcdPrefix is the key prefix for all objects. Default "/registry", as kube-apiserver.
	EtcdPrefix string
	// LogOutput receives embedded etcd's log (JSON lines, warnings and above). Nil discards it.
	// klog, which the apiserver library logs through, is process-wide: its caller configures
	// it (kubewalk's runtime/logs sends it to the same file).
	LogOutput io.Writer
	// Hook is called at every checkpoint. Nil never pauses.
	Hook Hook
	// Track, when set, is told every path the run creates and would remove on Close: its work
	// dir (dir true: remove with its contents), the kubeconfig, its lock file, and a directory
	// made for them (dir false: remove the file, or the directory only if it is empty). A
	// supervising process uses it to clean up after a process that died before Close. Track is
	// called on the phase goroutine before the path exists; it must not block.
	Track func(path string, dir bool)
	// KubeconfigWait, when set, is told once when NewContext waits for another kubewalk run
	// (pid) that is shutting down to let go of the --kubeconfig path, so the user hears why
	// the start pauses. It is called on New's goroutine and must not block.
	KubeconfigWait func(path string, pid int)
	// RequestTimeout (--request-timeout) bounds how long the server lets a non-long-running
	// request run before it answers 504 (genericapiserver's Config.RequestTimeout). Zero means
	// DefaultRequestTimeout. A request held at a breakpoint counts against it.
	RequestTimeout time.Duration
	// Recorder receives what the server records about every request it handles (see package
	// observe). Nil records nothing and costs (nearly) nothing: no audit, no tracing, no
	// decorators.
	Recorder observe.Recorder
	// Gate is asked at the breakpoint stages of every request (authentication, authorization,
	// admission, storage) and may hold it. Nil never holds. If it has a ReleaseAll method,
	// Close calls it first, so that no held request keeps the server from stopping.
	Gate observe.Gate
}

// validateEtcdPorts checks --etcd-client-port and --etcd-peer-port: in range, for the embedded
// etcd only, and not a port another listener of this run asks for.
func (o *Options) validateEtcdPorts() []error {
	var errs []error
	for _, p := range []struct {
		flag string
		port int
	}{{"--etcd-client-port", o.EtcdClientPort}, {"--etcd-peer-port", o.EtcdPeerPort}} {
		switch {
		case p.port < 0 || p.port > 65535:
			errs = append(errs, fmt.Errorf("%s %d: must be between 0 and 65535", p.flag, p.port))
		case p.port != 0 && len(o.EtcdServers) > 0:
			errs = append(errs, fmt.Errorf("%s %d and --etcd-servers: the port is the embedded etcd's; choose one", p.flag, p.port))
		case p.port != 0 && p.port == o.SecurePort:
			errs = append(errs, fmt.Errorf("%s %d: --secure-port is %d too; each listener needs a port of its own", p.flag, p.port, o.SecurePort))
		}
	}
	if o.EtcdClientPort != 0 && o.EtcdClientPort == o.EtcdPeerPort {
		errs = append(errs, fmt.Errorf("--etcd-client-port and --etcd-peer-port are both %d; each listener needs a port of its own", o.EtcdClientPort))
	}
	return errs
}

// DefaultRequestTimeout is kube-apiserver's --request-timeout default.
const DefaultRequestTimeout = time.Minute

// Validate reports every problem with the options at once; each error names its flag.
func (o *Options) Validate() error {
	var errs []error
	if o.BindAddress != "" {
		if ip := net.ParseIP(o.BindAddress); ip == nil {
			errs = append(errs, fmt.Errorf("--bind-address %q: not an IP address", o.BindAddress))
		}
	}
	if o.RequestTimeout < 0 {
		errs = append(errs, fmt.Errorf("--request-timeout %s: must not be negative", o.RequestTimeout))
	}
	if o.SecurePort < 0 || o.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port %d: must be between 0 and 65535", o.SecurePort))
	}
	errs = append(errs, o.validateEtcdPorts()...)
	for _, s := range o.EtcdServers {
		if err := validateEtcdURL(s); err != nil {
			errs = append(errs, fmt.Errorf("--etcd-servers %q: %w", s, err))
		}
	}
	if o.DataDir != "" && len(o.EtcdServers) > 0 {
		errs = append(errs, errors.New("--data-dir and --etcd-servers: choose one; --data-dir is for the embedded etcd"))
	}
	if o.DataDir != "" {
		if err := checkWritableDir(o.DataDir); err != nil {
			errs = append(errs, fmt.Errorf("--data-dir %s: %w", o.DataDir, err))
		}
	}
	// The default kubeconfig path is not checked: if it cannot be used, the run falls back to
	// its work dir (see claimKubeconfig).
	if o.Kubeconfig != "" && o.Kubeconfig != DefaultKubeconfigPath() {
		if err := checkWritableDir(filepath.Dir(o.Kubeconfig)); err != nil {
			errs = append(errs, fmt.Errorf("--kubeconfig %s: directory %s: %w", o.Kubeconfig, filepath.Dir(o.Kubeconfig), err))
		} else if _, err := checkOverwrite(o.Kubeconfig); err != nil {
			errs = append(errs, foreignKubeconfigError(o.Kubeconfig, err))
		}
	}
	return errors.Join(errs...)
}

// checkWritableDir checks that dir exists, or can be created, and that a file can be written
// in it. It leaves nothing behind: the probe file and any directory it created are removed.
func checkWritableDir(dir string) error {
	dir = filepath.Clean(dir)
	// Find the directories MkdirAll will create, to remove them again.
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		created = append(created, d)
	}
	defer func() {
		for _, d := range created {
			os.Remove(d)
		}
	}()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create it: %w", err)
	}
	f, err := os.CreateTemp(dir, ".kubewalk-write-check-")
	if err != nil {
		return fmt.Errorf("not writable: %w", err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Complete fills defaults. It is safe to call more than once.
func (o *Options) Complete() {
	if o.BindAddress == "" {
		o.BindAddress = "127.0.0.1"
	}
	if o.EtcdPrefix == "" {
		o.EtcdPrefix = "/registry"
	}
	if o.LogOutput == nil {
		o.LogOutput = io.Discard
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
}

// PhaseTiming records how long a finished phase took, hook pauses excluded.
type PhaseTiming struct {
	Phase    Phase
	Duration time.Duration
}

// Server is one run of the startup chain. Create it with New, run the phases in order (or call
// Start), and always Close it.
type Server struct {
	opts Options

	mu        sync.Mutex
	next      int // index into Phases() of the next phase to run
	current   Checkpoint
	reached   []Checkpoint
	timings   []PhaseTiming
	phaseWork time.Duration // time spent in the running phase outside the hook
	closed    bool
	running   Phase // the phase whose body runs (or is paused in the hook); "" between phases

	// What a client finds (ServeStatus): the serve phase sets them, any goroutine reads them.
	listening         bool            // the port is open
	kubeconfigWritten bool            // the kubeconfig is written
	runExited         <-chan struct{} // closed when RunWithContext has returned

	workDir    string // per-run directory: the kubeconfig and etcd data unless flags say otherwise
	ownWorkDir bool

	runID          string   // marks the kubeconfig this run writes (see kubeconfig.go)
	kubeconfigLock *os.File // held while the server lives, for a --kubeconfig outside the work dir
	kubeconfigDir  string   // the kubeconfig's directory when this run created it: removed on Close if empty
	kubeconfigNote string   // why the kubeconfig is in the work dir after all, or ""

	c  *configState
	an *authnState
	az *authzState
	ad *admissionState
	st *storageState
	in *installState
	sv *serveState
	ag *aggregatedState // the extension server and its APIService (aggregated.go)

	// base is cancelled by Close; every phase's context derives from it, so Close can stop a
	// phase that is running (or paused in the hook) in another goroutine.
	base       context.Context
	cancelBase context.CancelFunc
	// phaseMu is held while a phase's own code runs, and let go while the hook runs. Close
	// takes it to wait for a running phase; State and LiveObjects take it so that they read
	// the phases' objects only while the phase goroutine is paused or done.
	phaseMu sync.Mutex

	closeOnce    sync.Once
	closeErr     error
	stoppingOnce sync.Once
}

// track tells Options.Track about a path the run owns.
func (s *Server) track(path string, dir bool) {
	if s.opts.Track != nil {
		s.opts.Track(path, dir)
	}
}

// New validates and completes opts and returns a server that has run no phase yet.
func New(opts Options) (*Server, error) {
	return NewContext(context.Background(), opts)
}

// NewContext is New; ctx bounds the wait for a --kubeconfig that a stopping run still holds.
func NewContext(ctx context.Context, opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.Complete()
	base, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, base: base, cancelBase: cancel, runID: randomToken()[:16]}
	if err := s.claimKubeconfig(ctx); err != nil {
		cancel()
		return nil, err
	}
	return s, nil
}

// Options returns the completed options.
func (s *Server) Options() Options { return s.opts }

// NextPhase returns the phase that runs next, or "" once serve has run.
func (s *Server) NextPhase() Phase {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(Phases()) {
		return ""
	}
	return Phases()[s.next]
}

// Current returns the last checkpoint reached.
func (s *Server) Current() Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Reached returns every checkpoint reached so far, in order.
func (s *Server) Reached() []Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Checkpoint(nil), s.reached...)
}

// Timings returns the duration of each finished phase, hook pauses excluded.
func (s *Server) Timings() []PhaseTiming {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]PhaseTiming(nil), s.timings...)
}

// RunPhase runs phase p, which must be the next one.
func (s *Server) RunPhase(ctx context.Context, p Phase) error {
	switch p {
	case PhaseConfig:
		return s.Config(ctx)
	case PhaseAuthn:
		return s.Authn(ctx)
	case PhaseAuthz:
		return s.Authz(ctx)
	case PhaseAdmission:
		return s.Admission(ctx)
	case PhaseStorage:
		return s.Storage(ctx)
	case PhaseInstall:
		return s.Install(ctx)
	case PhaseServe:
		return s.Serve(ctx)
	}
	return fmt.Errorf("server: unknown phase %q", p)
}

// Start runs every phase that has not run yet, through serve.
func (s *Server) Start(ctx context.Context) error {
	for p := s.NextPhase(); p != ""; p = s.NextPhase() {
		if err := s.RunPhase(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// ErrClosed is returned (wrapped with the phase) by a phase that Close stopped, or that was
// asked to run after Close.
var ErrClosed = errors.New("server is closed")

// inPhase is the body of every exported phase method: it enforces the phase order, holds
// phaseMu while body runs (not while the hook runs: see phaseRun.reach), times the phase,
// and wraps body's error with the phase name — and with ErrClosed when Close stopped it.
func (s *Server) inPhase(ctx context.Context, p Phase, body func(ctx context.Context, run *phaseRun) error) error {
	s.phaseMu.Lock()
	defer s.phaseMu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(s.base, func() { cancel(ErrClosed) })()
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return fmt.Errorf("phase %s: %w", p, ErrClosed)
	case s.running != "":
		running := s.running
		s.mu.Unlock()
		return fmt.Errorf("phase %s: phase %s is running", p, running)
	case s.next >= len(Phases()) || Phases()[s.next] != p:
		want := Phase("none (serve has run)")
		if s.next < len(Phases()) {
			want = Phases()[s.next]
		}
		s.mu.Unlock()
		return fmt.Errorf("phase %s: out of order, the next phase is %s", p, want)
	}
	s.running = p
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running = ""
		s.mu.Unlock()
	}()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("phase %s: %w", p, context.Cause(ctx))
	}
	run := &phaseRun{s: s, phase: p, start: time.Now()}
	if err := body(ctx, run); err != nil {
		if s.isClosed() && !errors.Is(err, ErrClosed) {
			err = fmt.Errorf("%w: %w", ErrClosed, err)
		}
		return fmt.Errorf("phase %s: %w", p, err)
	}
	s.mu.Lock()
	s.next++
	s.timings = append(s.timings, PhaseTiming{Phase: p, Duration: run.work()})
	s.mu.Unlock()
	return nil
}

// isClosed reports whether Close has begun. Close cancels the base context first thing, before
// it waits for phaseMu and sets closed: a phase that wakes from the cancellation must already
// see the server as closed.
func (s *Server) isClosed() bool {
	if s.base.Err() != nil {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// phaseRun is one run of a phase: it knows where the phase is, calls the hook at each
// checkpoint, and measures the phase's own work, leaving out the time the hook held it.
type phaseRun struct {
	s      *Server
	phase  Phase
	start  time.Time
	paused time.Duration
}

func (run *phaseRun) work() time.Duration { return time.Since(run.start) - run.paused }

// reach records checkpoint name of the phase and calls the hook. The phase goroutine lets go of
// phaseMu for the length of the call: the hook may call Close (which takes phaseMu) itself,
// and while the phase goroutine waits in the hook it touches nothing Close tears down. Once
// the hook returns, a closed server ends the phase with ErrClosed.
func (run *phaseRun) reach(ctx context.Context, name string) error {
	cp := checkpoint(run.phase, name)
	s := run.s
	s.mu.Lock()
	s.current = cp
	s.reached = append(s.reached, cp)
	s.phaseWork = run.work()
	s.mu.Unlock()
	if s.opts.Hook == nil {
		return context.Cause(ctx)
	}
	began := time.Now()
	var err error
	func() {
		s.phaseMu.Unlock()
		defer s.phaseMu.Lock() // also when the hook panics: inPhase unlocks it on the way out
		err = s.opts.Hook.Checkpoint(ctx, cp, s)
	}()
	run.paused += time.Since(began)
	if s.isClosed() {
		return fmt.Errorf("checkpoint %s: %w", cp.Name, ErrClosed)
	}
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.Name, err)
	}
	return context.Cause(ctx)
}

// Stopping says, in the lock file of the --kubeconfig this run holds, that the run is shutting
// down: a run started meanwhile with the same --kubeconfig waits for this one to let go instead
// of refusing. Close calls it first; a caller that has decided to stop may call it earlier. It
// is safe from any goroutine and more than once.
func (s *Server) Stopping() {
	s.stoppingOnce.Do(func() {
		if s.kubeconfigLock != nil {
			markStopping(s.kubeconfigLock)
		}
	})
}

// Close shuts down whatever the phases have started, in reverse order: the HTTP server and its
// watches, the REST stores and their watch caches, informers, admission, embedded etcd, then
// the kubeconfig it wrote (and its lock) and the work directory. A phase running in another
// goroutine is cancelled first and waited for; a phase paused in the hook is not waited for
// (its goroutine touches nothing until the hook returns, and then ends with ErrClosed). Close
// is safe from any goroutine, at any point, more than once and concurrently: from inside the
// hook, from another goroutine while the hook pauses the server, between phases, after serve.
// Every call returns the result of the one shutdown.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.Stopping()
		if r, ok := s.opts.Gate.(interface{ ReleaseAll() }); ok {
			r.ReleaseAll()
		}
		s.cancelBase()
		s.phaseMu.Lock()
		defer s.phaseMu.Unlock()
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		var errs []error
		if s.ag != nil {
			errs = append(errs, s.ag.stop())
		}
		if s.sv != nil {
			errs = append(errs, s.sv.stop())
		}
		if s.c != nil {
			s.c.held.close() // the port, if the serve phase never listened on it
		}
		if s.in != nil {
			s.in.waitHooks()
			if s.sv == nil || s.sv.cancel == nil {
				// The chain was built and never ran: nothing has released its stores and
				// controllers, which Run does when it ends (chain_stop.go).
				s.in.stopUnserved()
			}
		}
		if s.st != nil {
			// Idempotent: after serve, RunWithContext has destroyed the installed stores already.
			s.st.destroyStores()
		}
		if s.az != nil {
			s.az.stop()
		}
		if s.ad != nil {
			s.ad.stop()
		}
		if s.st != nil {
			errs = append(errs, s.st.closeEtcd())
		}
		errs = append(errs, s.releaseKubeconfig())
		if s.ownWorkDir && s.workDir != "" {
			if err := os.RemoveAll(s.workDir); err != nil {
				errs = append(errs, fmt.Errorf("remove work dir: %w", err))
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// WorkDir returns the per-run directory holding, by default, the kubeconfig and the embedded
// etcd's data (certificates and keys stay in memory). It is empty before the config phase.
func (s *Server) WorkDir() string { return s.workDir }

// validateEtcdURL accepts http(s) URLs with a host, as the etcd client does.
func validateEtcdURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	}
	if u.Host == "" {
		return errors.New("no host")
	}
	return nil
}
