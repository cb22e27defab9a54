package highlight

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/kubewalk/kubewalk/content"
	"github.com/kubewalk/kubewalk/server"
)

// goSources are Go files to tokenise: kubewalk's server (what the source pane shows first),
// a few of the standard library's and snippets with what is rare in those.
func goSources(t *testing.T) map[string]string {
	t.Helper()
	srcs := map[string]string{
		"raw string template": "package p\n\nvar t = `{{ range .Items }}{{ .Name | printf \"%q\" }}{{ end }}`\n",
		"numbers":             "package p\n\nvar a, b, c, d, e = 0x1F, 0o17, 017, 1e3, 2.5i + .5i\nvar r = '\\x41'\n",
		"builtins":            "package p\n\nfunc f(s []any) int { return len(s) + cap(s) + min(1, 2) }\nvar e error = nil\n",
		"comments":            "//go:build linux\n\n/* block\n comment */\npackage p // trailing\n",
		"unterminated":        "package p\n\nvar s = `never closed\n",
	}
	err := fs.WalkDir(server.SourceFS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".go" {
			return err
		}
		b, err := fs.ReadFile(server.SourceFS, path)
		srcs["server/"+path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fmt/print.go", "text/template/exec.go", "math/cmplx/sqrt.go"} {
		b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", f))
		if err != nil {
			t.Fatal(err)
		}
		srcs["GOROOT/"+f] = string(b)
	}
	return srcs
}

// TestSameAsChroma: the Go lexer gives chroma's own Go lexer's tokens, so the source pane and
// lesson code blocks are coloured as before.
func TestSameAsChroma(t *testing.T) {
	srcs := goSources(t)
	if len(srcs) < 15 {
		t.Fatal("too few Go sources: is server.SourceFS empty?")
	}
	for name, src := range srcs {
		sameTokens(t, name, chroma.Coalesce(Go()), chroma.Coalesce(lexers.Get("go")), src)
	}
}

// sameTokens fails t unless ours and theirs tokenise text the same. chroma gives each regular
// expression match 250 ms and emits an Error token when one takes longer, which a loaded
// machine under -race can make happen to either side: a difference involving an Error token
// is retried (three times at most).
func sameTokens(t *testing.T, name string, ours, theirs chroma.Lexer, text string) {
	t.Helper()
	for try := 1; ; try++ {
		want, err := chroma.Tokenise(theirs, nil, text)
		if err != nil {
			t.Fatalf("%s: chroma: %v", name, err)
		}
		got, err := chroma.Tokenise(ours, nil, text)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if reflect.DeepEqual(got, want) {
			return
		}
		if try < 3 && (hasError(got) || hasError(want)) {
			continue
		}
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Errorf("%s: token %d is %v, chroma's is %v", name, i, got[i], want[i])
				break
			}
		}
		t.Errorf("%s: %d tokens, chroma's lexer gives %d", name, len(got), len(want))
		return
	}
}

// hasError reports whether a lexer gave up on part of the text (chroma.Error).
func hasError(toks []chroma.Token) bool {
	for _, tok := range toks {
		if tok.Type == chroma.Error {
			return true
		}
	}
	return false
}

// TestResolve: Get and Analyse pick what chroma's registry picks for Go and for text no lexer
// claims.
func TestResolve(t *testing.T) {
	tests := []struct {
		lang, text string
		want       string // the lexer's name, "" for nil
	}{
		{"go", "", "Go"},
		{"Go", "", "Go"},
		{"golang", "", "Go"},
		{"GOLANG", "", "Go"},
		{"main.go", "", "Go"},
		{"", "package main\n\nimport \"fmt\"\nfunc main() { fmt.Println() }\n", "Go"},
		{"", "package p\n", "Go"},
		{"", "kubectl get pods -A\n", ""},
		{"", "", ""},
	}
	name := func(l chroma.Lexer) string {
		if l == nil {
			return ""
		}
		return l.Config().Name
	}
	for _, tt := range tests {
		got := Get(tt.lang)
		theirs := lexers.Get(tt.lang)
		if tt.lang == "" {
			got, theirs = Analyse(tt.text), lexers.Analyse(tt.text)
		}
		if name(got) != tt.want || name(theirs) != tt.want {
			t.Errorf("lang %q text %q: got %q, chroma %q, want %q", tt.lang, tt.text, name(got), name(theirs), tt.want)
		}
	}
}

