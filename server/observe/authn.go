package observe

import (
	"net/http"
	"time"

	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// Authenticator decorates one authenticator of the chain (name is "x509", "token" or
// "anonymous") so that rec learns whether it answered, with whom, or why it failed.
func Authenticator(rec Recorder, name string, a authenticator.Request) authenticator.Request {
	return &namedAuthenticator{record: recorderFunc(rec), name: name, inner: a, source: MethodAnchor(a, "AuthenticateRequest")}
}

type namedAuthenticator struct {
	record recordFunc
	name   string
	inner  authenticator.Request
	source string
}

// AuthenticateRequest asks the authenticator and records its answer.
func (a *namedAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	start := time.Now()
	resp, ok, err := a.inner.AuthenticateRequest(req)
	if id := audit.GetAuditIDTruncated(req.Context()); id != "" {
		r := &Authn{ID: id, Authenticator: a.name, Source: a.source, Start: start, Duration: time.Since(start), OK: ok && err == nil}
		fillAuthn(r, resp, err)
		a.record(r)
	}
	return resp, ok, err
}

func fillAuthn(r *Authn, resp *authenticator.Response, err error) {
	if r.OK && resp != nil && resp.User != nil {
		r.User = resp.User.GetName()
		r.Groups = append([]string(nil), resp.User.GetGroups()...)
	}
	if err != nil {
		r.Err = err.Error()
	}
}

// Authentication decorates the whole authenticator chain, the one WithAuthentication calls.
// When a request arrives it records what WithRequestInfo resolved (a *Request, with
// longRunning's verdict); once the chain has answered it records the answer, then, for an
// authenticated request, asks gate (stage GateAuthentication). rec and gate may be nil.
func Authentication(rec Recorder, gate Gate, longRunning request.LongRunningRequestCheck, a authenticator.Request) authenticator.Request {
	return &chainAuthenticator{record: recorderFunc(rec), wait: gateFunc(gate), longRunning: longRunning, inner: a}
}

type chainAuthenticator struct {
	record      recordFunc
	wait        gateRef
	longRunning request.LongRunningRequestCheck
	inner       authenticator.Request
}

// AuthenticateRequest records the request, asks the chain, records its answer and asks the
// gate. A request the gate fails gets the gate's error: WithAuthentication answers 401.
func (a *chainAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	ctx := req.Context()
	id := audit.GetAuditIDTruncated(ctx)
	info, _ := request.RequestInfoFrom(ctx)
	if a.record != nil && id != "" {
		a.record(requestRecord(id, req, info, a.longRunning))
	}
	start := time.Now()
	resp, ok, err := a.inner.AuthenticateRequest(req)
	if a.record != nil && id != "" {
		r := &Authn{ID: id, Chain: true, Start: start, Duration: time.Since(start), OK: ok && err == nil}
		fillAuthn(r, resp, err)
		a.record(r)
	}
	if !ok || err != nil || resp == nil || resp.User == nil || !a.wait.on() {
		return resp, ok, err
	}
	p := Point{ID: id, Stage: GateAuthentication, User: resp.User.GetName(), Groups: resp.User.GetGroups()}
	fillPoint(&p, info, req.URL.Path)
	if gerr := a.wait.wait(ctx, p); gerr != nil {
		return nil, false, gerr // WithAuthentication logs it and answers 401
	}
	return resp, ok, err
}

// KubectlCommandHeader is the header in which kubectl names the command that sends a request
// (k8s.io/cli-runtime/pkg/genericclioptions.CommandHeaderRoundTripper).
const KubectlCommandHeader = "Kubectl-Command"

func requestRecord(id string, req *http.Request, info *request.RequestInfo, longRunning request.LongRunningRequestCheck) *Request {
	r := &Request{ID: id, Method: req.Method, Path: req.URL.Path, UserAgent: req.UserAgent(), Command: req.Header.Get(KubectlCommandHeader)}
	if t, ok := request.ReceivedTimestampFrom(req.Context()); ok {
		r.Received = t
	} else {
		r.Received = time.Now()
	}
	if info != nil {
		r.IsResource = info.IsResourceRequest
		r.Verb, r.APIGroup, r.APIVersion = info.Verb, info.APIGroup, info.APIVersion
		r.Resource, r.Subresource, r.Namespace, r.Name = info.Resource, info.Subresource, info.Namespace, info.Name
		if longRunning != nil {
			r.LongRunning = longRunning(req, info)
		}
	}
	return r
}

func fillPoint(p *Point, info *request.RequestInfo, path string) {
	p.Path = path
	if info == nil {
		return
	}
	p.Verb, p.APIGroup, p.APIVersion = info.Verb, info.APIGroup, info.APIVersion
	p.Resource, p.Subresource, p.Namespace, p.Name = info.Resource, info.Subresource, info.Namespace, info.Name
}
