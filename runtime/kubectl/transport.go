package kubectl

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Request is one HTTP request a kubectl command made, as the client saw it.
type Request struct {
	// Method and Path are the request's method and URL path (with the query, if any).
	Method, Path string
	// Code is the response's status code; 0 when no response arrived (cancelled, connection
	// refused).
	Code int
	// AuditID is the response's Audit-Id header: the server-side trace of this request is
	// named by it. Empty when no response arrived.
	AuditID string
	// Err is why no response arrived, if none did.
	Err string
	// Watch is set for a watch request (?watch=true, or a /watch/ path): answered 200, it
	// streams until stopped, and the next command may run beside it (see Runner.Run).
	Watch bool
}

// WatchOpen reports whether q is a watch the server has answered 200: it streams events from
// then on, and the next command may run beside the one that opened it.
func (q Request) WatchOpen() bool { return q.Watch && q.Code == http.StatusOK }

// RequestObserver may be implemented by the writer Run is given: ObserveRequest is then
// called with each request the command makes as its response arrives (or as it fails), while
// the command runs. Result.Requests has them all, but only once the command ends; a `get -w`
// ends when it is stopped, and a screen wants to show the watch's lane while it streams. It
// is called on the goroutine that made the request, possibly from several at once, and must
// not block.
type RequestObserver interface {
	ObserveRequest(Request)
}

// recorder is the transport side of one Run: it records every request the command makes, in
// the order they were sent, and ties each to the Run's context so that cancelling the Run ends
// every request — kubectl itself starts most of them with context.Background().
type recorder struct {
	ctx     context.Context // the Run's context; cancelled when Run ends
	observe func(Request)   // nil, or the output's RequestObserver
	// watchOpen, if set, is called when a watch request is answered 200, before the observer
	// hears of it.
	watchOpen func()
	mu        sync.Mutex
	reqs      []*Request
}

// done records how a request ended and tells the observer.
func (r *recorder) done(entry *Request, set func(*Request)) {
	r.mu.Lock()
	set(entry)
	q := *entry
	r.mu.Unlock()
	if r.observe != nil {
		r.observe(q)
	}
}

// wrap is a transport.WrapperFunc (see rest.Config.Wrap).
func (r *recorder) wrap(rt http.RoundTripper) http.RoundTripper {
	return &recordingRoundTripper{rec: r, next: rt}
}

// requests returns a copy of what was recorded so far.
func (r *recorder) requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Request, len(r.reqs))
	for i, q := range r.reqs {
		out[i] = *q
	}
	return out
}

type recordingRoundTripper struct {
	rec  *recorder
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper. The request sent on carries a context that ends when
// either its own context or the Run's does; the response body releases it when closed.
func (t *recordingRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.rec.ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s %s: kubectl run was stopped: %w", req.Method, req.URL.Path, err)
	}
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(t.rec.ctx, cancel)
	release := func() { stop(); cancel() }

	entry := &Request{Method: req.Method, Path: req.URL.RequestURI(), Watch: isWatch(req.URL)}
	t.rec.mu.Lock()
	t.rec.reqs = append(t.rec.reqs, entry)
	t.rec.mu.Unlock()

	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		release()
		t.rec.done(entry, func(q *Request) { q.Err = err.Error() })
		return nil, err
	}
	if entry.Watch && resp.StatusCode == http.StatusOK && t.rec.watchOpen != nil {
		t.rec.watchOpen()
	}
	t.rec.done(entry, func(q *Request) { q.Code, q.AuditID = resp.StatusCode, resp.Header.Get("Audit-Id") })
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: release}
	return resp, nil
}

// WrappedRoundTripper lets client-go's utilnet.CloseIdleConnectionsFor and friends see through.
func (t *recordingRoundTripper) WrappedRoundTripper() http.RoundTripper { return t.next }

// releasingBody releases the request's context once the body is closed.
type releasingBody struct {
	io.ReadCloser
	once    sync.Once
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.once.Do(b.release)
	return err
}

// isWatch reports whether u asks the API server for a watch: a watch query parameter that is
// not false (the server's own conversion, runtime.Convert_Slice_string_To_bool: anything but
// "0" and "false" is true, an empty value too), or the deprecated /watch/ path segment after
// the group version (/api/v1/watch/..., /apis/G/V/watch/...).
func isWatch(u *url.URL) bool {
	if vs, ok := u.Query()["watch"]; ok && len(vs) > 0 && vs[0] != "0" && !strings.EqualFold(vs[0], "false") {
		return true
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	switch {
	case len(parts) > 2 && parts[0] == "api":
		return parts[2] == "watch"
	case len(parts) > 3 && parts[0] == "apis":
		return parts[3] == "watch"
	}
	return false
}
