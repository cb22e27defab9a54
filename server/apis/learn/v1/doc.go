// Package v1 is version v1 of kubewalk's own API group, learn.kubewalk.io: the versioned
// Lesson type clients read and write at /apis/learn.kubewalk.io/v1, its defaults and its
// conversions to the internal type (package learn). v1 is the group's preferred version and
// its storage version: every lesson is written to etcd as learn.kubewalk.io/v1, whatever
// version the request used.
//
// All of v1's fields have the same name as the internal type's, so conversion-gen writes every
// conversion itself (zz_generated.conversion.go).
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/kubewalk/kubewalk/server/apis/learn
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=io.kubewalk.learn.v1
// +groupName=learn.kubewalk.io
package v1
