// Package v1alpha1 is version v1alpha1 of kubewalk's own API group, learn.kubewalk.io: the
// first version of the Lesson type, still served at /apis/learn.kubewalk.io/v1alpha1 beside v1.
// It differs from v1 in one field: the lesson's author is spec.owner here and spec.author in v1
// and in the internal type, so conversion-gen cannot match it by name. It writes every other
// field's conversion (zz_generated.conversion.go) and leaves LessonSpec's to the hand-written
// functions in conversion.go.
//
// +k8s:deepcopy-gen=package
// +k8s:conversion-gen=github.com/kubewalk/kubewalk/server/apis/learn
// +k8s:defaulter-gen=TypeMeta
// +k8s:openapi-gen=true
// +k8s:openapi-model-package=io.kubewalk.learn.v1alpha1
// +groupName=learn.kubewalk.io
package v1alpha1
