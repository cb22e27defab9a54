package source

import (
	"crypto/sha256"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"

	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/internal/highlight"
	"github.com/kubewalk/kubewalk/server"
)

// srcFile is a tokenised file: plain lines (tabs expanded), their tokens and the lines
// rendered with the normal (not emphasised) token styles. It is built once per file, off the
// update loop, and never changed afterwards.
type srcFile struct {
	plain  []string
	tokens [][]chroma.Token
	styled []string
}

// lexed is a file split into plain lines and their tokens: what tokenise computes before it
// styles anything, and so the same whatever the theme, colour profile or language.
type lexed struct {
	plain  []string
	tokens [][]chroma.Token
}

// lexedCache keeps lexed files by the SHA-256 of their bytes, for the life of the process.
// Lexing is most of what the first screen costs (chroma's Go lexer: ~40 ms for a 900-line
// file), so a process that lexed the server's own files ahead (PrewarmSource) finds them here. Entries are never changed
// after they are stored, so the slices are shared read-only.
var lexedCache sync.Map // [sha256.Size]byte → *lexed

// lex returns src's lines and tokens, from the cache when src was lexed before.
func lex(src []byte) *lexed {
	key := sha256.Sum256(src)
	if l, ok := lexedCache.Load(key); ok {
		return l.(*lexed)
	}
	l := &lexed{plain: plainLines(src)}
	lexer := chroma.Coalesce(highlight.Go())
	it, err := lexer.Tokenise(nil, strings.Join(l.plain, "\n")+"\n")
	if err != nil {
		it = chroma.Literator(chroma.Token{Type: chroma.Text, Value: strings.Join(l.plain, "\n") + "\n"})
	}
	l.tokens = chroma.SplitTokensIntoLines(it.Tokens())
	// SplitTokensIntoLines yields one slice per line; keep tokens and plain lines aligned.
	for len(l.tokens) < len(l.plain) {
		l.tokens = append(l.tokens, nil)
	}
	l.tokens = l.tokens[:len(l.plain)]
	got, _ := lexedCache.LoadOrStore(key, l)
	return got.(*lexed)
}

// PrewarmSource lexes kubewalk's own server files (server.SourceFS's top directory, where the
// startup phases are, tests left out) into the process's cache, so that a tour started later in
// this process shows its first source pane without lexing it. Class spares no longer call it
// (it kept ~4 MB in each waiting spare, docs/performance.md); it is safe to call at any time.
func PrewarmSource() {
	entries, err := fs.ReadDir(server.SourceFS, ".")
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".go" || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if b, err := fs.ReadFile(server.SourceFS, name); err == nil {
			lex(b)
		}
	}
}

// tokenise splits src into highlighted lines. It is slow for big files (tens of ms) unless
// they were lexed before (see lexedCache): call it from a tea.Cmd.
func tokenise(src []byte, st *common.Styles) *srcFile {
	l := lex(src)
	f := &srcFile{plain: l.plain, tokens: l.tokens}
	f.styled = make([]string, len(f.plain))
	for i, toks := range f.tokens {
		f.styled[i] = renderTokens(toks, st, false)
	}
	return f
}

// renderTokens styles one line's tokens.
func renderTokens(toks []chroma.Token, st *common.Styles, focus bool) string {
	var b strings.Builder
	for _, t := range toks {
		v := strings.TrimRight(t.Value, "\n")
		if v == "" {
			continue
		}
		if strings.TrimSpace(v) == "" && !focus {
			b.WriteString(v)
			continue
		}
		b.WriteString(st.Token(t.Type, focus).Render(v))
	}
	return b.String()
}

// plainLines splits source into lines with tabs expanded, as the pane shows them.
func plainLines(src []byte) []string {
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = expandTabs(l)
	}
	return lines
}

// expandTabs replaces tabs by spaces up to the next tab stop (common.ExpandTabs).
func expandTabs(s string) string { return common.ExpandTabs(s) }
