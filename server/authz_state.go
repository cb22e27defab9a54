package server

// This file holds what the authz phase builds (authzState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"fmt"
	"net/http"

	"k8s.io/apiserver/pkg/authorization/authorizer"
	authzunion "k8s.io/apiserver/pkg/authorization/union"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/kubewalk/kubewalk/server/rbac"
)

// authzState is what the authz phase builds.
type authzState struct {
	httpClient *http.Client
	client     kubernetes.Interface
	informers  informers.SharedInformerFactory
	rbac       *rbac.Authorizer
	privileged authorizer.Authorizer
	chain      []authzunion.NamedAuthorizer
	final      authorizer.Authorizer
	resolver   authorizer.RuleResolver
}

// liveObjects lists the authz phase's objects for the raw view.
func (a *authzState) liveObjects() []LiveObject {
	return []LiveObject{{"authz.authorizer", a.final}, {"authz.rbac", a.rbac}}
}

func (a *authzState) describe(n *Node) {
	if a.informers != nil {
		inf := n.Add("informers", "SharedInformerFactory on the loopback client")
		for typ, synced := range a.informers.WaitForCacheSync(closedChan()) {
			inf.Add(typ.String(), syncedState(synced))
		}
	}
	if len(a.chain) > 0 {
		c := n.Add("authorizer", "union: first Allow/Deny wins")
		for i, na := range a.chain {
			c.Addf(fmt.Sprintf("%d. %s", i+1, na.AuthorizerName), "%T", na.Authorizer)
		}
	} else if a.rbac != nil {
		n.Add("rbac", "RBAC authorizer (not in a chain yet)")
	}
}

// closedChan returns a closed channel, so WaitForCacheSync reports without waiting.
func closedChan() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

func syncedState(synced bool) string {
	if synced {
		return "synced"
	}
	return "not synced (informers start after serve)"
}
