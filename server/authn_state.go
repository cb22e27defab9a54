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
}

// liveObjects lists the authn phase's objects for the raw view.
func (a *authnState) liveObjects() []LiveObject {
	return []LiveObject{{"authn.authenticator", a.final}}
}

func (a *authnState) describe(n *Node) {
	chain := n.Add("authenticator", "union.NewFailOnError (a failing credential is a 401)")
	inner := chain.Add("group.NewAuthenticatedGroupAdder", "adds system:authenticated")
	u := inner.Add("union.New", "first yes wins")
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
	if a.anonymous != nil {
		chain.Add("anonymous.Authenticator", "system:anonymous on "+strings.Join(anonymousPaths, ", "))
	}
	ids := n.Add("identities", "")
	for _, id := range a.identities {
		how := "bearer token " + maskToken(id.Token)
		if id.Token == "" {
			how = "client certificate"
		}
		groups := append([]string{}, id.Groups...)
		groups = append(groups, "system:authenticated")
		ids.Addf(id.Context, "user %s, groups [%s], %s", id.User, strings.Join(groups, " "), how)
	}
}
