package i18n

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/content"
)

// chineseLine is one piece of Chinese prose kubewalk shows, with where it comes from.
type chineseLine struct {
	file  string // a repository path: content/zh-CN/02-authn.md, runtime/i18n/zh_cn.go
	line  int
	text  string
	field string // in an exercises file, "<exercise id> <field>": "authn-bad-token hints"
}

// pendingFields are exercise texts another change owns while this one lands, keyed by file
// and field: their findings are logged, not failed. The test fails on an entry that has no
// findings left, so that it is removed the moment those texts follow the glossary.
var pendingFields = map[string][]string{}

// TestGlossaryContract holds every Chinese text kubewalk shows to the glossary: the zh-CN
// lessons (titles and step texts), the zh-CN exercises (every text) and the zh catalogue. A
// rejected variant of a glossary term, a stray space between CJK characters, or a request
// stage called a phase fails, naming the file and line.
func TestGlossaryContract(t *testing.T) {
	terms, err := Glossary()
	if err != nil {
		t.Fatal(err)
	}
	lines, err := chineseTexts()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < 500 {
		t.Fatalf("found only %d Chinese texts to check: the scan lost its way", len(lines))
	}
	c := NewTermChecker(terms)
	pendingHits := map[string]int{}
	for _, l := range lines {
		for _, f := range c.Check(l.text) {
			msg := fmt.Sprintf("%s:%d: %s\n\t%s", l.file, l.line, f.Msg, excerpt(l.text, f.Col))
			if slices.Contains(pendingFields[l.file], l.field) {
				pendingHits[l.file+" "+l.field]++
				t.Logf("pending (%s): %s", l.field, msg)
				continue
			}
			t.Error(msg)
		}
	}
	for file, fields := range pendingFields {
		for _, f := range fields {
			if pendingHits[file+" "+f] == 0 {
				t.Errorf("pendingFields: %s %s follows the glossary now: remove the entry", file, f)
			}
		}
	}
}

// excerpt is the text around rune col, with the place marked.
func excerpt(text string, col int) string {
	rs := []rune(text)
	lo, hi := max(0, col-20), min(len(rs), col+24)
	return "…" + string(rs[lo:col]) + "⟨" + string(rs[col:hi]) + "…"
}

// chineseTexts collects the Chinese prose of content/zh-CN and the zh catalogue.
func chineseTexts() ([]chineseLine, error) {
	var out []chineseLine
	names, err := fs.Glob(content.FS, "zh-CN/*")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		data, err := fs.ReadFile(content.FS, name)
		if err != nil {
			return nil, err
		}
		file := path.Join("content", name)
		switch {
		case path.Base(name) == "README.md": // the translators' notes, which quote the variants
		case strings.HasSuffix(name, ".exercises.yaml"):
			out = append(out, yamlTexts(file, string(data))...)
		case strings.HasSuffix(name, ".md"):
			out = append(out, markdownTexts(file, string(data))...)
		}
	}
	cat, err := catalogueTexts("zh_cn.go")
	if err != nil {
		return nil, err
	}
	return append(out, cat...), nil
}

var (
	frontTitle = regexp.MustCompile(`^\s*(?:- )?title:\s*(.*)$`)
	fence      = regexp.MustCompile("^ {0,3}(```|~~~)")
	stepHead   = regexp.MustCompile(`^## `)
)

// markdownTexts returns a lesson's prose lines: the titles of its front matter and the body
// outside code blocks, without the "## <step id>" headings (ids stay English).
func markdownTexts(file, md string) []chineseLine {
	var out []chineseLine
	inFront, inFence := false, false
	for i, l := range strings.Split(md, "\n") {
		n := i + 1
		switch {
		case n == 1 && l == "---":
			inFront = true
		case inFront && l == "---":
			inFront = false
		case inFront:
			if m := frontTitle.FindStringSubmatch(l); m != nil {
				out = append(out, chineseLine{file: file, line: n, text: m[1]})
			}
		case fence.MatchString(l):
			inFence = !inFence
		case inFence, stepHead.MatchString(l):
		default:
			out = append(out, chineseLine{file: file, line: n, text: l})
		}
	}
	return out
}

var yamlKey = regexp.MustCompile(`^\s*(?:- )?([a-z]+):\s*(.*)$`)

// yamlTexts returns the texts of a translation's exercises file, which holds nothing else: every
// title, goal, hint, choice and why, and the comments; not the ids.
func yamlTexts(file, y string) []chineseLine {
	var out []chineseLine
	id, key := "", ""
	for i, l := range strings.Split(y, "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(l)
		if m := yamlKey.FindStringSubmatch(l); m != nil {
			key = m[1]
			if m[1] == "id" {
				id = m[2]
				continue
			}
			if m[2] == "" {
				continue
			}
			trimmed = m[2]
		}
		trimmed = strings.TrimPrefix(trimmed, "- ")
		if s, err := strconv.Unquote(trimmed); err == nil {
			trimmed = s
		}
		if trimmed != "" {
			out = append(out, chineseLine{file, n, trimmed, id + " " + key})
		}
	}
	return out
}

// catalogueTexts returns every string of the zhCN map literal in the Go file name.
func catalogueTexts(name string) ([]chineseLine, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		return nil, err
	}
	var out []chineseLine
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		lit, ok := kv.Value.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		out = append(out, chineseLine{file: path.Join("runtime/i18n", name), line: fset.Position(lit.Pos()).Line, text: s})
		return true
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no catalogue strings", name)
	}
	return out, nil
}
