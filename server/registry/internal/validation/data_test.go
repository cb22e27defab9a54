package validation

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func fieldsOf(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Type.String())
	}
	return out
}

func TestDataKeys(t *testing.T) {
	errs := DataKeys(map[string]int{"ok.key": 1, "bad key": 2, "..": 3, "a/b": 4}, field.NewPath("data"))
	want := []string{"data[..]: Invalid value", "data[a/b]: Invalid value", "data[bad key]: Invalid value"}
	if got := fieldsOf(errs); !slices.Equal(got, want) {
		t.Errorf("errors = %q, want %q (sorted by key)", got, want)
	}
}

func TestEqual(t *testing.T) {
	if !StringDataEqual(nil, map[string]string{}) || StringDataEqual(map[string]string{"a": ""}, nil) {
		t.Errorf("StringDataEqual wrong")
	}
	if !BinaryDataEqual(map[string][]byte{"a": nil}, map[string][]byte{"a": {}}) || BinaryDataEqual(map[string][]byte{"a": {1}}, nil) {
		t.Errorf("BinaryDataEqual wrong")
	}
}

func TestImmutableUpdate(t *testing.T) {
	tests := []struct {
		name     string
		new, old *bool
		changed  map[string]bool
		want     []string
	}{
		{"mutable", nil, ptr.To(false), map[string]bool{"data": true}, []string{}},
		{"becomes immutable", ptr.To(true), nil, map[string]bool{"data": true}, []string{}},
		{"immutable unchanged", ptr.To(true), ptr.To(true), map[string]bool{"data": false}, []string{}},
		{"immutable changed", ptr.To(true), ptr.To(true), map[string]bool{"data": true, "binaryData": true},
			[]string{"binaryData: Forbidden", "data: Forbidden"}},
		{"flag cleared", nil, ptr.To(true), nil, []string{"immutable: Forbidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := fieldsOf(ImmutableUpdate(tc.new, tc.old, tc.changed)); !slices.Equal(got, tc.want) {
				t.Errorf("errors = %q, want %q", got, tc.want)
			}
		})
	}
}
