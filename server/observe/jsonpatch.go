package observe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// PatchOp is one operation of an RFC 6902 JSON patch.
type PatchOp struct {
	Op    string
	Path  string
	Value any // for add and replace; may be nil (JSON null)
}

// MarshalJSON writes the operation with a value for add and replace only (a null value is
// still written for them: RFC 6902 requires the member).
func (o PatchOp) MarshalJSON() ([]byte, error) {
	if o.Op == "remove" {
		return json.Marshal(struct {
			Op   string `json:"op"`
			Path string `json:"path"`
		}{o.Op, o.Path})
	}
	return json.Marshal(struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}{o.Op, o.Path, o.Value})
}

// Diff returns the RFC 6902 JSON patch that turns the JSON document before into after, as
// JSON ("" when they are equal). Objects are compared key by key (in sorted order, so the
// patch is stable); arrays element by element, with elements added or removed at the end;
// anything else that differs is replaced.
func Diff(before, after []byte) (string, error) {
	a, err := decodeJSON(before)
	if err != nil {
		return "", fmt.Errorf("diff: before: %w", err)
	}
	b, err := decodeJSON(after)
	if err != nil {
		return "", fmt.Errorf("diff: after: %w", err)
	}
	ops := diffValues(nil, "", a, b)
	if len(ops) == 0 {
		return "", nil
	}
	out, err := json.Marshal(ops)
	if err != nil {
		return "", fmt.Errorf("diff: %w", err)
	}
	return string(out), nil
}

func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func diffValues(ops []PatchOp, path string, a, b any) []PatchOp {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return append(ops, PatchOp{Op: "replace", Path: path, Value: b})
		}
		keys := make([]string, 0, len(av)+len(bv))
		for k := range av {
			keys = append(keys, k)
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := path + "/" + escapePointer(k)
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inB:
				ops = append(ops, PatchOp{Op: "remove", Path: p})
			case !inA:
				ops = append(ops, PatchOp{Op: "add", Path: p, Value: y})
			default:
				ops = diffValues(ops, p, x, y)
			}
		}
		return ops
	case []any:
		bv, ok := b.([]any)
		if !ok {
			return append(ops, PatchOp{Op: "replace", Path: path, Value: b})
		}
		n := min(len(av), len(bv))
		for i := 0; i < n; i++ {
			ops = diffValues(ops, path+"/"+strconv.Itoa(i), av[i], bv[i])
		}
		for i := n; i < len(bv); i++ {
			ops = append(ops, PatchOp{Op: "add", Path: path + "/" + strconv.Itoa(i), Value: bv[i]})
		}
		// Remove from the end, so each index is still valid when its op applies.
		for i := len(av) - 1; i >= n; i-- {
			ops = append(ops, PatchOp{Op: "remove", Path: path + "/" + strconv.Itoa(i)})
		}
		return ops
	default:
		if !sameScalar(a, b) {
			return append(ops, PatchOp{Op: "replace", Path: path, Value: b})
		}
		return ops
	}
}

// sameScalar compares two decoded JSON scalars (json.Number, string, bool or nil).
func sameScalar(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		return false
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
