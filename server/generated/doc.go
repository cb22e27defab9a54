// Package generated holds the typed client of kubewalk's own API group, learn.kubewalk.io,
// written by k8s.io/code-generator v0.37.2 from the +genclient tags on the versioned types in
// server/apis/learn/v1 and v1alpha1, laid out as sample-apiserver's pkg/generated:
//
//   - clientset/versioned: the clientset (client-gen). versioned.NewForConfig(cfg) gives
//     LearnV1() and LearnV1alpha1(), each with a typed client per kind: Lessons(namespace),
//     Courses() (cluster-scoped), Attempts(namespace).
//   - listers: a lister per kind (lister-gen), reading an informer's cache, never the server.
//   - informers/externalversions: a shared informer factory (informer-gen) whose informers
//     list and watch through the clientset and fill the listers' caches.
//
// The generators are pinned in go.mod as tools and run by the go:generate lines below, the
// way k8s.io/code-generator's kube_codegen.sh (gen_client) runs them: each with
// --output-dir and --output-pkg, the three after one another, over a tree they first empty
// (kube_codegen.sh removes the files each generator wrote before; here nothing else lives in
// clientset, listers or informers). Do not edit the output by hand; regenerate with
//
//	go generate ./server/generated
//
// TestGeneratedFilesUpToDate (server/apis/learn) fails when the output is stale.
package generated

//go:generate rm -rf clientset listers informers
//go:generate go tool client-gen --go-header-file boilerplate.go.txt --output-dir clientset --output-pkg github.com/kubewalk/kubewalk/server/generated/clientset --clientset-name versioned --input-base github.com/kubewalk/kubewalk/server/apis --input learn/v1 --input learn/v1alpha1
//go:generate go tool lister-gen --go-header-file boilerplate.go.txt --output-dir listers --output-pkg github.com/kubewalk/kubewalk/server/generated/listers github.com/kubewalk/kubewalk/server/apis/learn/v1 github.com/kubewalk/kubewalk/server/apis/learn/v1alpha1
//go:generate go tool informer-gen --go-header-file boilerplate.go.txt --output-dir informers --output-pkg github.com/kubewalk/kubewalk/server/generated/informers --versioned-clientset-package github.com/kubewalk/kubewalk/server/generated/clientset/versioned --listers-package github.com/kubewalk/kubewalk/server/generated/listers github.com/kubewalk/kubewalk/server/apis/learn/v1 github.com/kubewalk/kubewalk/server/apis/learn/v1alpha1
