package observe

import (
	"context"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/component-base/tracing"
)

// NewTracerProvider returns an OpenTelemetry SDK TracerProvider for
// genericapiserver.Config.TracerProvider that samples every span and hands the ones a lane
// needs to rec (see Span). genericapiserver shuts it down when the server is destroyed.
//
// genericapiserver uses Config.TracerProvider as it is: DefaultBuildHandlerChain passes it to
// filterlatency.TrackStarted (the filter spans) and WithTracing (the server span), and the
// etcd3 store and watch cache start their spans from the request context's span
// (component-base tracing.Start). No feature gate is involved at k8s.io/apiserver v0.37.2;
// kube-apiserver's own --tracing-config-file only decides which provider it builds.
func NewTracerProvider(rec Recorder) tracing.TracerProvider {
	return sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(spanProcessor{record: recorderFunc(rec)}),
	)
}

// spanProcessor forwards spans to a Recorder, synchronously and without keeping them.
type spanProcessor struct {
	record recordFunc
}

var _ sdktrace.SpanProcessor = spanProcessor{}

// filterSpans are the spans filterlatency.TrackStarted starts in front of a filter. They carry
// no attributes and end with the request, so they are recorded when they start, with the audit
// ID of the request context they start in.
var filterSpans = map[string]bool{
	"authentication":           true,
	"audit":                    true,
	"impersonation":            true,
	"constrainedimpersonation": true,
	"priorityandfairness":      true,
	"authorization":            true,
}

// OnStart records a filter span's start.
func (p spanProcessor) OnStart(parent context.Context, s sdktrace.ReadWriteSpan) {
	name := s.Name()
	if !filterSpans[name] {
		return
	}
	id := audit.GetAuditIDTruncated(parent)
	if id == "" {
		return
	}
	p.record(&Span{ID: id, Name: name, Start: s.StartTime()})
}

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
}

// OnEnd records the server span and the storage spans (etcd3 store and watch cache) once they
// have ended; they carry the audit ID as an attribute.
func (p spanProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	name := s.Name()
	server := s.SpanKind() == trace.SpanKindServer
	if !server && !isStorageSpan(name) {
		return
	}
	r := &Span{Name: name, Start: s.StartTime(), End: s.EndTime(), Server: server}
	for _, kv := range s.Attributes() {
		if kv.Key == "audit-id" {
			r.ID = kv.Value.AsString()
			continue
		}
		if !keptAttributes[kv.Key] {
			continue
		}
		if r.Attributes == nil {
			r.Attributes = map[string]string{}
		}
		switch kv.Value.Type() {
		case attribute.INT64:
			r.Attributes[string(kv.Key)] = strconv.FormatInt(kv.Value.AsInt64(), 10)
		default:
			r.Attributes[string(kv.Key)] = kv.Value.Emit()
		}
	}
	if r.ID == "" {
		return
	}
	if st := s.Status(); st.Description != "" {
		r.Err = st.Description
	}
	for _, ev := range s.Events() {
		if !strings.HasSuffix(ev.Name, "failed") {
			continue
		}
		for _, kv := range ev.Attributes {
			if kv.Key == "err" {
				r.Err = ev.Name + ": " + kv.Value.AsString()
			}
		}
	}
	p.record(r)
}

// isStorageSpan tells the etcd3 store's spans ("Get etcd3", "List(recursive=true) etcd3",
// "Create etcd3", "GuaranteedUpdate etcd3", ...) and the watch cache's ("cacher.Get",
// "cacher.GetList", "cacher.Watch") from the rest.
func isStorageSpan(name string) bool {
	return strings.HasSuffix(name, " etcd3") || strings.HasPrefix(name, "cacher.")
}

// Shutdown does nothing: nothing is buffered.
func (spanProcessor) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing: nothing is buffered.
func (spanProcessor) ForceFlush(context.Context) error { return nil }
