package lessons

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
)

// UpstreamModule is the module whose source the lessons' upstream symbols name.
const UpstreamModule = "k8s.io/apiserver"

// Location is where a symbol is declared.
type Location struct {
	// File is the declaring file: its path in the fs.FS for ResolveLocal, its slash-separated
	// path inside the module directory for ResolveUpstream.
	File string
	// StartLine and EndLine are the 1-based lines of the declaration, its doc comment included.
	StartLine, EndLine int
	// FocusStart and FocusEnd are the lines of the focus's first match; without a focus they
	// equal StartLine and EndLine.
	FocusStart, FocusEnd int
	// Source is the whole file (a copy the caller may keep).
	Source []byte
}

// Resolver finds Go symbols in source trees, parsing each package directory once.
// It is safe for concurrent use.
type Resolver struct {
	mu   sync.Mutex
	pkgs map[pkgKey][]*srcFile
}

// pkgKey identifies one parsed package directory; fsys is a comparable fs.FS value.
type pkgKey struct {
	fsys any
	dir  string
}

// srcFile is one parsed Go file.
type srcFile struct {
	name string // path in its fs.FS
	src  []byte
	fset *token.FileSet
	file *ast.File
}

// NewResolver returns a Resolver with an empty cache.
func NewResolver() *Resolver { return &Resolver{pkgs: map[pkgKey][]*srcFile{}} }

// defaultResolver backs ResolveLocal and ResolveUpstream so every caller shares one cache.
var defaultResolver = NewResolver()

// ResolveLocal finds anchor in fsys, which holds the server package's source at its root
// (server.SourceFS). See (*Resolver).Local.
func ResolveLocal(fsys fs.FS, anchor, focus string) (Location, error) {
	return defaultResolver.Local(fsys, anchor, focus)
}

// ResolveUpstream finds symbol in the k8s.io/apiserver module checked out at modDir.
// See (*Resolver).Upstream.
func ResolveUpstream(modDir, symbol string) (Location, error) {
	return defaultResolver.Upstream(modDir, symbol)
}

// Local finds anchor in fsys, which holds the server package's source at its root
// (server.SourceFS). anchor names a func ("New"), a method ("(*Server).Authn" or
// "Server.Authn", matching pointer and value receivers alike), a type, or a package-level var
// or const; a "pkg." prefix looks in the subpackage directory pkg instead ("admit.(*CreatedBy).Admit").
// A non-empty focus must occur in the symbol's source; its first match (in the code, else in
// the doc comment) sets FocusStart and FocusEnd.
func (r *Resolver) Local(fsys fs.FS, anchor, focus string) (Location, error) {
	dir, sym := ".", anchor
	if pkg, rest, ok := strings.Cut(anchor, "."); ok && !strings.HasPrefix(anchor, "(") {
		if isDir(fsys, pkg) {
			dir, sym = pkg, rest
		} else if _, err := parseSymbol(anchor); err != nil {
			if _, err := parseSymbol(rest); err == nil { // only makes sense as pkg.Symbol
				return Location{}, fmt.Errorf("anchor %q: %w", anchor, &notFoundError{sym: rest, dir: pkg, noDir: true})
			}
		}
	}
	loc, err := r.find(fsys, dir, sym, focus)
	if err != nil && dir != "." {
		// "x.Y" may also be method Y of type x in package server.
		if alt, altErr := r.find(fsys, ".", anchor, focus); altErr == nil {
			return alt, nil
		}
	}
	if err != nil {
		return Location{}, fmt.Errorf("anchor %q: %w", anchor, err)
	}
	return loc, nil
}

// Upstream finds symbol, an import path inside k8s.io/apiserver followed by "." and a func,
// method ("(*T).M" or "T.M"), type, var or const, e.g.
// "k8s.io/apiserver/pkg/server.(*GenericAPIServer).PrepareRun", in the module source at
// modDir. Location.File is relative to modDir. For a symbol of another upstream module use
// Module.
func (r *Resolver) Upstream(modDir, symbol string) (Location, error) {
	return r.Module(UpstreamModule, modDir, symbol)
}

