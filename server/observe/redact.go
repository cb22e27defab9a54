package observe

import (
	"encoding/json"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Redacted replaces every secret value the server records.
const Redacted = "<redacted>"

// ObjectJSON renders obj as JSON with each value of a Secret's data and stringData replaced
// by Redacted (the keys stay: they say what the Secret holds, not the secret itself). It
// returns nil for a nil object or one that does not encode.
func ObjectJSON(obj runtime.Object) []byte {
	if obj == nil {
		return nil
	}
	switch o := obj.(type) {
	case *corev1.Secret:
		if o == nil {
			return nil
		}
		c := *o // shallow: only the maps are replaced
		c.Data = redactBytes(o.Data)
		c.StringData = redactStrings(o.StringData)
		obj = &c
	case *unstructured.Unstructured:
		if o.GetKind() == "Secret" {
			c := o.DeepCopy()
			for _, f := range []string{"data", "stringData"} {
				if m, ok := c.Object[f].(map[string]any); ok {
					for k := range m {
						m[k] = Redacted
					}
				}
			}
			obj = c
		}
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return data
}

func redactBytes(m map[string][]byte) map[string][]byte {
	if m == nil {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k := range m {
		out[k] = []byte(Redacted)
	}
	return out
}

func redactStrings(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = Redacted
	}
	return out
}

// IsSecretResource reports whether resource (a plural resource name) holds secrets.
func IsSecretResource(resource string) bool { return resource == "secrets" }

// RedactPatch replaces the value of every operation of a JSON patch on a Secret that touches
// data or stringData (or replaces a whole object that contains them) with Redacted. A patch
// that does not parse is replaced whole. It is what runtime/tracing applies to every patch it
// keeps, on top of the decorators' own redaction.
func RedactPatch(patch string) string {
	if patch == "" {
		return ""
	}
	var ops []map[string]any
	if err := json.Unmarshal([]byte(patch), &ops); err != nil {
		return Redacted
	}
	changed := false
	for _, op := range ops {
		p, _ := op["path"].(string)
		v, has := op["value"]
		if !has {
			continue
		}
		switch {
		case p == "" || p == "/":
			if m, ok := v.(map[string]any); ok && redactSecretFields(m) {
				changed = true
			}
		case strings.HasPrefix(p, "/data") || strings.HasPrefix(p, "/stringData"):
			op["value"] = redactValue(v)
			changed = true
		}
	}
	if !changed {
		return patch
	}
	out, err := json.Marshal(ops)
	if err != nil {
		return Redacted
	}
	return string(out)
}

// redactSecretFields redacts data and stringData of a decoded object and reports whether it
// had any.
func redactSecretFields(m map[string]any) bool {
	found := false
	for _, f := range []string{"data", "stringData"} {
		if v, ok := m[f]; ok {
			m[f] = redactValue(v)
			found = true
		}
	}
	return found
}

// redactValue keeps the shape of a data map (its keys) and replaces every value.
func redactValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		out := make(map[string]any, len(m))
		for k := range m {
			out[k] = Redacted
		}
		return out
	}
	return Redacted
}
