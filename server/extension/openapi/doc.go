// Package openapi holds the generated OpenAPI definitions of the extension server's API types,
// extension.learn.kubewalk.io/v1alpha1, and of the apimachinery types they build on. The
// extension server needs them as every GenericAPIServer does: installing a group builds the
// managed-fields type converter from them, and /openapi/v2 and /openapi/v3 publish them (the
// aggregator fetches the v3 document through its proxy).
//
// zz_generated.openapi.go is produced by openapi-gen from k8s.io/kube-openapi (go.mod pins it
// as a tool); regenerate it with
//
//	go generate ./server/extension/...
package openapi

//go:generate go tool openapi-gen --output-dir . --output-pkg github.com/kubewalk/kubewalk/server/extension/openapi --output-file zz_generated.openapi.go --output-model-name-file zz_generated.model_name.go --go-header-file boilerplate.go.txt --report-filename violation_exceptions.list --readonly-pkg k8s.io/apimachinery/pkg/apis/meta/v1,k8s.io/apimachinery/pkg/runtime,k8s.io/apimachinery/pkg/version github.com/kubewalk/kubewalk/server/extension/apis/v1alpha1 k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/runtime k8s.io/apimachinery/pkg/version
