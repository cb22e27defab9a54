package v1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// addDefaultingFuncs registers the generated defaulters (zz_generated.defaults.go), which call
// the SetDefaults_ functions below for every object of this version the server decodes.
func addDefaultingFuncs(scheme *runtime.Scheme) error {
	return RegisterDefaults(scheme)
}

// SetDefaults_LessonSpec gives a lesson without a level the level Beginner. Defaulting runs on
// the versioned object, right after a request body is decoded and before it is converted to the
// internal type, so a client sees the default in the response and in every later read.
func SetDefaults_LessonSpec(obj *LessonSpec) {
	if obj.Level == "" {
		obj.Level = LevelBeginner
	}
}
