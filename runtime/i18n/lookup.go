package i18n

import (
	"reflect"
	"sync"
)

// stringFields indexes the exported string fields of Strings by name, once, on first use (not
// during package initialisation, which every command pays): Format reads a field by its index
// instead of searching some thousand names on every call.
var stringFields = sync.OnceValue(func() map[string]int {
	out := map[string]int{}
	t := reflect.TypeOf(Strings{})
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && f.Type.Kind() == reflect.String {
			out[f.Name] = i
		}
	}
	return out
})

// Format returns the string field of s named key (a format, for catalogue texts that code
// elsewhere builds by name: the request lanes' details, runtime/tracing), and whether there
// is one.
func (s *Strings) Format(key string) (string, bool) {
	i, ok := stringFields()[key]
	if !ok {
		return "", false
	}
	return reflect.ValueOf(s).Elem().Field(i).String(), true
}
