package v1alpha1

import (
	"k8s.io/apimachinery/pkg/conversion"

	"github.com/kubewalk/kubewalk/server/apis/learn"
)

// Convert_v1alpha1_LessonSpec_To_learn_LessonSpec converts a v1alpha1 spec to the internal
// one. conversion-gen matches fields by name and cannot match owner with author: it writes the
// rest in autoConvert_v1alpha1_LessonSpec_To_learn_LessonSpec (zz_generated.conversion.go),
// with a warning that in.Owner needs manual conversion, and leaves this function to us. Because
// it exists in a non-generated file, the generated code registers it instead of its own.
func Convert_v1alpha1_LessonSpec_To_learn_LessonSpec(in *LessonSpec, out *learn.LessonSpec, s conversion.Scope) error {
	if err := autoConvert_v1alpha1_LessonSpec_To_learn_LessonSpec(in, out, s); err != nil {
		return err
	}
	out.Author = in.Owner
	return nil
}

// Convert_learn_LessonSpec_To_v1alpha1_LessonSpec converts the internal spec to v1alpha1: the
// internal author becomes owner.
func Convert_learn_LessonSpec_To_v1alpha1_LessonSpec(in *learn.LessonSpec, out *LessonSpec, s conversion.Scope) error {
	if err := autoConvert_learn_LessonSpec_To_v1alpha1_LessonSpec(in, out, s); err != nil {
		return err
	}
	out.Owner = in.Author
	return nil
}
