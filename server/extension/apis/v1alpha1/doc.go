// Package v1alpha1 is the API of kubewalk's extension server: the group
// extension.learn.kubewalk.io, served not by kubewalk itself but by a second GenericAPIServer
// that the aggregator proxies to (server/extension). Its one resource, callers, is read-only:
// each Caller is a user the extension server has served a read of callers to, as the
// extension saw the user — from the X-Remote-User and X-Remote-Group headers of the
// aggregator's proxied request, which it trusted because the aggregator's front-proxy client
// certificate came with them.
//
// The group has only this version and no internal one: the scheme registers the same Go types
// as the internal version too, so nothing is converted (as the published k8s.io/api types are
// in kubewalk's own scheme).
//
// The zz_generated.*.go files are written by k8s.io/code-generator v0.37.2's deepcopy-gen and
// by openapi-gen (the model names); regenerate them with
//
//	go generate ./server/extension/...
//
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=io.kubewalk.learn.extension.v1alpha1
// +groupName=extension.learn.kubewalk.io
package v1alpha1

//go:generate go tool deepcopy-gen --output-file zz_generated.deepcopy.go --go-header-file boilerplate.go.txt .
