package kubectl_test

import (
	"reflect"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

func TestHistoryAdd(t *testing.T) {
	tests := []struct {
		name string
		max  int
		add  []string
		want []string
	}{
		{"empty", 3, nil, nil},
		{"keeps order", 3, []string{"a", "b"}, []string{"a", "b"}},
		{"bounded, oldest first out", 3, []string{"a", "b", "c", "d", "e"}, []string{"c", "d", "e"}},
		{"consecutive repeats once", 5, []string{"a", "a", "b", "b", "a"}, []string{"a", "b", "a"}},
		{"blank lines dropped, blanks trimmed", 5, []string{"", "  ", " get cm ", "get cm"}, []string{"get cm"}},
		{"max below 1 keeps one", 0, []string{"a", "b"}, []string{"b"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := kubectl.NewHistory(tc.max)
			for _, l := range tc.add {
				h.Add(l)
			}
			if got := h.Entries(); !reflect.DeepEqual(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
				t.Errorf("Entries() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestHistoryBrowse(t *testing.T) {
	h := kubectl.NewHistory(10)
	if got, ok := h.Prev("typed"); ok || got != "typed" {
		t.Fatalf("Prev on empty history = %q, %v; want the current line, false", got, ok)
	}
	for _, l := range []string{"get cm", "get ns", "auth can-i get cm"} {
		h.Add(l)
	}
	steps := []struct {
		key  string // "up" or "down"
		cur  string
		want string
		ok   bool
	}{
		{"down", "draft", "draft", false}, // not browsing: nothing below
		{"up", "draft", "auth can-i get cm", true},
		{"up", "", "get ns", true},
		{"up", "", "get cm", true},
		{"up", "", "get cm", true}, // stays at the oldest
		{"down", "", "get ns", true},
		{"down", "", "auth can-i get cm", true},
		{"down", "", "draft", true}, // past the newest: the draft comes back
		{"down", "draft", "draft", false},
	}
	for i, s := range steps {
		var got string
		var ok bool
		if s.key == "up" {
			got, ok = h.Prev(s.cur)
		} else {
			got, ok = h.Next(s.cur)
		}
		if got != s.want || ok != s.ok {
			t.Fatalf("step %d (%s) = %q, %v; want %q, %v", i, s.key, got, ok, s.want, s.ok)
		}
	}
	// Adding while browsing stops browsing: up starts from the newest again.
	h.Prev("x")
	h.Add("get pods")
	if got, _ := h.Prev(""); got != "get pods" {
		t.Errorf("after Add, Prev = %q, want the new entry", got)
	}
}
