package lessons

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/kubewalk/kubewalk/content"
)

// nameModules are the modules whose source a lesson's prose may name Go identifiers and files
// from, besides kubewalk itself and k8s.io/kubernetes: the pinned versions go.mod requires.
var nameModules = []string{
	"k8s.io/apiserver", "k8s.io/apimachinery", "k8s.io/api", "k8s.io/client-go", "k8s.io/kubectl",
	"k8s.io/component-base", "k8s.io/code-generator", "k8s.io/kube-openapi", "k8s.io/cli-runtime",
	"k8s.io/apiextensions-apiserver", "k8s.io/kube-aggregator",
}

// TestProseNamesDeclared reads every code span of the lessons (English; a translation's spans
// must equal them) and of the exercises (every language), and checks that each one that names
// a Go identifier — a call such as `Complete()`, a qualified name such as
// `discovery.NewAPIVersionHandler`, a method such as `(*ExecREST).Connect` or a camel-case name
// such as `emulatedStorageVersion` — is declared (or written as a string, as plugin and feature
// gate names are) in kubewalk's source, in one of nameModules at its pinned version, or in
// k8s.io/kubernetes v1.37.2; and that each Go file it names (`storage_factory.go`) exists there.
// The front matter's anchor:, upstream: and kube: fields say exactly where a symbol is and are
// checked by TestContent; this catches the names the prose adds, such as a function that was
// renamed since the article was written. The article lesson's column "the article" quotes the
// old names and is not checked.
func TestProseNamesDeclared(t *testing.T) {
	roots := []string{".."} // the repository: server/ and kubewalk's own tests
	for _, m := range nameModules {
		dir, _, err := ModuleDir(m)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, dir)
	}
	kube := kubeSource(t)
	for _, d := range []string{"pkg", "cmd", "plugin"} {
		roots = append(roots, filepath.Join(kube, d))
	}
	idx, err := indexNames(roots)
	if err != nil {
		t.Fatal(err)
	}
	spans, err := proseSpans(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range spans {
		names, file := goNamesIn(s.code)
		if file != "" {
			checked++
			if !idx.files[file] {
				t.Errorf("%s:%d: `%s` names %s, a Go file found in none of kubewalk, %s or k8s.io/kubernetes %s",
					s.file, s.line, s.code, file, strings.Join(nameModules, ", "), KubeVersion)
			}
		}
		for _, n := range names {
			checked++
			if idx.names[n] {
				continue
			}
			msg := fmt.Sprintf("%s:%d: `%s` names %s, declared in none of kubewalk, %s or k8s.io/kubernetes %s",
				s.file, s.line, s.code, n, strings.Join(nameModules, ", "), KubeVersion)
			if near := suggest(n, idx.near(n)); len(near) > 0 {
				msg += " (did you mean " + quoteList(near) + "?)"
			}
			t.Error(msg)
		}
	}
	if checked < 300 {
		t.Errorf("checked only %d names in the lessons' code spans: the scan lost its way", checked)
	}
}

// TestGoNamesIn: which code spans name Go identifiers, and which names.
func TestGoNamesIn(t *testing.T) {
	for _, tt := range []struct {
		code  string
		names []string
		file  string
	}{
		{code: "Complete()", names: []string{"Complete"}},
		{code: "s.Complete(ctx)", names: []string{"Complete"}},
		{code: "discovery.NewAPIVersionHandler", names: []string{"NewAPIVersionHandler"}},
		{code: "*v1.ConfigMap", names: []string{"ConfigMap"}},
		{code: "ObjectKinds(*v1.ConfigMap)", names: []string{"ObjectKinds"}},
		{code: "(*ExecREST).Connect", names: []string{"ExecREST", "Connect"}},
		{code: "k8s.io/apiserver/pkg/server.(*GenericAPIServer).installAPIResources", names: []string{"GenericAPIServer", "installAPIResources"}},
		{code: "emulatedStorageVersion", names: []string{"emulatedStorageVersion"}},
		{code: "SkipHealthEndpoints", names: []string{"SkipHealthEndpoints"}},
		{code: "storage_factory.go", file: "storage_factory.go"},
		{code: "zz_generated.*.go"},
		{code: "pkg/apis/<group>/install/install.go"},
		{code: "Pending"},
		{code: "CN"},
		{code: "spec.replicas"},
		{code: "metadata.resourceVersion"},
		{code: "learn.kubewalk.io"},
		{code: "kubectl get cm"},
		{code: "v1alpha1"},
		{code: "Accept: application/json"},
		{code: "--output-file"},
		{code: "k8s\\x00"},
	} {
		names, file := goNamesIn(tt.code)
		if !slices.Equal(names, tt.names) || file != tt.file {
			t.Errorf("goNamesIn(%q) = %q, %q; want %q, %q", tt.code, names, file, tt.names, tt.file)
		}
	}
}

var (
	identPath = regexp.MustCompile(`^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$`)
	receiver  = regexp.MustCompile(`^(?:[\w./-]+\.)?\(\*?([A-Za-z_]\w*)\)\.([A-Za-z_]\w*)$`)
	goFile    = regexp.MustCompile(`(^|/)([\w.-]+\.go)$`)
)

