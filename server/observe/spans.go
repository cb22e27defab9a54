package observe

import (
	"context"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/component-base/tracing"
)

// NewTracerProvider returns the TracerProvider for genericapiserver.Config.TracerProvider. It
// implements the OpenTelemetry trace API and hands the spans a lane needs to rec (see Span);
// every other span is a no-op.
//
// genericapiserver uses Config.TracerProvider as it is: DefaultBuildHandlerChain passes it to
// filterlatency.TrackStarted (the filter spans) and WithTracing (the HTTP server span), and the
// etcd3 store and watch cache start their spans from the request context's span
// (component-base tracing.Start). No feature gate is involved at k8s.io/apiserver v0.37.2 (it
// has no APIServerTracing gate any more); kube-apiserver's --tracing-config-file only decides
// which provider it builds.
//
// It is not the OpenTelemetry SDK's TracerProvider: measured through client-go, the SDK cost a
// GET about 9 % at p50 whatever it sampled, because it allocates every span and applies its
// start options (the handlers' own spans included) before sampling; this provider looks at a
// span's name first and does nothing for the spans a lane does not read.
func NewTracerProvider(rec Recorder) tracing.TracerProvider {
	p := &tracerProvider{record: recorderFunc(rec)}
	p.tracer = &tracer{p: p}
	p.pass = &passSpan{p: p}
	return p
}

// tracerProvider implements trace.TracerProvider and component-base's Shutdown.
type tracerProvider struct {
	embedded.TracerProvider
	record recordFunc
	tracer *tracer
	pass   *passSpan
}

// Tracer returns the one tracer: the lane spans are told apart by name, not by tracer.
func (p *tracerProvider) Tracer(string, ...trace.TracerOption) trace.Tracer { return p.tracer }

// Shutdown does nothing: nothing is buffered.
func (p *tracerProvider) Shutdown(context.Context) error { return nil }

// filterSpans are the spans filterlatency.TrackStarted starts in front of a filter that a
// lane reads: when impersonation, flow control and authorization began. They carry no
// attributes and end with the request, so they are recorded when they start, with the audit
// ID of the request context they start in. ("authentication" and "audit" start before any
// of ours and tell a lane nothing: they are not recorded.)
var filterSpans = map[string]bool{
	"impersonation":            true,
	"constrainedimpersonation": true,
	"priorityandfairness":      true,
	"authorization":            true,
}

// isStorageSpan tells the etcd3 store's spans ("Get etcd3", "List(recursive=true) etcd3",
// "Create etcd3", "GuaranteedUpdate etcd3", ...) and the watch cache's ("cacher.Get",
// "cacher.GetList", "cacher.Watch") from the rest.
func isStorageSpan(name string) bool {
	return strings.HasSuffix(name, " etcd3") || strings.HasPrefix(name, "cacher.")
}

// isServerSpan tells WithTracing's HTTP server span by the name its span name formatter gives
// it: the method, alone or followed by the route ("GET /api/v1/namespaces/{:namespace}/pods").
// The handlers' spans are named like "Get" or "SerializeObject".
func isServerSpan(name string) bool {
	method, _, _ := strings.Cut(name, " ")
	switch method {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE":
		return true
	}
	return false
}

// isClientSpan tells the span otelhttp's Transport starts for an outgoing request
// ("HTTP GET": its default name formatter), which kube-aggregator's proxy handler wraps its
// round tripper in (tracing.WrapperFor): the proxy hop to an extension server.
func isClientSpan(name string) bool {
	method, ok := strings.CutPrefix(name, "HTTP ")
	return ok && isServerSpan(method)
}

type tracer struct {
	embedded.Tracer
	p *tracerProvider
}

