package plain

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFold(t *testing.T) {
	tests := []struct {
		name  string
		line  string
		width int
		want  string
	}{
		{"fits", "short line", 80, "short line"},
		{"at spaces, under the text", "  In kube-apiserver: pkg/registry/apps/rest/storage_apps.go StorageProvider.NewRESTStorage", 40,
			"  In kube-apiserver:\n      pkg/registry/apps/rest/storage_apps.go\n      StorageProvider.NewRESTStorage"},
		{"a source line continues under its code", "   76 │             obj, ok := newObject(typ) // a long comment here", 40,
			"   76 │             obj, ok :=\n        newObject(typ) // a long comment\n        here"},
		{"a long word stays whole", "  export KUBECONFIG=/home/someone/.local/state/kubewalk/kubeconfig", 30,
			"  export\n      KUBECONFIG=/home/someone/.local/state/kubewalk/kubeconfig"},
		{"a word alone is left as is", "/a/very/long/path/without/any/space/at/all", 10, "/a/very/long/path/without/any/space/at/all"},
		{"CJK breaks between characters", "服务器在这里暂停，等待你按下空格键继续运行到下一个检查点", 20,
			"服务器在这里暂停，等\n    待你按下空格键继\n    续运行到下一个检\n    查点"},
		{"CJK punctuation never starts a line", "服务器在这里暂停等，待", 18, "服务器在这里暂停\n    等，待"},
		{"a table row breaks at its column gap", "    → authorization   allowed    rbac: allowed by RoleBinding x", 36,
			"    → authorization   allowed\n        rbac: allowed by RoleBinding\n        x"},
		{"a lane row continues under its detail", "        → authentication  ok         token: bob (groups system:authenticated)  9µs", 80,
			"        → authentication  ok         token: bob (groups system:authenticated)\n                                     9µs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := fold(tt.line, tt.width)
			if got != tt.want {
				t.Errorf("fold(%q, %d) =\n%s\nwant\n%s", tt.line, tt.width, got, tt.want)
			}
			for _, l := range strings.Split(got, "\n") {
				if ansi.StringWidth(l) > tt.width && strings.Contains(strings.TrimSpace(l), " ") {
					t.Errorf("line %q is wider than %d and could have been broken", l, tt.width)
				}
			}
			if strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(tt.line), " ") && !strings.ContainsFunc(tt.line, func(r rune) bool { return r > 0x2e80 }) {
				t.Errorf("folding changed the words: %q", got)
			}
		})
	}
}

// TestFoldWriter: complete lines are folded, a prompt written without a line ending goes
// out at once and the answer's echo after it is not re-wrapped.
func TestFoldWriter(t *testing.T) {
	var buf bytes.Buffer
	w := newFoldWriter(&buf, 20)
	write := func(s string) {
		t.Helper()
		if n, err := w.Write([]byte(s)); err != nil || n != len(s) {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	write("one two three four five six\nshort\n")
	// Folded the same whether a line comes in one write or in pieces.
	if got, want := buf.String(), "one two three four\n    five six\nshort\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	buf.Reset()
	w = newFoldWriter(&buf, 24)
	write("Enter: next step, q: quit ")
	if got := buf.String(); got != "Enter: next step, q:\n    quit " {
		t.Errorf("the prompt was held, or leaves no room for the answer: %q", got)
	}
	write("\nnext\n")
	if got := buf.String(); got != "Enter: next step, q:\n    quit \nnext\n" {
		t.Errorf("after the prompt: %q", got)
	}
}

// TestTerminalWidthNotATerminal: without a terminal, $COLUMNS decides when it is a positive
// number (narrow ones clamp to minWidth); anything else gives DefaultWidth.
func TestTerminalWidthNotATerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "transcript")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tc := range []struct {
		columns string
		want    int
	}{
		{"", DefaultWidth},
		{"72", 72},
		{" 132 ", 132},
		{"5", minWidth},
		{"0", DefaultWidth},
		{"-3", DefaultWidth},
		{"wide", DefaultWidth},
	} {
		env := func(k string) string {
			if k == "COLUMNS" {
				return tc.columns
			}
			return ""
		}
		if got := TerminalWidth(f, env); got != tc.want {
			t.Errorf("COLUMNS=%q: width %d, want %d", tc.columns, got, tc.want)
		}
	}
	if got := TerminalWidth(nil, nil); got != DefaultWidth {
		t.Errorf("no file, no environment: %d", got)
	}
}