// goNamesIn returns the Go identifiers a code span names, and the Go file it names (its base
// name), if it names any; see TestProseNamesDeclared.
func goNamesIn(code string) (names []string, file string) {
	code = strings.TrimSpace(code)
	if m := goFile.FindStringSubmatch(code); m != nil {
		if strings.ContainsAny(code, "<>*{} ") {
			return nil, ""
		}
		return nil, m[2]
	}
	called := false
	if i := strings.IndexByte(code, '('); i > 0 && strings.HasSuffix(code, ")") && code[i-1] != '.' {
		code, called = code[:i], true
	}
	code = strings.TrimLeft(code, "*&")
	if m := receiver.FindStringSubmatch(code); m != nil {
		return []string{m[1], m[2]}, ""
	}
	if !identPath.MatchString(code) {
		return nil, ""
	}
	parts := strings.Split(code, ".")
	last := parts[len(parts)-1]
	switch {
	case called:
	case len(parts) > 1 && unicode.IsUpper(rune(last[0])):
	case len(parts) == 1 && camel(last):
	default:
		return nil, ""
	}
	return []string{last}, ""
}

// camel reports whether s is a camel-case identifier of at least two words: a lower-case
// letter, and an upper-case letter that is not its first (storageMediaTypeOf, ConfigMap).
func camel(s string) bool {
	lower, innerUpper := false, false
	for i, r := range s {
		lower = lower || unicode.IsLower(r)
		innerUpper = innerUpper || (i > 0 && unicode.IsUpper(r))
	}
	return lower && innerUpper
}

// proseSpan is one code span of a lesson or exercise text, and where it is.
type proseSpan struct {
	file string // content/en/02-authn.md
	line int
	code string
}

var codeSpan = regexp.MustCompile("`([^`\n]+)`")

// proseSpans returns the code spans of the English lessons (outside front matter and code
// blocks) and of every language's exercise files.
func proseSpans(fsys fs.FS) ([]proseSpan, error) {
	var out []proseSpan
	names, err := fs.Glob(fsys, "*/*")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		isLesson := strings.HasPrefix(name, DefaultLang+"/") && strings.HasSuffix(name, ".md") && !strings.HasSuffix(name, "README.md")
		if !isLesson && !strings.HasSuffix(name, ExercisesSuffix) {
			continue
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		inFront, inFence := false, false
		var header []string // the header cells of the Markdown table being read
		for i, l := range strings.Split(string(data), "\n") {
			switch {
			case isLesson && i == 0 && l == "---":
				inFront = true
				continue
			case inFront:
				inFront = l != "---"
				continue
			case strings.HasPrefix(strings.TrimSpace(l), "```"):
				inFence = !inFence
				continue
			case inFence:
				continue
			}
			if !isLesson { // a YAML text: undo the escaping of a double-quoted scalar
				if _, v, ok := strings.Cut(l, ": "); ok && !strings.HasPrefix(strings.TrimSpace(l), "- ") {
					l = v
				}
				l = strings.TrimPrefix(strings.TrimSpace(l), "- ")
				if u, err := strconv.Unquote(l); err == nil {
					l = u
				}
			}
			if isLesson && strings.HasPrefix(l, "|") {
				// A table column headed "the article" quotes the seed article's names as it
				// wrote them: names that are gone are the point there.
				cells := strings.Split(strings.Trim(l, "| "), " | ")
				if header == nil {
					header = slices.Clone(cells)
				}
				for j := range cells {
					if j < len(header) && header[j] == "the article" {
						cells[j] = ""
					}
				}
				l = strings.Join(cells, " | ")
			} else {
				header = nil
			}
			for _, m := range codeSpan.FindAllStringSubmatch(l, -1) {
				out = append(out, proseSpan{file: path.Join("content", name), line: i + 1, code: m[1]})
			}
		}
	}
	return out, nil
}

// nameIndex is every identifier declared in a set of Go source trees — funcs, methods, types,
// struct fields, interface methods, vars and consts — with every identifier-like string
// literal, and the base names of their Go files.
type nameIndex struct {
	names map[string]bool
	files map[string]bool
}

// near returns the indexed names that share s's first letter, for suggestions.
func (x nameIndex) near(s string) []string {
	var out []string
	for n := range x.names {
		if n != "" && s != "" && strings.EqualFold(n[:1], s[:1]) && abs(len(n)-len(s)) <= 3 {
			out = append(out, n)
		}
	}
	return out
}

func abs(n int) int { return max(n, -n) }

var identLit = regexp.MustCompile(`^[A-Za-z_][\w]*$`)

// indexNames parses every Go file under roots (tests too, since a lesson may name one; vendor,
// testdata and hidden directories excluded), two files at a time.
func indexNames(roots []string) (nameIndex, error) {
	idx := nameIndex{names: map[string]bool{}, files: map[string]bool{}}
	var paths []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); p != root && (n == "vendor" || n == "testdata" || strings.HasPrefix(n, ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".go") {
				paths = append(paths, p)
				idx.files[filepath.Base(p)] = true
			}
			return nil
		})
		if err != nil {
			return idx, fmt.Errorf("index %s: %w", root, err)
		}
	}
	work := make(chan string)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[string]bool{}
			for p := range work {
				src, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				f, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution)
				if err != nil {
					continue // a file for another platform or Go version the parser rejects
				}
				declaredNames(f, local)
			}
			mu.Lock()
			for n := range local {
				idx.names[n] = true
			}
			mu.Unlock()
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	return idx, nil
}

// declaredNames adds to names what f declares at package level, the fields and methods of its
// types, and its identifier-like string literals.
func declaredNames(f *ast.File, names map[string]bool) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			names[d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			for _, id := range n.Names {
				names[id.Name] = true
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil && identLit.MatchString(s) {
					names[s] = true
				}
			}
		}
		return true
	})
}
