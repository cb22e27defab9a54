package apis

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
)

// newObject returns a new zero value of typ as a runtime.Object, if it is one.
func newObject(typ reflect.Type) (runtime.Object, bool) {
	obj, ok := reflect.New(typ).Interface().(runtime.Object)
	return obj, ok
}
