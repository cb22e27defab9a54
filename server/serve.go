package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
)

var serveCheckpoints = []Checkpoint{
	{PhaseServe, "prepare-run", "PrepareRun() on the aggregator and, through it, on each delegate: /healthz, /livez and /readyz installed"},
	{PhaseServe, "serving", "Listening: the aggregator's Run serves TLS and runs the post-start hooks of the whole chain"},
	{PhaseServe, "ready", "/readyz answers ok: every check and post-start hook has passed"},
	{PhaseServe, "kubeconfig", "Kubeconfig written (mode 0600): contexts admin, alice, bob, anonymous and badtoken"},
}

// readyTimeout bounds how long the serve phase waits for /readyz.
const readyTimeout = time.Minute

// Serve runs the serve phase: PrepareRun, open the listener, RunWithContext in the background,
// wait for /readyz, write the kubeconfig. It returns once the server is ready; the server runs
// until Close.
func (s *Server) Serve(ctx context.Context) error {
	return s.inPhase(ctx, PhaseServe, func(ctx context.Context, run *phaseRun) error {
		sv := &serveState{}
		s.sv = sv
		if err := installLazyOpenAPI(s.in.generic, s.in.completed.OpenAPIConfig, s.in.completed.OpenAPIV3Config); err != nil {
			return err
		}
		// As kube-apiserver's Run: PrepareRun on the front of the chain, which prepares each
		// delegate first (GenericAPIServer.PrepareRun calls its delegate's).
		prepared, err := onFreshStack(s.in.aggregator.PrepareRun)
		if err != nil {
			return fmt.Errorf("aggregator PrepareRun: %w", err)
		}
		sv.prepared = prepared
		s.in.releaseOpenAPIDefinitions()
		sv.hookSettled = s.in.settleBeforeStop
		if err := run.reach(ctx, "prepare-run"); err != nil {
			return err
		}

		l, err := s.c.held.listen()
		if err != nil {
			return fmt.Errorf("--secure-port %d: listen on %s: %w", s.c.port, s.c.address(), err)
		}
		sv.listener = &trackingListener{Listener: l, conns: map[net.Conn]struct{}{}}
		s.mu.Lock()
		s.listening = true
		s.mu.Unlock()
		s.c.generic.SecureServing.Listener = sv.listener
		runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		sv.cancel = cancel
		sv.exited = make(chan struct{})
		s.mu.Lock()
		s.runExited = sv.exited
		s.mu.Unlock()
		go func() {
			sv.runErr = sv.prepared.Run(runCtx)
			close(sv.exited)
		}()
		if err := run.reach(ctx, "serving"); err != nil {
			return err
		}

		if err := s.waitReady(ctx); err != nil {
			return err
		}
		sv.readyAt = time.Now()
		// The aggregated API starts after ready, in the background: /readyz does not wait for
		// it, and Close cancels it (aggregated.go).
		s.startAggregated(s.base)
		if err := run.reach(ctx, "ready"); err != nil {
			return err
		}

		sv.kubeconfig = s.kubeconfigPath()
		s.track(sv.kubeconfig, false)
		if err := s.writeKubeconfig(sv.kubeconfig); err != nil {
			return fmt.Errorf("--kubeconfig %s: %w", sv.kubeconfig, err)
		}
		s.mu.Lock()
		s.kubeconfigWritten = true
		s.mu.Unlock()
		return run.reach(ctx, "kubeconfig")
	})
}

// onFreshStack calls f on a goroutine of its own and waits for its result.
//
// The servers' New and PrepareRun register paths on each server's mux: the default routes,
// and /healthz, /livez and /readyz with one path per check, ~200 paths over the three servers
// of the chain. The library's mux records a stack trace for every path it registers
// (PathRecorderMux.trackCallers calls runtime/debug.Stack, k8s.io/apiserver v0.37.2
// pkg/server/mux/pathrecorder.go:107), to name both callers should a path be registered twice.
// debug.Stack formats the whole calling goroutine's stack, and when the text does not fit its
// buffer formats it again into one twice the size, until it fits; under the phase goroutine's
// frames (a walkthrough's, the CLI's or a test's) each trace is several times longer than on a
// fresh goroutine, where it starts at f. Nothing else changes: f runs while the phase
// goroutine waits, and each trace still names every frame from f inwards.
func onFreshStack[T any](f func() (T, error)) (T, error) {
	var (
		v    T
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		v, err = f()
	}()
	<-done
	return v, err
}

// waitReady polls /readyz through the loopback client until it answers 200. It gives up early,
// with RunWithContext's error, if the server exits, and after readyTimeout with the last answer.
func (s *Server) waitReady(ctx context.Context) error {
	client, err := rest.HTTPClientFor(s.c.loopback)
	if err != nil {
		return fmt.Errorf("readyz client: %w", err)
	}
	defer client.CloseIdleConnections()
	url := s.c.loopback.Host + "/readyz"
	var last string
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, readyTimeout, true, func(ctx context.Context) (bool, error) {
		select {
		case <-s.sv.exited:
			err := s.sv.runErr
			if err == nil {
				err = errors.New("server stopped")
			}
			return false, fmt.Errorf("server exited before /readyz: %w", err)
		default:
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return false, err
		}
		req.Header.Set("Authorization", "Bearer "+s.c.loopback.BearerToken)
		resp, err := client.Do(req)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return true, nil
		}
		last = resp.Status
		return false, nil
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case wait.Interrupted(err):
		return fmt.Errorf("/readyz not ok after %s (last: %s)", readyTimeout, last)
	}
	return err
}

// ServeStatus is what a client of the server finds now.
type ServeStatus int