// Module finds symbol, an import path inside module modPath followed by "." and a symbol (as
// Upstream takes it), in that module's source at modDir.
func (r *Resolver) Module(modPath, modDir, symbol string) (Location, error) {
	importPath, sym, err := splitUpstream(symbol)
	if err == nil && importPath != modPath && !strings.HasPrefix(importPath, modPath+"/") {
		err = fmt.Errorf("import path %s is not in module %s", importPath, modPath)
	}
	if err != nil {
		return Location{}, fmt.Errorf("upstream %q: %w", symbol, err)
	}
	if modDir == "" {
		return Location{}, fmt.Errorf("upstream %q: no %s module directory", symbol, modPath)
	}
	dir := "."
	if importPath != modPath {
		dir = strings.TrimPrefix(importPath, modPath+"/")
	}
	loc, err := r.find(os.DirFS(modDir), dir, sym, "")
	if err != nil {
		return Location{}, fmt.Errorf("upstream %q: %w", symbol, err)
	}
	return loc, nil
}

// UpstreamModules lists the modules whose source a step's upstream symbol may name:
// k8s.io/apiserver (the generic server kubewalk is built on), k8s.io/apimachinery (its
// types, scheme and codecs), and the two servers kubewalk chains around its own as
// kube-apiserver does, k8s.io/apiextensions-apiserver and k8s.io/kube-aggregator.
func UpstreamModules() []string {
	return []string{UpstreamModule, "k8s.io/apimachinery", "k8s.io/apiextensions-apiserver", "k8s.io/kube-aggregator"}
}

// UpstreamModuleOf returns the module of UpstreamModules that symbol's import path is in.
func UpstreamModuleOf(symbol string) (string, bool) {
	importPath, _, err := splitUpstream(symbol)
	if err != nil {
		return "", false
	}
	for _, m := range UpstreamModules() {
		if importPath == m || strings.HasPrefix(importPath, m+"/") {
			return m, true
		}
	}
	return "", false
}

// splitUpstream splits "k8s.io/apiserver/pkg/x.Sym" into its import path and symbol.
func splitUpstream(symbol string) (importPath, sym string, err error) {
	slash := strings.LastIndex(symbol, "/")
	dot := strings.Index(symbol[slash+1:], ".")
	if slash < 0 || dot < 0 {
		return "", "", errors.New(`want an import path, ".", and a symbol, like "k8s.io/apiserver/pkg/server.(*GenericAPIServer).PrepareRun"`)
	}
	importPath, sym = symbol[:slash+1+dot], symbol[slash+1+dot+1:]
	if sym == "" {
		return "", "", errors.New("no symbol after the import path")
	}
	return importPath, sym, nil
}

// symbolRef is a parsed symbol: Name, or method Name of type Recv.
type symbolRef struct {
	recv, name string
}

// parseSymbol parses "Name", "T.M", "(T).M" and "(*T).M".
func parseSymbol(s string) (symbolRef, error) {
	bad := fmt.Errorf("%q is not a symbol: write Name, T.M, (T).M or (*T).M", s)
	if strings.HasPrefix(s, "(") {
		recv, name, ok := strings.Cut(s[1:], ").")
		recv = strings.TrimPrefix(recv, "*")
		if !ok || !isIdent(recv) || !isIdent(name) {
			return symbolRef{}, bad
		}
		return symbolRef{recv: recv, name: name}, nil
	}
	if recv, name, ok := strings.Cut(s, "."); ok {
		if !isIdent(recv) || !isIdent(name) {
			return symbolRef{}, bad
		}
		return symbolRef{recv: recv, name: name}, nil
	}
	if !isIdent(s) {
		return symbolRef{}, bad
	}
	return symbolRef{name: s}, nil
}

// isIdent reports whether s is a Go identifier.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !unicode.IsLetter(c) && c != '_' && (i == 0 || !unicode.IsDigit(c)) {
			return false
		}
	}
	return true
}

// notFoundError says a symbol is not declared in a package and suggests near names.
type notFoundError struct {
	sym     string
	dir     string
	noDir   bool // the package directory itself is missing
	suggest []string
}

func (e *notFoundError) Error() string {
	if e.noDir {
		return fmt.Sprintf("no package directory %s/ in the source to look up %s in", e.dir, e.sym)
	}
	where := "the package's source"
	if e.dir != "." {
		where = e.dir + "/"
	}
	msg := fmt.Sprintf("%s is not declared in %s", e.sym, where)
	if len(e.suggest) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", quoteList(e.suggest))
	}
	return msg
}

