package server

// This file holds what the authn phase builds (authnState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"fmt"
	"strings"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/token/tokenfile"
)

// authnState is what the authn phase builds.
type authnState struct {
	x509       *x509.Authenticator
	tokens     *tokenfile.TokenAuthenticator
	bearer     authenticator.Request
	union      authenticator.Request
	anonymous  authenticator.Request
	final      authenticator.Request
	identities []Identity
	// badToken is the kubeconfig's badtoken context's bearer token: random per run and in no
	// authenticator's map, so that a request carrying it is a 401 (see ContextBadToken).
	badToken string
}

// liveObjects lists the authn phase's objects the raw view may read now: all of them, always.
// Once built, an authenticator is only read: on each request it looks a token up in its map
// or verifies a certificate against the run's static CA bundle.
func (a *authnState) liveObjects() []LiveObject {
	const quiet = "built by the authn phase and never written again; requests only read it"
	var out []LiveObject
	for _, o := range []struct {
		name string
		v    any
		set  bool
	}{
		{"authn.x509", a.x509, a.x509 != nil},
		{"authn.tokens", a.tokens, a.tokens != nil},
		{"authn.union", a.union, a.union != nil},
		{"authn.authenticator", a.final, a.final != nil},
	} {
		if o.set {
			out = append(out, LiveObject{o.name, o.v, quiet})
		}
	}
	return out
}

// secrets lists the authn phase's credentials: the users' tokens and client keys.
func (a *authnState) secrets() []string {
	var out []string
	if a.badToken != "" {
		out = append(out, a.badToken)
	}
	for _, id := range a.identities {
		if id.Token != "" {
			out = append(out, id.Token)
		}
		if len(id.ClientKeyPEM) > 0 {
			out = append(out, string(id.ClientKeyPEM))
		}
	}
	return out
}

// describe shows the authenticators the phase has built so far, each wrapper only once it
// exists: x509 and the bearer tokens stand alone until the union step joins them, and the
// fail-on-error union and anonymous appear at the anonymous step, as the lesson says.
func (a *authnState) describe(n *Node) {
	var chain, u *Node
	switch {
	case a.union != nil:
		outer := "not finished: anonymous and the fail-on-error union come next"
		if a.final != nil {
			outer = "union.NewFailOnError (a failing credential is a 401)"
		}
		chain = n.Add("authenticator", outer)
		inner := chain.Add("group.NewAuthenticatedGroupAdder", "adds system:authenticated")
		u = inner.Add("union.New", "first yes wins")
	case a.x509 != nil || a.bearer != nil:
		u = n.Add("authenticators", "built, not in a chain yet")
	}
	if a.x509 != nil {
		u.Add("x509.Authenticator", "client certs signed by the run's CA; CN → user, O → groups")
	}
	if a.bearer != nil {
		var users []string
		for _, id := range a.identities {
			if id.Token != "" {
				users = append(users, id.User)
			}
		}
		u.Add("bearertoken → tokenfile.TokenAuthenticator", fmt.Sprintf("%d tokens: %s", len(users), strings.Join(users, ", ")))
	}
	if a.final != nil && a.anonymous != nil {
		chain.Add("anonymous.Authenticator", "system:anonymous on "+strings.Join(anonymousPaths, ", "))
	}
	ids := n.Add("identities", "")
	for _, id := range a.identities {
		how := "bearer token " + maskToken(id.Token)
		if id.Token == "" {
			how = "client certificate"
		}
		groups := append([]string{}, id.Groups...)
		if a.union != nil { // the group adder gives every authenticated user this group
			groups = append(groups, "system:authenticated")
		}
		ids.Addf(id.Context, "user %s, groups [%s], %s", id.User, strings.Join(groups, " "), how)
	}
	if a.badToken != "" {
		ids.Add(ContextBadToken, "bearer token "+maskToken(a.badToken)+", in no authenticator's map: 401")
	}
	if a.final != nil {
		ids.Add(ContextAnonymous, "no certificate, no token: system:anonymous on "+strings.Join(anonymousPaths, ", ")+"; 401 elsewhere")
	}
}
