package source

import (
	"crypto/sha256"
	"io/fs"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/tui/common"

	"github.com/kubewalk/kubewalk/server"
)

// TestLexCache checks that the lexed-file cache returns what lexing returns, shared, and that
// PrewarmSource fills it with the server's phase files (and not its tests) so a later tokenise
// of one of them is a hit.
func TestLexCache(t *testing.T) {
	src := []byte("package x\n\nfunc f() {\n\treturn\n}\n")
	a, b := lex(src), lex(src)
	if a != b {
		t.Error("the same bytes lexed twice")
	}
	if len(a.plain) != 5 || len(a.tokens) != 5 || a.plain[3] != "    return" {
		t.Errorf("lexed %q with %d token lines", a.plain, len(a.tokens))
	}
	if c := lex(append(src, '\n')); c == a {
		t.Error("different bytes share an entry")
	}
	PrewarmSource()
	for _, tc := range []struct {
		file   string
		cached bool
	}{
		{"config.go", true},
		{"authz.go", true},
		{"serve.go", true},
		{"security_test.go", false},
	} {
		b, err := fs.ReadFile(server.SourceFS, tc.file)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := lexedCache.Load(sha256.Sum256(b)); ok != tc.cached {
			t.Errorf("%s cached %v after PrewarmSource, want %v", tc.file, ok, tc.cached)
		}
	}
	cfg, _ := fs.ReadFile(server.SourceFS, "config.go")
	f := tokenise(cfg, common.DefaultStyles())
	l := lex(cfg)
	if &f.plain[0] != &l.plain[0] || len(f.styled) != len(l.plain) {
		t.Error("tokenise did not use the cached lines")
	}
}
