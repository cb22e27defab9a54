// Package live holds the probes of the after-serve lessons: each reads the running server —
// discovery, a RESTMapper built from it, an object the learner created, the bytes etcd holds
// for it, the server's Scheme — and returns what it found as a state tree (server.Node) for the
// state pane and plain mode. A probe only reads: it never creates, changes or deletes anything,
// so what the learner sees is what the learner (or the server) did.
//
// The trees' labels are API identifiers and Go names, as in the startup state trees; a value
// that tells the learner what to do names the kubectl command.
package live

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/server"
)

// Server is what the probes read: *server.Server once it serves.
type Server interface {
	// RESTConfig returns a client configuration for a kubeconfig context ("admin").
	RESTConfig(contextName string) (*rest.Config, error)
	// Etcd returns read-only access to the etcd the server stores its objects in.
	Etcd() (*server.EtcdAccess, error)
	// Scheme returns the scheme every served group is registered in.
	Scheme() *runtime.Scheme
}

// Names of the objects the lessons ask the learner to create; the probes look for them.
const (
	// Namespace is where the lessons create their objects.
	Namespace = "default"
	// ConfigMapName is the configmap of the apimachinery lesson.
	ConfigMapName = "demo"
	// LessonName is the Lesson of the own-group lesson.
	LessonName = "hello"
	// PodName is the pod of the subresources lesson.
	PodName = "web"
	// DeploymentName is the deployment of the apps/v1 lesson.
	DeploymentName = "web"
)

// probe is one live probe: its id (a step's live: field) and what it reads.
type probe struct {
	id  string
	run func(ctx context.Context, c *clients) (*server.Node, error)
}

// probes lists the probes in the order of the lessons that use them.
func probes() []probe {
	return []probe{
		{"object-meta", objectMeta},
		{"scheme-gvks", schemeGVKs},
		{"restmapper", restMapper},
		{"etcd-bytes", etcdBytes},
		{"learn-group", learnGroup},
		{"learn-storage", learnStorage},
		{"pod-status", podStatus},
		{"pod-subresources", podSubresources},
		{"deployments", deployments},
		{"versions", versions},
	}
}

// IDs returns the probe ids a lesson step may name in live:.
func IDs() []string {
	var ids []string
	for _, p := range probes() {
		ids = append(ids, p.id)
	}
	return ids
}

// Run runs probe id against s and returns its tree: a root whose one child is labelled with
// the probe id. An error means the server could not be read (not serving yet, closed); an
// object the learner has not created yet is not an error but a node saying how to create it.
func Run(ctx context.Context, s Server, id string) (*server.Node, error) {
	i := slices.IndexFunc(probes(), func(p probe) bool { return p.id == id })
	if i < 0 {
		return nil, fmt.Errorf("live probe %q: unknown probe (known: %v)", id, IDs())
	}
	c, err := newClients(s)
	if err != nil {
		return nil, fmt.Errorf("live probe %s: %w", id, err)
	}
	n, err := probes()[i].run(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("live probe %s: %w", id, err)
	}
	root := &server.Node{Label: "live"}
	n.Label = id
	root.Children = append(root.Children, n)
	return root, nil
}
