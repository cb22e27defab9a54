// Package learn holds the internal types of kubewalk's own API group, learn.kubewalk.io,
// defined the way kube-apiserver defines its groups (k8s.io/kubernetes pkg/apis/apps is the
// model): this package has the internal ("hub") types that registries, strategies and
// validation work on; v1alpha1 and v1 hold the versioned types clients send and receive, with
// their defaults and the conversions to and from these types; install puts all three in a
// scheme. Every request is decoded from its version into these types, and every stored object
// is encoded from them into the storage version, v1.
//
// The rest of kubewalk's scheme (server/apis) registers the published k8s.io/api types as their
// own internal version, which needs no conversion; this group shows the split kube-apiserver
// really has.
//
// The zz_generated.*.go files here and in the version packages are written by
// k8s.io/code-generator v0.37.2 (deepcopy-gen, conversion-gen, defaulter-gen), which go.mod
// pins as tools. Do not edit them by hand; regenerate them with
//
//	go generate ./server/apis/learn/...
//
// The generators read the +k8s: comment tags: +k8s:deepcopy-gen=package below asks for
// DeepCopy methods on every type of the package, +k8s:deepcopy-gen:interfaces on Lesson and
// LessonList for DeepCopyObject (so they are runtime.Objects), +k8s:conversion-gen in the
// version packages names this package as the one to convert to, +k8s:defaulter-gen=TypeMeta
// asks for defaulters of every type that embeds TypeMeta. The OpenAPI definitions
// (+k8s:openapi-gen) are generated with the server's others: go generate ./server/openapi.
// The +genclient tags on the versioned types are what client-gen, lister-gen and
// informer-gen read to write the group's typed clientset, listers and informers, in
// server/generated (go generate ./server/generated).
//
// +k8s:deepcopy-gen=package
// +groupName=learn.kubewalk.io
package learn

//go:generate go tool deepcopy-gen --output-file zz_generated.deepcopy.go --go-header-file boilerplate.go.txt . ./v1alpha1 ./v1
//go:generate go tool conversion-gen --output-file zz_generated.conversion.go --go-header-file boilerplate.go.txt ./v1alpha1 ./v1
//go:generate go tool defaulter-gen --output-file zz_generated.defaults.go --go-header-file boilerplate.go.txt ./v1alpha1 ./v1
