package server

// This file holds what the install phase builds (installState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/healthz"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorapiserver "k8s.io/kube-aggregator/pkg/apiserver"
	apiregistrationlisters "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
)

// installState is what the install phase builds.
type installState struct {
	// The chain, back to front: the NotFound handler, the apiextensions server, kubewalk's
	// server (generic), the aggregator.
	notFound            http.Handler
	extensionsCompleted apiextensionsapiserver.CompletedConfig
	extensions          *apiextensionsapiserver.CustomResourceDefinitions
	completed           genericapiserver.CompletedConfig
	generic             *genericapiserver.GenericAPIServer
	aggregatorCompleted aggregatorapiserver.CompletedConfig
	aggregator          *aggregatorapiserver.APIAggregator
	apiServices         []*apiregistrationv1.APIService // the built-in ones autoregistration creates
	// apiServiceLister is the aggregator's APIService lister, once it is built: the recorded
	// front hop reads it (remoteAPIService).
	apiServiceLister atomic.Pointer[apiregistrationlisters.APIServiceLister]
	// settleBeforeStop are the checks of the library post-start hooks a stop must not
	// interrupt (see serveState.waitHooksSettled): each passes once its hook has returned.
	settleBeforeStop []healthz.HealthChecker
	groups           []*genericapiserver.APIGroupInfo
	hooks            []string

	// hooksMu guards hooksRunning, the post-start hooks that have started and not returned.
	hooksMu      sync.Mutex
	hooksIdle    *sync.Cond
	hooksRunning int
}

// liveObjects lists the install phase's objects the raw view may read now: none, since
// kubewalk's GenericAPIServer exists only once the apiextensions server does, whose
// controllers' work queues run goroutines from the moment they are made, and the
// GenericAPIServer reaches them through its delegate. From serve/serving on its handlers,
// health checks, discovery and OpenAPI services change as requests and post-start hooks run.
func (in *installState) liveObjects(r running) []LiveObject {
	if in.generic == nil || r.serving || r.chain {
		return nil
	}
	return []LiveObject{{"install.genericAPIServer", in.generic, "only the phase goroutine writes it until RunWithContext starts it at serve/serving"}}
}

func (in *installState) describe(n *Node) {
	in.describeChain(n)
	if in.generic == nil {
		return
	}
	groups := n.Add("groups", "")
	for _, g := range in.groups {
		for _, gv := range g.PrioritizedVersions {
			label := gv.String()
			prefix := "/apis/" + gv.String()
			if gv.Group == "" {
				label, prefix = "core/"+gv.Version, "/api/"+gv.Version
			}
			gn := groups.Add(label, prefix)
			names := make([]string, 0, len(g.VersionedResourcesStorageMap[gv.Version]))
			for r := range g.VersionedResourcesStorageMap[gv.Version] {
				names = append(names, r)
			}
			sort.Strings(names)
			for _, r := range names {
				gn.Add(r, verbs(g.VersionedResourcesStorageMap[gv.Version][r]))
			}
		}
	}
	ws := in.generic.Handler.GoRestfulContainer.RegisteredWebServices()
	routes := n.Add("routes", "")
	total := 0
	for _, w := range ws {
		total += len(w.Routes())
		routes.Addf(w.RootPath(), "%d routes", len(w.Routes()))
	}
	routes.Value = fmt.Sprintf("%d go-restful routes", total)
	n.Add("nonGoRestfulMux", strings.Join(in.generic.Handler.NonGoRestfulMux.ListedPaths(), ", "))
	hooks := n.Add("postStartHooks", "")
	for _, h := range in.hooks {
		hooks.Add(h, "/healthz/poststarthook/"+h)
	}
}

// verbs lists the REST verbs a storage supports, as discovery reports them.
func verbs(st rest.Storage) string {
	var v []string
	if _, ok := st.(rest.Creater); ok {
		v = append(v, "create")
	}
	if _, ok := st.(rest.GracefulDeleter); ok {
		v = append(v, "delete")
	}
	if _, ok := st.(rest.CollectionDeleter); ok {
		v = append(v, "deletecollection")
	}
	if _, ok := st.(rest.Getter); ok {
		v = append(v, "get")
	}
	if _, ok := st.(rest.Lister); ok {
		v = append(v, "list")
	}
	if _, ok := st.(rest.Patcher); ok {
		v = append(v, "patch")
	}
	if _, ok := st.(rest.Updater); ok {
		v = append(v, "update")
	}
	if _, ok := st.(rest.Watcher); ok {
		v = append(v, "watch")
	}
	return strings.Join(v, " ")
}

// describeChain shows the delegation chain from the front, as a request meets it: each server
// built so far with the groups it serves itself, its own post-start hooks and health checks,
// and its delegate; the NotFound handler ends it.
func (in *installState) describeChain(n *Node) {
	if in.extensions == nil {
		return
	}
	chain := n.Add("chain", "")
	type link struct {
		name     string
		server   *genericapiserver.GenericAPIServer
		delegate string
		groups   []string
	}
	var links []link
	if in.aggregator != nil {
		links = append(links, link{"kube-aggregator", in.aggregator.GenericAPIServer, "kubewalk-apiserver",
			[]string{"apiregistration.k8s.io/v1", "apiregistration.k8s.io/v1beta1", "/apis (discovery, from the APIServices)"}})
	}
	if in.generic != nil {
		var groups []string
		for _, g := range in.groups {
			for _, gv := range g.PrioritizedVersions {
				if gv.Group == "" {
					groups = append(groups, "core/"+gv.Version)
				} else {
					groups = append(groups, gv.String())
				}
			}
		}
		links = append(links, link{"kubewalk-apiserver", in.generic, "apiextensions-apiserver", groups})
	}
	links = append(links, link{"apiextensions-apiserver", in.extensions.GenericAPIServer, "NotFound handler",
		[]string{"apiextensions.k8s.io/v1", "/apis/<group>/<version> of each CRD"}})
	// Each server holds its delegates' hooks and checks too (New copies them): show only the
	// ones a server added itself.
	for i, l := range links {
		var behind *genericapiserver.GenericAPIServer
		theirs := l.server.PostStartHooks() // only for its type: the hooks of the server behind
		theirs = nil
		if i+1 < len(links) {
			behind = links[i+1].server
			theirs = behind.PostStartHooks()
		}
		sn := chain.Add(l.name, "delegate: "+l.delegate)
		sn.Add("serves", strings.Join(l.groups, ", "))
		sn.Add("postStartHooks", strings.Join(ownNames(l.server.PostStartHooks(), theirs), ", "))
		var checks []string
		for _, c := range l.server.HealthzChecks() {
			if behind == nil || !hasCheck(behind, c.Name()) {
				checks = append(checks, c.Name())
			}
		}
		sn.Add("healthChecks", strings.Join(checks, ", "))
	}
	chain.Add("NotFound handler", "404 for a path no server serves; 503 while a server is still installing its paths")
	if len(in.apiServices) > 0 {
		var names []string
		for _, a := range in.apiServices {
			names = append(names, a.Name)
		}
		chain.Add("autoregistered APIServices", strings.Join(names, ", "))
	}
}

// ownNames lists the keys of hooks not also in theirs, sorted.
func ownNames[V any](hooks, theirs map[string]V) []string {
	var out []string
	for name := range hooks {
		if _, ok := theirs[name]; !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func hasCheck(s *genericapiserver.GenericAPIServer, name string) bool {
	for _, c := range s.HealthzChecks() {
		if c.Name() == name {
			return true
		}
	}
	return false
}
