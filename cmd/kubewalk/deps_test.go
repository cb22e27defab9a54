package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLeanInit: packages whose initialisation is slow and which only some runs need are not
// linked into kubewalk, since Go runs every linked package's init before main whatever the
// command (see docs/performance.md, "Package initialisation").
func TestLeanInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/kubewalk/kubewalk/runtime/tui"] {
		t.Fatalf("go list -deps does not list runtime/tui: %q…", out[:min(len(out), 200)])
	}
	tests := []struct {
		pkg, why string
	}{
		{"github.com/alecthomas/chroma/v2/lexers", "registers ~300 lexers, parsing their XML, at init; use runtime/tui/internal/highlight"},
		{"github.com/alecthomas/chroma/v2/styles", "parses ~70 styles at init"},
		{"github.com/alecthomas/chroma/v2/quick", "links chroma's lexers and styles"},
		{"github.com/charmbracelet/glamour/ansi", "highlights with chroma's quick; use runtime/tui/internal/glamour"},
		{"github.com/yuin/goldmark/extension", "compiles Linkify's URL expressions at init (~4 ms); use runtime/tui/internal/glamour/internal/extension"},
		{"github.com/microcosm-cc/bluemonday", "links a CSS parser whose package variables cost ~4 ms at init; glamour's copy strips HTML with ansi/strip.go"},
		{"github.com/microcosm-cc/bluemonday/css", "builds its CSS property tables at init"},
		{"github.com/gorilla/css/scanner", "compiles its token expressions at init (bluemonday's CSS parser)"},
	}
	for _, tt := range tests {
		if deps[tt.pkg] {
			t.Errorf("kubewalk links %s, which %s", tt.pkg, tt.why)
		}
	}
}