// TestFallbackStyle: FallbackStyle is chroma's styles.Fallback.
func TestFallbackStyle(t *testing.T) {
	got, want := FallbackStyle(), styles.Fallback
	if got.Name != want.Name {
		t.Fatalf("name %q, want %q", got.Name, want.Name)
	}
	for _, tt := range append(want.Types(), chroma.Keyword, chroma.NameFunction, chroma.LiteralString) {
		if g, w := got.Get(tt), want.Get(tt); g != w {
			t.Errorf("%v: %v, want %v", tt, g, w)
		}
	}
}

// analyseTexts are texts for each analyser chroma has, and for none.
var analyseTexts = []string{
	"#!/bin/bash\necho hi\n",
	"#!/usr/bin/env nu\nls | where size > 1kb\n",
	"#include <stdio.h>\nint main(void) { return 0; }\n",
	"#include <iostream>\nusing namespace std;\nclass A {};\n",
	"@ IN SOA ns1.example.com. admin.example.com. ( 1 2 3 4 5 )\n",
	"<%= user.name %>\n",
	"<% if x %>y<% end %>\n",
	"extends Node\nfunc _ready():\n\tpass\n",
	"func foo():\n\tvar x = 1\n",
	"SELECT `id`, `name` FROM `users`;\n",
	"SELECT [id] FROM [users] WHERE `a`;\n",
	"**FREE\nDCL-S x INT(10);\n",
	"package main\n\ntempl Hello(name string) {\n\t<div>{ name }</div>\n}\n",
	"definition user {}\ndefinition doc { relation viewer: user\n permission view = viewer }\n",
	"<?php echo 'hi'; ?>\n",
	"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n",
	"go tool deepcopy-gen --output-file zz_generated.deepcopy.go ./...\n",
	"kubectl get pods -A\n",
	"",
}

// TestAnalyseSameAsChroma: Analyse weighs a text as chroma's registry does and picks the
// same lexer.
func TestAnalyseSameAsChroma(t *testing.T) {
	for _, text := range analyseTexts {
		want := ""
		if l := lexers.Analyse(text); l != nil {
			want = l.Config().Name
		}
		if got := AnalyseName(text); got != want {
			t.Errorf("%q: Analyse picks %q, chroma %q", text, got, want)
		}
		if l := Analyse(text); l != nil && l.Config().Name != want {
			t.Errorf("%q: Analyse's lexer is %q, chroma's %q", text, l.Config().Name, want)
		}
	}
}

// TestLexersSameAsChroma: every lexer this package has tokenises the texts as chroma's lexer of
// that name does.
func TestLexersSameAsChroma(t *testing.T) {
	for _, a := range builtin().analysers {
		if a.lexer == nil {
			continue
		}
		theirs := lexers.Get(a.name)
		if theirs == nil {
			t.Fatalf("chroma has no lexer %q", a.name)
		}
		for _, text := range analyseTexts {
			sameTokens(t, a.name, chroma.Coalesce(a.lexer), chroma.Coalesce(theirs), text)
		}
	}
}

// TestLessonCodeBlocks: every fenced code block of every lesson gets the lexer chroma gives it
// (by its language, else by analysis), and this package has that lexer. When this fails, copy
// the lexer from chroma (lexers/embedded) into lexers/ and register it in builtin.
func TestLessonCodeBlocks(t *testing.T) {
	n := 0
	err := fs.WalkDir(content.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		b, err := fs.ReadFile(content.FS, path)
		if err != nil {
			return err
		}
		for _, blk := range fencedBlocks(string(b)) {
			n++
			theirs := lexers.Get(blk.lang)
			if theirs == nil {
				theirs = lexers.Analyse(blk.code)
			}
			ours := Get(blk.lang)
			if ours == nil {
				ours = Analyse(blk.code)
			}
			if theirs == nil {
				if ours != nil || (blk.lang == "" && AnalyseName(blk.code) != "") {
					t.Errorf("%s: block %q: chroma shows it as plain text, this package with %v", path, blk.code, ours)
				}
				continue
			}
			if ours == nil || ours.Config().Name != theirs.Config().Name {
				t.Errorf("%s: block %q (language %q): chroma highlights it as %s, this package does not have that lexer", path, blk.code, blk.lang, theirs.Config().Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no code blocks found in the lessons")
	}
}

type block struct{ lang, code string }

// fencedBlocks are the ``` and ~~~ fenced code blocks of a Markdown text.
func fencedBlocks(md string) []block {
	var out []block
	fence, lang := "", ""
	var code []string
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimLeft(line, " ")
		switch {
		case fence == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence, lang, code = t[:3], strings.TrimSpace(t[3:]), nil
		case fence != "" && strings.HasPrefix(t, fence):
			out = append(out, block{lang, strings.Join(code, "\n") + "\n"})
			fence = ""
		case fence != "":
			code = append(code, line)
		}
	}
	return out
}