// focusError says a focus does not occur in its symbol's source.
type focusError struct {
	focus string
	loc   Location
}

func (e *focusError) Error() string {
	return fmt.Sprintf("focus %q does not occur in lines %d-%d of %s", e.focus, e.loc.StartLine, e.loc.EndLine, e.loc.File)
}

// find looks sym up in package directory dir of fsys.
func (r *Resolver) find(fsys fs.FS, dir, sym, focus string) (Location, error) {
	ref, err := parseSymbol(sym)
	if err != nil {
		return Location{}, err
	}
	files, err := r.pkg(fsys, dir)
	if err != nil {
		return Location{}, err
	}
	for _, f := range files {
		start, end, ok := lookup(f, ref)
		if !ok {
			continue
		}
		loc := Location{
			File:      f.name,
			StartLine: f.fset.Position(start).Line,
			EndLine:   f.fset.Position(end).Line,
			Source:    bytes.Clone(f.src),
		}
		loc.FocusStart, loc.FocusEnd = loc.StartLine, loc.EndLine
		if focus != "" {
			codeStart := f.fset.Position(declPos(f, ref)).Offset
			lo, hi := f.fset.Position(start).Offset, f.fset.Position(end).Offset
			i := strings.Index(string(f.src[codeStart:hi]), focus)
			if i >= 0 {
				i += codeStart
			} else if j := strings.Index(string(f.src[lo:codeStart]), focus); j >= 0 {
				i = lo + j
			} else {
				return Location{}, &focusError{focus: focus, loc: loc}
			}
			loc.FocusStart = 1 + bytes.Count(f.src[:i], []byte("\n"))
			loc.FocusEnd = 1 + bytes.Count(f.src[:i+len(focus)-1], []byte("\n"))
		}
		return loc, nil
	}
	return Location{}, &notFoundError{sym: sym, dir: dir, suggest: suggest(sym, symbols(files))}
}

// lookup returns the extent of ref's declaration in f, doc comment included.
func lookup(f *srcFile, ref symbolRef) (start, end token.Pos, ok bool) {
	for _, d := range f.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != ref.name || (d.Recv == nil) != (ref.recv == "") {
				continue
			}
			if d.Recv != nil && recvName(d.Recv) != ref.recv {
				continue
			}
			start = d.Pos()
			if d.Doc != nil {
				start = d.Doc.Pos()
			}
			return start, d.End(), true
		case *ast.GenDecl:
			if ref.recv != "" {
				continue
			}
			for _, s := range d.Specs {
				var doc *ast.CommentGroup
				found := false
				switch s := s.(type) {
				case *ast.TypeSpec:
					found, doc = s.Name.Name == ref.name, s.Doc
				case *ast.ValueSpec:
					doc = s.Doc
					for _, n := range s.Names {
						found = found || n.Name == ref.name
					}
				}
				if !found {
					continue
				}
				if !d.Lparen.IsValid() { // a lone "type T ..." or "var x = ...": take the whole decl
					start = d.Pos()
					if d.Doc != nil {
						start = d.Doc.Pos()
					}
					return start, d.End(), true
				}
				start = s.Pos()
				if doc != nil {
					start = doc.Pos()
				}
				return start, s.End(), true
			}
		}
	}
	return token.NoPos, token.NoPos, false
}

// declPos is where ref's declaration proper starts, after its doc comment.
func declPos(f *srcFile, ref symbolRef) token.Pos {
	for _, d := range f.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == ref.name && (d.Recv == nil) == (ref.recv == "") && (d.Recv == nil || recvName(d.Recv) == ref.recv) {
				return d.Pos()
			}
		case *ast.GenDecl:
			if ref.recv != "" {
				continue
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.Name == ref.name {
						if !d.Lparen.IsValid() {
							return d.Pos()
						}
						return s.Pos()
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name == ref.name {
							if !d.Lparen.IsValid() {
								return d.Pos()
							}
							return s.Pos()
						}
					}
				}
			}
		}
	}
	return token.NoPos
}

