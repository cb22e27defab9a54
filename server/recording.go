package server

// This file wires package observe into the phases: with Options.Recorder or Options.Gate set,
// the server runs the chains the phases build with each part decorated, and the phases' own
// objects (which the lessons, the state tree and the raw view show) stay as they are. Without
// either, nothing here changes anything: the server runs exactly what the phases built.

import (
	"fmt"

	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/group"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	authzunion "k8s.io/apiserver/pkg/authorization/union"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/kubewalk/kubewalk/server/observe"
)

// observeAuthn sets the authenticator the server runs, with a Recorder: the chain Authn built
// (x509 and token in a union, system:authenticated added, anonymous behind fail-on-error),
// with each of the three decorated so that a lane says which one answered.
func (s *Server) observeAuthn(a *authnState) {
	rec := s.opts.Recorder
	if rec == nil {
		return
	}
	inner := group.NewAuthenticatedGroupAdder(union.New(
		observe.Authenticator(rec, "x509", a.x509),
		observe.Authenticator(rec, "token", a.bearer)))
	s.c.generic.Authentication.Authenticator = union.NewFailOnError(inner, observe.Authenticator(rec, "anonymous", a.anonymous))
}

// observeServedAuthn decorates the whole authenticator chain the server runs, once
// Complete() has put the loopback token's authenticator in front of it
// (AuthorizeClientBearerToken): so the server's own requests are recorded too, every request
// records what WithRequestInfo resolved as it arrives, and the Gate is asked once any user is
// known.
//
// Each server of the chain completes its own copy of the config, and only the front one (the
// aggregator) runs its filters; all three are decorated alike, so that whichever is in front
// records.
func (s *Server) observeServedAuthn(g *genericapiserver.Config) {
	if s.opts.Recorder == nil && s.opts.Gate == nil {
		return
	}
	g.Authentication.Authenticator = observe.Authentication(s.opts.Recorder, s.opts.Gate, g.LongRunningFunc, g.Authentication.Authenticator)
}

// observeAuthz sets the authorizer the server runs: the chain Authz built, in its order, each
// authorizer decorated for the Recorder, and the union decorated for the Gate, which is asked
// before the authorizers decide. Access reviews and RBAC escalation checks keep asking the
// plain chain.
func (s *Server) observeAuthz(a *authzState) error {
	if s.opts.Recorder == nil && s.opts.Gate == nil {
		return nil
	}
	chain := a.chain
	if rec := s.opts.Recorder; rec != nil {
		chain = make([]authzunion.NamedAuthorizer, len(a.chain))
		for i, na := range a.chain {
			chain[i] = authzunion.NamedAuthorizer{AuthorizerName: na.AuthorizerName, Authorizer: observe.Authorizer(rec, na.AuthorizerName, na.Authorizer)}
		}
	}
	var served authorizer.Authorizer
	served, err := authzunion.New(chain...)
	if err != nil {
		return fmt.Errorf("authorizer union: %w", err)
	}
	if s.opts.Gate != nil {
		served = observe.AuthorizationGate(s.opts.Gate, served)
	}
	s.c.generic.Authorization.Authorizer = served
	return nil
}

// observeAdmission sets the admission chain the server runs: the initialized plugins in the
// same order, each decorated for the Recorder, and the chain decorated for the Gate.
func (s *Server) observeAdmission(handlers []admission.Interface) {
	if s.opts.Recorder == nil && s.opts.Gate == nil {
		return
	}
	observed := handlers
	if rec := s.opts.Recorder; rec != nil {
		observed = make([]admission.Interface, len(handlers))
		for i, h := range handlers {
			observed[i] = observe.AdmissionPlugin(rec, s.ad.plugins[i].Name, h)
		}
	}
	var chain admission.Interface = admission.NewChainHandler(observed...)
	if s.opts.Gate != nil {
		chain = observe.AdmissionGate(s.opts.Gate, chain)
	}
	s.c.generic.AdmissionControl = chain
}
