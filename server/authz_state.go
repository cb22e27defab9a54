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

// liveObjects lists the authz phase's objects the raw view may read now. The informers start
// at serve/serving (the generic-apiserver-start-informers post-start hook); until then their
// caches are empty and only the phase goroutine touches the factory. From then on the
// informers fill the caches the RBAC authorizer reads, so none of these is offered.
func (a *authzState) liveObjects(r running) []LiveObject {
	if r.serving {
		return nil
	}
	const quiet = "the informers under it have not started: they start at serve/serving"
	var out []LiveObject
	if a.informers != nil {
		out = append(out, LiveObject{"authz.informers", a.informers, quiet})
	}
	if a.rbac != nil {
		out = append(out, LiveObject{"authz.rbac", a.rbac, quiet})
	}
	if a.final != nil {
		out = append(out, LiveObject{"authz.authorizer", a.final, quiet})
	}
	return out
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