// recvName returns the receiver's type name, without pointer or type parameters.
func recvName(fl *ast.FieldList) string {
	if len(fl.List) == 0 {
		return ""
	}
	t := fl.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.ParenExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// symbols lists every name an anchor could use in files, in anchor syntax.
func symbols(files []*srcFile) []string {
	var out []string
	for _, f := range files {
		for _, d := range f.file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					out = append(out, d.Name.Name)
					continue
				}
				recv := recvName(d.Recv)
				if _, ptr := d.Recv.List[0].Type.(*ast.StarExpr); ptr {
					out = append(out, "(*"+recv+")."+d.Name.Name)
				} else {
					out = append(out, recv+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out = append(out, s.Name.Name)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name != "_" {
								out = append(out, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// suggest returns up to three candidates close to want: the same final name with another
// receiver, or a small edit away.
func suggest(want string, candidates []string) []string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("(", "", ")", "", "*", "").Replace(s))
	}
	last := func(s string) string { return s[strings.LastIndex(s, ".")+1:] }
	w := norm(want)
	limit := max(2, len(w)/4)
	type scored struct {
		s string
		d int
	}
	var hits []scored
	for _, c := range slices.Compact(slices.Sorted(slices.Values(candidates))) {
		d := levenshtein(w, norm(c))
		if last(c) == last(want) && d > 0 {
			d = min(d, 1)
		}
		if d <= limit {
			hits = append(hits, scored{c, d})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].d < hits[j].d })
	var out []string
	for _, h := range hits[:min(3, len(hits))] {
		out = append(out, h.s)
	}
	return out
}

// levenshtein is the edit distance between a and b.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// quoteList renders ["a", "b"] as `"a" or "b"`.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " or ")
}

// isDir reports whether name is a directory in fsys.
func isDir(fsys fs.FS, name string) bool {
	if !fs.ValidPath(name) {
		return false
	}
	fi, err := fs.Stat(fsys, name)
	return err == nil && fi.IsDir()
}

// pkg returns the parsed non-test Go files of directory dir that build on this platform,
// from the cache when fsys is comparable.
func (r *Resolver) pkg(fsys fs.FS, dir string) ([]*srcFile, error) {
	cacheable := fsys != nil && reflect.ValueOf(fsys).Comparable()
	key := pkgKey{dir: dir}
	if cacheable {
		key.fsys = fsys
		r.mu.Lock()
		defer r.mu.Unlock()
		if files, ok := r.pkgs[key]; ok {
			return files, nil
		}
	}
	files, err := parseDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	if cacheable {
		r.pkgs[key] = files
	}
	return files, nil
}

// parseDir parses the Go files of dir that are not tests and match this platform's build
// constraints.
func parseDir(fsys fs.FS, dir string) ([]*srcFile, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read package directory %s: %w", dir, err)
	}
	ctxt := build.Default
	ctxt.JoinPath = path.Join
	ctxt.OpenFile = func(name string) (io.ReadCloser, error) { return fsys.Open(name) }
	ctxt.IsDir = func(name string) bool { return isDir(fsys, name) }
	ctxt.HasSubdir = func(string, string) (string, bool) { return "", false }
	ctxt.ReadDir = func(name string) ([]fs.FileInfo, error) { return nil, errors.ErrUnsupported }
	var files []*srcFile
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		if ok, err := ctxt.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		name := path.Join(dir, n)
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		files = append(files, &srcFile{name: name, src: src, fset: fset, file: f})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("package directory %s has no Go files", dir)
	}
	return files, nil
}

// UpstreamModuleDir returns the directory of k8s.io/apiserver in the Go module cache at the
// version compiled into this binary (or, without build information, required by the go.mod
// above the working directory), and that version. The error names what is missing and how to
// get it.
func UpstreamModuleDir() (dir, version string, err error) {
	return ModuleDir(UpstreamModule)
}

// ModuleDir is UpstreamModuleDir for any module this binary is built with, such as one of
// UpstreamModules. The error wraps fs.ErrNotExist when the module cache lacks the module.
func ModuleDir(module string) (dir, version string, err error) {
	modPath, version, localDir, err := moduleVersion(module)
	if err != nil {
		return "", "", err
	}
	if localDir != "" {
		dir = localDir
	} else {
		cache := moduleCache(goEnvGOMODCACHE, os.Getenv, os.UserHomeDir)
		if cache == "" {
			return "", version, errors.New("cannot find the Go module cache: set GOMODCACHE or GOPATH")
		}
		dir = moduleDir(cache, modPath, version)
	}
	if fi, statErr := os.Stat(dir); statErr != nil || !fi.IsDir() {
		return "", version, fmt.Errorf("%s %s is not in the Go module cache (%s): run `go mod download %s@%s`: %w",
			module, version, dir, module, version, fs.ErrNotExist)
	}
	return dir, version, nil
}

