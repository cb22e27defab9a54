package kubectl

import (
	"fmt"
	"strings"
	"sync"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// reason is why a command was refused, kept so that a view can show it in the learner's
// language: a format of the i18n catalogue, named by key (a field of i18n.Strings whose name
// starts with "Refuse"), and its arguments. An argument that is a reason is worded in the same
// language; any other (a command path, a flag name, a file name, an error) is shown as it is:
// commands and flags stay as kubectl spells them in every language.
type reason struct {
	key  string
	args []any
}

// names is a list argument of a reason: commands, contexts. It is joined with the language's
// list separator (", " in English, "、" in Chinese) when the reason is worded.
type names []string

// why is the reason worded by the catalogue format key with args.
func why(key string, args ...any) reason { return reason{key: key, args: args} }

// isZero reports whether r says nothing (no refusal).
func (r reason) isZero() bool { return r.key == "" }

// englishStrings is the catalogue RefusedError.Reason is worded from (read only), built on
// first use, not during package initialisation.
var englishStrings = sync.OnceValue(func() *i18n.Strings { return i18n.For(i18n.English) })

// in words r in tr's language (English when tr is nil). A key the catalogue lacks (a bug
// TestRefusalKeysInCatalogue catches) shows as the key with its arguments, never as nothing.
func (r reason) in(tr *i18n.Strings) string {
	if tr == nil {
		tr = englishStrings()
	}
	format, ok := tr.Format(r.key)
	if !ok {
		return r.key + fmt.Sprint(r.args...)
	}
	if len(r.args) == 0 {
		return format
	}
	args := make([]any, len(r.args))
	for i, a := range r.args {
		switch v := a.(type) {
		case reason:
			a = v.in(tr)
		case names:
			a = strings.Join(v, tr.ListSep)
		}
		args[i] = a
	}
	return fmt.Sprintf(format, args...)
}
