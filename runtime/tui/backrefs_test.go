package tui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// shared are the package's struct types that are not a view's state: the styles every view
// reads, an error value.
var shared = map[string]bool{"Styles": true, "MissingModuleError": true}

// maxBackRefs is the ceiling TestBackReferences holds the root model to (issue 18). Lower it
// as views move into their own packages; never raise it.
const maxBackRefs = 2

// backRefs counts the root model's back references in the package's non-test files of dir: a
// selector m.X.f inside a method of *model where X is a model field holding a pointer to a
// struct declared in the package (a view or pane: rq, kc, ev, ex, source, cls, …) and f is one
// of that struct's fields, not a method. Each is the root reaching into a view's state instead
// of asking it. It returns the total, a count per view field, and the model's field count.
func backRefs(t testing.TB, dir string) (total int, per map[string]int, modelFields int) {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
	}
	// struct type name → its field names (embedded fields' promoted fields included)
	structs := map[string]*ast.StructType{}
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					structs[ts.Name.Name] = st
				}
			}
			return true
		})
	}
	var fieldsOf func(name string, seen map[string]bool) map[string]bool
	fieldsOf = func(name string, seen map[string]bool) map[string]bool {
		out := map[string]bool{}
		st, ok := structs[name]
		if !ok || seen[name] {
			return out
		}
		seen[name] = true
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 { // embedded: its fields are promoted
				typ := f.Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					out[id.Name] = true
					for k := range fieldsOf(id.Name, seen) {
						out[k] = true
					}
				}
				continue
			}
			for _, n := range f.Names {
				out[n.Name] = true
			}
		}
		return out
	}
	// model field → the view struct it points to
	views := map[string]map[string]bool{}
	for _, f := range structs["model"].Fields.List {
		modelFields += max(len(f.Names), 1)
		s, ok := f.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		id, ok := s.X.(*ast.Ident)
		if !ok {
			continue
		}
		if _, ok := structs[id.Name]; !ok || shared[id.Name] {
			continue
		}
		for _, n := range f.Names {
			views[n.Name] = fieldsOf(id.Name, map[string]bool{})
		}
	}
	per = map[string]int{}
	for _, af := range parsed {
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil || len(fd.Recv.List[0].Names) == 0 {
				continue
			}
			s, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			if id, ok := s.X.(*ast.Ident); !ok || id.Name != "model" {
				continue
			}
			recv := fd.Recv.List[0].Names[0].Name
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				outer, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				inner, ok := outer.X.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := inner.X.(*ast.Ident); !ok || id.Name != recv {
					return true
				}
				if fields, ok := views[inner.Sel.Name]; ok && fields[outer.Sel.Name] {
					total++
					per[inner.Sel.Name]++
				}
				return true
			})
		}
	}
	return total, per, modelFields
}

// TestBackReferences holds the root model's back references (see backRefs) under maxBackRefs,
// and logs them per view (go test -run TestBackReferences -v).
func TestBackReferences(t *testing.T) {
	total, per, fields := backRefs(t, ".")
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return per[names[i]] > per[names[j]] })
	var b strings.Builder
	for _, n := range names {
		b.WriteString(" m." + n + ":" + strconv.Itoa(per[n]))
	}
	src, err := os.ReadFile("model.go")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("back references: %d (%s); model fields: %d; model.go lines: %d", total, strings.TrimSpace(b.String()), fields, strings.Count(string(src), "\n"))
	if total > maxBackRefs {
		t.Errorf("the root model reaches into its views' fields %d times, more than the ceiling of %d: ask the view (a method, a message) instead", total, maxBackRefs)
	}
	if total == 0 {
		t.Error("no back references counted: the counter no longer sees the model's methods")
	}
}