// ModuleDirs returns the directories of UpstreamModules found in the module cache, keyed by
// module, and the errors of those not found.
func ModuleDirs() (map[string]string, []error) {
	dirs := map[string]string{}
	var errs []error
	for _, m := range UpstreamModules() {
		dir, _, err := ModuleDir(m)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		dirs[m] = dir
	}
	return dirs, errs
}

// moduleVersion finds module's version from build information, else go.mod. modPath differs
// from module when the module is replaced; localDir is set when it is replaced by a directory.
func moduleVersion(module string) (modPath, version, localDir string, err error) {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path != module {
				continue
			}
			if r := d.Replace; r != nil {
				if r.Version == "" && filepath.IsAbs(r.Path) {
					return module, d.Version, r.Path, nil
				}
				if r.Version != "" {
					return r.Path, r.Version, "", nil
				}
			}
			return d.Path, d.Version, "", nil
		}
	}
	gomod, data, err := findGoMod()
	if err != nil {
		return "", "", "", fmt.Errorf("find the %s version: no build information in this binary and %w", module, err)
	}
	v, ok := goModRequire(data, module)
	if !ok {
		return "", "", "", fmt.Errorf("find the %s version: %s does not require it", module, gomod)
	}
	return module, v, "", nil
}

// findGoMod reads the go.mod of the working directory or its nearest parent.
func findGoMod() (string, []byte, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", nil, fmt.Errorf("no working directory: %w", err)
	}
	for {
		name := filepath.Join(dir, "go.mod")
		if data, err := os.ReadFile(name); err == nil {
			return name, data, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil, errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// goModRequire returns the version go.mod data requires of module mod, from a single-line
// "require mod v" or a line "mod v" inside a require block.
func goModRequire(data []byte, mod string) (string, bool) {
	inBlock := false
	for line := range strings.SplitSeq(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
			continue
		case inBlock && fields[0] == ")":
			inBlock = false
			continue
		case !inBlock && fields[0] == "require":
			if len(fields) == 2 && fields[1] == "(" {
				inBlock = true
				continue
			}
			fields = fields[1:]
		case !inBlock:
			continue
		}
		if len(fields) >= 2 && fields[0] == mod {
			return fields[1], true
		}
	}
	return "", false
}

// goEnvGOMODCACHE asks the go command for the module cache.
func goEnvGOMODCACHE() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output()
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleCache finds the module cache: $GOMODCACHE, else `go env GOMODCACHE` (which also reads
// the go command's own configuration), else $GOPATH/pkg/mod (first GOPATH entry), else
// ~/go/pkg/mod. $GOMODCACHE comes first without asking the go command — `go env` would answer
// the same — so that a process that may not start programs (a class ssh student's sandboxed
// tour, given the class host's cache this way) finds the cache, and at no cost.
func moduleCache(goEnv func() (string, error), getenv func(string) string, home func() (string, error)) string {
	if dir := getenv("GOMODCACHE"); dir != "" {
		return dir
	}
	if dir, err := goEnv(); err == nil && dir != "" {
		return dir
	}
	if gopath := filepath.SplitList(getenv("GOPATH")); len(gopath) > 0 && gopath[0] != "" {
		return filepath.Join(gopath[0], "pkg", "mod")
	}
	if h, err := home(); err == nil && h != "" {
		return filepath.Join(h, "go", "pkg", "mod")
	}
	return ""
}

// moduleDir is where the module cache keeps modPath at version: upper-case letters are
// escaped as "!" plus the lower-case letter.
func moduleDir(cache, modPath, version string) string {
	esc := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			if unicode.IsUpper(c) {
				b.WriteByte('!')
				c = unicode.ToLower(c)
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	return filepath.Join(cache, filepath.FromSlash(esc(modPath)+"@"+esc(version)))
}