const (
	// NotListening: nobody listens on the server's port yet (a client gets connection refused).
	NotListening ServeStatus = iota
	// Listening: the server accepts connections and answers, but the serve phase has not
	// written the kubeconfig yet (it does at serve/kubeconfig).
	Listening
	// Serving: the server answers and its kubeconfig is written (from serve/kubeconfig on,
	// whether or not a walkthrough has let the serve phase return).
	Serving
	// Stopped: the server has stopped (Close, or RunWithContext returned).
	Stopped
)

// ServeStatus reports what a client of the server finds now, from the server's own state. It
// is safe to call from any goroutine at any time, while a phase runs too.
func (s *Server) ServeStatus() ServeStatus {
	s.mu.Lock()
	listening, written, exited, closed := s.listening, s.kubeconfigWritten, s.runExited, s.closed
	s.mu.Unlock()
	if exited != nil {
		select {
		case <-exited:
			return Stopped
		default:
		}
	}
	switch {
	case closed && listening:
		return Stopped
	case written:
		return Serving
	case listening:
		return Listening
	}
	return NotListening
}

// Kubeconfig returns the path of the kubeconfig written by the serve phase, "" before that.
func (s *Server) Kubeconfig() string {
	if s.sv == nil {
		return ""
	}
	return s.sv.kubeconfig
}

// Exited is closed when the running server has stopped, on its own or through Close; it is
// nil before the serve phase starts the server. ExitErr then tells why.
func (s *Server) Exited() <-chan struct{} {
	if s.sv == nil {
		return nil
	}
	return s.sv.exited
}

// ExitErr returns RunWithContext's error once Exited is closed.
func (s *Server) ExitErr() error {
	if s.sv == nil || s.sv.exited == nil {
		return nil
	}
	select {
	case <-s.sv.exited:
		return s.sv.runErr
	default:
		return nil
	}
}

// stop cancels RunWithContext and waits for it to drain and destroy the stores.
func (sv *serveState) stop() error {
	if sv.cancel == nil {
		if sv.listener != nil {
			return sv.listener.Close()
		}
		return nil
	}
	sv.waitHooksSettled()
	sv.cancel()
	select {
	case <-sv.exited:
		sv.listener.closeConns()
		if err := sv.runErr; err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	case <-time.After(shutdownTimeout + 10*time.Second):
		return errors.New("serve: server did not stop in time")
	}
}

// hookSettleTimeout bounds how long stop waits for the library post-start hooks it must not
// interrupt before it stops the server anyway.
const hookSettleTimeout = 10 * time.Second

// waitHooksSettled waits, up to hookSettleTimeout, until two library post-start hooks have
// returned, because each goes wrong when the server stops first:
//
//   - the apiextensions server's crd-informer-synced returns its context's error when the
//     server stops before the CRD informer has synced, and genericapiserver ends the whole
//     process on a hook error (klog.Fatalf in runPostStartHook), so a Close right after
//     serve/serving would kill kubewalk;
//   - the aggregator's apiservice-discovery-controller runs the discovery manager, and so
//     ever shuts its work queue down, only once the APIService registration controller has
//     synced; stopped before that, it returns without, and the queue's goroutines, made in
//     NewWithDelegate, stay.
//
// Both informers sync with one LIST each through the loopback client, within milliseconds of
// the hooks starting; only a server that cannot reach its own storage waits the full bound.
func (sv *serveState) waitHooksSettled() {
	deadline := time.Now().Add(hookSettleTimeout)
	for _, c := range sv.hookSettled {
		for c.Check(nil) != nil && time.Now().Before(deadline) {
			select {
			case <-sv.exited:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// trackingListener remembers the connections it accepted until they close, so that stop can
// close those the graceful shutdown left open. http.Server.Shutdown gives up after
// shutdownTimeout without closing a connection that was busy then: an HTTP/2 connection whose
// last request ends later stays open on both ends, with its goroutines, for good.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// Accept implements net.Listener.
func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.conns[c] = struct{}{}
	return &trackedConn{Conn: c, l: l}, nil
}

// closeConns closes every accepted connection still open.
func (l *trackingListener) closeConns() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.Close()
		delete(l.conns, c)
	}
}

// trackedConn forgets itself in its listener when it closes.
type trackedConn struct {
	net.Conn
	l *trackingListener
}

// Close implements net.Conn.
func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c.Conn)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// RESTConfig returns a client configuration for one kubeconfig context ("admin", "alice",
// "bob", "anonymous", "badtoken") once the authn phase has run; "" sends no credentials at
// all.
func (s *Server) RESTConfig(contextName string) (*rest.Config, error) {
	if s.c == nil || s.an == nil {
		return nil, errors.New("RESTConfig: the config and authn phases have not run")
	}
	cfg := &rest.Config{
		Host:            s.c.loopback.Host,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.c.ca.CertPEM},
		QPS:             1000,
		Burst:           1000,
	}
	switch contextName {
	case "":
		return cfg, nil
	case ContextAnonymous:
		cfg.Username = anonymousUsername // as the kubeconfig has it
		return cfg, nil
	case ContextBadToken:
		cfg.BearerToken = s.an.badToken
		return cfg, nil
	}
	id, err := s.an.identity(contextName)
	if err != nil {
		return nil, fmt.Errorf("RESTConfig: %w", err)
	}
	cfg.BearerToken = id.Token
	cfg.CertData, cfg.KeyData = id.ClientCertPEM, id.ClientKeyPEM
	return cfg, nil
}

// Address returns the https URL the server serves (or will serve) on; "" until the config
// phase has chosen the port.
func (s *Server) Address() string {
	if s.c == nil || s.c.port == 0 {
		return ""
	}
	return "https://" + s.c.address()
}
