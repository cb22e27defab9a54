package server

// This file holds what the install phase builds (installState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
)

// installState is what the install phase builds.
type installState struct {
	completed genericapiserver.CompletedConfig
	generic   *genericapiserver.GenericAPIServer
	groups    []*genericapiserver.APIGroupInfo
	hooks     []string

	// hooksMu guards hooksRunning, the post-start hooks that have started and not returned.
	hooksMu      sync.Mutex
	hooksIdle    *sync.Cond
	hooksRunning int
}

// liveObjects lists the install phase's objects the raw view may read now: the
// GenericAPIServer until it runs. From serve/serving on its handlers, health checks,
// discovery and OpenAPI services change as requests and post-start hooks run.
func (in *installState) liveObjects(r running) []LiveObject {
	if in.generic == nil || r.serving {
		return nil
	}
	return []LiveObject{{"install.genericAPIServer", in.generic, "only the phase goroutine writes it until RunWithContext starts it at serve/serving"}}
}

func (in *installState) describe(n *Node) {
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