// Start records a filter span's start, starts a recording span for the server and storage
// spans, and returns a no-op span for any other (one that still leads nested spans here).
func (t *tracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	switch {
	case filterSpans[name]:
		if id := audit.GetAuditIDTruncated(ctx); id != "" {
			t.p.record(&Span{ID: id, Name: name, Start: time.Now()})
		}
	case isStorageSpan(name) || isServerSpan(name) || isClientSpan(name):
		cfg := trace.NewSpanStartConfig(opts...)
		kind := cfg.SpanKind()
		if isClientSpan(name) && kind != trace.SpanKindClient {
			break
		}
		s := &laneSpan{p: t.p, name: name, server: kind == trace.SpanKindServer, client: kind == trace.SpanKindClient, start: cfg.Timestamp()}
		if s.start.IsZero() {
			s.start = time.Now()
		}
		s.SetAttributes(cfg.Attributes()...)
		if s.id == "" {
			s.id = audit.GetAuditIDTruncated(ctx)
		}
		return trace.ContextWithSpan(ctx, s), s
	}
	// Keep this provider in the context, so that nested spans (the etcd3 store's under the
	// handlers') come here too.
	switch trace.SpanFromContext(ctx).(type) {
	case *passSpan, *laneSpan:
		return ctx, t.p.pass
	}
	return trace.ContextWithSpan(ctx, t.p.pass), t.p.pass
}

// passSpan is the no-op span of the spans a lane does not read.
type passSpan struct {
	noop.Span
	p *tracerProvider
}

// TracerProvider returns the provider, so nested spans start here.
func (s *passSpan) TracerProvider() trace.TracerProvider { return s.p }

// keptAttributes are the span attributes a lane shows. Others are left out, among them
// http.target and url.*, which hold the request URI (and so any access_token query parameter).
var keptAttributes = map[attribute.Key]bool{
	"key":                       true,
	"group":                     true,
	"resource":                  true,
	"type":                      true,
	"resourceVersion":           true,
	"resource-version":          true,
	"limit":                     true,
	"http.response.status_code": true,
	"http.response.body.size":   true,
	"server.address":            true, // a client span's: where the proxy sent the request
	"server.port":               true,
}

// laneSpan records a server or storage span: recorded when it ends. Only the goroutine that
// started it uses it, as the library does.
type laneSpan struct {
	noop.Span
	p      *tracerProvider
	id     string
	name   string
	server bool
	client bool
	start  time.Time
	attrs  map[string]string
	err    string
	ended  bool
}

// TracerProvider returns the provider, so nested spans start here.
func (s *laneSpan) TracerProvider() trace.TracerProvider { return s.p }

// IsRecording reports true: the span is recorded.
func (s *laneSpan) IsRecording() bool { return true }

// SetAttributes keeps the audit ID and the attributes a lane shows.
func (s *laneSpan) SetAttributes(kvs ...attribute.KeyValue) {
	for _, kv := range kvs {
		if kv.Key == "audit-id" {
			s.id = kv.Value.AsString()
			continue
		}
		if !keptAttributes[kv.Key] {
			continue
		}
		if s.attrs == nil {
			s.attrs = map[string]string{}
		}
		if kv.Value.Type() == attribute.INT64 {
			s.attrs[string(kv.Key)] = strconv.FormatInt(kv.Value.AsInt64(), 10)
		} else {
			s.attrs[string(kv.Key)] = kv.Value.Emit()
		}
	}
}

// AddEvent keeps the error of an event that reports a failure ("Get call failed").
func (s *laneSpan) AddEvent(name string, opts ...trace.EventOption) {
	if !strings.HasSuffix(name, "failed") {
		return
	}
	cfg := trace.NewEventConfig(opts...)
	for _, kv := range cfg.Attributes() {
		if kv.Key == "err" {
			s.err = name + ": " + kv.Value.AsString()
		}
	}
}

// SetStatus keeps an error status's description.
func (s *laneSpan) SetStatus(code codes.Code, description string) {
	if code == codes.Error && description != "" {
		s.err = description
	}
}

// End records the span, once.
func (s *laneSpan) End(opts ...trace.SpanEndOption) {
	if s.ended || s.id == "" {
		s.ended = true
		return
	}
	s.ended = true
	end := time.Now()
	if len(opts) > 0 {
		cfg := trace.NewSpanEndConfig(opts...)
		if ts := cfg.Timestamp(); !ts.IsZero() {
			end = ts
		}
	}
	s.p.record(&Span{ID: s.id, Name: s.name, Start: s.start, End: end, Server: s.server, Client: s.client, Attributes: s.attrs, Err: s.err})
}
