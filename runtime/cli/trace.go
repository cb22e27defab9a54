package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/kubewalk/kubewalk/runtime/tracing"
	"github.com/kubewalk/kubewalk/server"
)

// tourRequestTimeout is the tour's --request-timeout default: longer than a breakpoint's hold
// limit (tracing.HoldLimit, 10m), so the server does not answer 504 to a request the learner
// is still looking at. serve keeps kube-apiserver's 1m.
const tourRequestTimeout = 11 * time.Minute

// traceOptions are the request-tracing flags: --request-timeout on serve and tour,
// --trace-log on serve, --break on tour.
type traceOptions struct {
	RequestTimeout time.Duration
	TraceLog       string
	TraceLoopback  bool
	Breaks         []string
}

// addServeTraceFlags registers serve's flags.
func (o *traceOptions) addServeTraceFlags(fs *pflag.FlagSet) {
	o.addRequestTimeout(fs, server.DefaultRequestTimeout)
	fs.StringVar(&o.TraceLog, "trace-log", "", "write one JSON line per finished request (its lane through the chain) to this file, or - for stdout; see docs/trace-log.md")
	fs.BoolVar(&o.TraceLoopback, "trace-log-loopback", false, "with --trace-log, also write the server's own loopback requests (informers, post-start hooks)")
}

// addTourTraceFlags registers the tour's flags.
func (o *traceOptions) addTourTraceFlags(fs *pflag.FlagSet) {
	o.addRequestTimeout(fs, tourRequestTimeout)
	fs.StringArrayVar(&o.Breaks, "break", nil, "hold matching requests after serve: STAGE[:user=NAME][,verb=V][,resource=R], STAGE one of authentication, authorization, admission, storage (repeatable)")
}

func (o *traceOptions) addRequestTimeout(fs *pflag.FlagSet, def time.Duration) {
	fs.DurationVar(&o.RequestTimeout, "request-timeout", def, "how long the server lets a request run before answering 504 (kube-apiserver's flag; a request held at a breakpoint counts)")
}

// validate checks the flags; each error names its flag.
func (o *traceOptions) validate() error {
	if o.RequestTimeout <= 0 {
		return fmt.Errorf("--request-timeout %s: must be positive", o.RequestTimeout)
	}
	for _, b := range o.Breaks {
		if _, err := tracing.ParseSpec(b); err != nil {
			return fmt.Errorf("--break: %w", err)
		}
	}
	if o.TraceLoopback && o.TraceLog == "" {
		return fmt.Errorf("--trace-log-loopback: needs --trace-log")
	}
	return nil
}

// traceLog writes serve's --trace-log until stopped. A nil *traceLog (no --trace-log) does
// nothing.
type traceLog struct {
	store    *tracing.Store
	out      io.Writer
	file     *os.File // nil for stdout
	loopback bool
	cancel   context.CancelFunc
	done     chan error

	stopOnce sync.Once
	stopErr  error
}

// openTraceLog checks the trace flags and opens --trace-log's file (created 0600, appended
// to). It returns the writer for serve's own messages: stderr when the JSON lines go to
// stdout (--trace-log -), so that stdout carries them alone. Without --trace-log the
// *traceLog is nil.
func (o *traceOptions) openTraceLog(stdout, stderr io.Writer) (*traceLog, io.Writer, error) {
	if err := o.validate(); err != nil {
		return nil, stdout, err
	}
	if o.TraceLog == "" {
		return nil, stdout, nil
	}
	l := &traceLog{store: tracing.NewStore(0), loopback: o.TraceLoopback}
	if o.TraceLog == "-" {
		l.out = stdout
		return l, stderr, nil
	}
	f, err := os.OpenFile(o.TraceLog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, stdout, fmt.Errorf("--trace-log %s: %w", o.TraceLog, err)
	}
	l.out, l.file = f, f
	return l, stdout, nil
}

// apply makes the server record into the log's store.
func (l *traceLog) apply(opts server.Options) server.Options {
	if l != nil {
		opts.Recorder = l.store
	}
	return opts
}

// start writes finished requests' lines in the background.
func (l *traceLog) start() {
	if l == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel, l.done = cancel, make(chan error, 1)
	go func() { l.done <- tracing.WriteLog(ctx, l.store, l.out, l.loopback) }()
}

// stop writes what has finished since and closes the file. Call it once the server has
// stopped; calling it again returns the first call's result.
func (l *traceLog) stop() error {
	if l == nil {
		return nil
	}
	l.stopOnce.Do(func() {
		if l.cancel != nil {
			l.cancel()
			l.stopErr = <-l.done
		}
		if l.file != nil {
			if err := l.file.Close(); l.stopErr == nil && err != nil {
				l.stopErr = fmt.Errorf("--trace-log: %w", err)
			}
		}
	})
	return l.stopErr
}

// tourTracing is what the tour records requests into and holds them with: the Requests view
// and plain mode read the store; --break and :break set breakpoints.
type tourTracing struct {
	Store       *tracing.Store
	Breakpoints *tracing.Breakpoints
}

// newTourTracing checks the trace flags and makes the store and the breakpoints, with
// --break's.
func (o *traceOptions) newTourTracing() (*tourTracing, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	t := &tourTracing{Store: tracing.NewStore(0)}
	t.Breakpoints = tracing.NewBreakpoints(t.Store)
	for _, b := range o.Breaks {
		if _, err := t.Breakpoints.Add(b); err != nil {
			return nil, fmt.Errorf("--break: %w", err)
		}
	}
	return t, nil
}

// apply makes the server record into the store and ask the breakpoints.
func (t *tourTracing) apply(opts server.Options) server.Options {
	opts.Recorder = t.Store
	opts.Gate = t.Breakpoints
	return opts
}
