package tracing_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tracing"
)

var (
	enStrings = i18n.For(i18n.English)
	zhStrings = i18n.For(i18n.SimplifiedChinese)
)

// TestStageNames: the stage names the glossary checker refuses to call a phase are this
// package's stages, less those that are also phase names (admission, storage).
func TestStageNames(t *testing.T) {
	want := []string{tracing.StageAuthentication, tracing.StageImpersonation, tracing.StageFlowControl, tracing.StageAuthorization,
		tracing.StageValidation, tracing.StageResponse, strings.TrimSuffix(tracing.StageMutatingPrefix, "/"), strings.TrimSuffix(tracing.StageValidatingPrefix, "/")}
	if !slices.Equal(i18n.StageNames, want) {
		t.Errorf("i18n.StageNames = %q, want %q", i18n.StageNames, want)
	}
}

// verb matches a fmt verb: %%, or % with an optional [n] argument index, flags, width,
// precision and the verb letter.
var verb = regexp.MustCompile(`%(?:%|(\[\d+\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z]))`)

// formatArgs lists the arguments a format uses as "n:verb", sorted and without repeats:
// "%s %d" and "%[2]d %[1]s" give the same list.
func formatArgs(t testing.TB, format string) []string {
	var out []string
	next := 1
	for _, m := range verb.FindAllStringSubmatch(format, -1) {
		if m[0] == "%%" {
			continue
		}
		n := next
		if m[1] != "" {
			i, err := strconv.Atoi(strings.Trim(m[1], "[]"))
			if err != nil {
				t.Fatalf("format %q: %v", format, err)
			}
			n = i
		}
		out = append(out, strconv.Itoa(n)+":"+m[2])
		next = n + 1
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// checkKey fails unless key is a lane format of both catalogues, translated (the Chinese
// differs from the English), with the same arguments in both; it returns how many arguments
// the format takes.
func checkKey(t testing.TB, key string) int {
	t.Helper()
	if !strings.HasPrefix(key, "Lane") {
		t.Errorf("key %q: lane texts use the catalogue's Lane* strings", key)
	}
	en, ok := enStrings.Format(key)
	if !ok {
		t.Errorf("key %q is not in the catalogue", key)
		return 0
	}
	zh, _ := zhStrings.Format(key)
	if zh == en {
		t.Errorf("key %q: no Chinese (zh-CN shows the English %q)", key, en)
	}
	ea, za := formatArgs(t, en), formatArgs(t, zh)
	if !slices.Equal(ea, za) {
		t.Errorf("key %q: English %q takes %v, Chinese %q takes %v", key, en, ea, zh, za)
	}
	return len(ea)
}

// TestLaneKeysInCatalogue reads lane.go for every text it words by key — say("Lane…", args),
// a field label's key — including the branches no live test reaches (a 429, a hold that timed
// out): each must be in both catalogues, with as many arguments as its say call passes.
func TestLaneKeysInCatalogue(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "lane.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	keys := 0
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		var name string
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			name = fn.Name
		case *ast.SelectorExpr:
			name = fn.Sel.Name
		}
		if name != "say" && name != "addWordedField" {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			t.Errorf("%s: %s with a key that is not a literal: the catalogue test cannot see it", fset.Position(call.Pos()), name)
			return true
		}
		key, _ := strconv.Unquote(lit.Value)

		args := checkKey(t, key)
		keys++
		if name == "say" && args != len(call.Args)-1 {
			t.Errorf("%s: say(%q) passes %d arguments, its format takes %d", fset.Position(call.Pos()), key, len(call.Args)-1, args)
		}
		if name == "addWordedField" && args != 0 {
			t.Errorf("%s: label %q takes arguments", fset.Position(call.Pos()), key)
		}
		return true
	})
	if keys < 60 {
		t.Errorf("found only %d worded texts in lane.go: the scan lost its way", keys)
	}
}

// checkWorded holds every text of a real lane to the catalogues: each key it uses is in both
// with the same arguments, each Text has as many arguments as its format, its English is the
// stage's Detail (or the field's Label and Value) and its Chinese renders without a fmt
// error. seen collects the keys used.
func checkWorded(t testing.TB, tr tracing.Trace, seen map[string]bool) {
	t.Helper()
	for _, st := range tr.Stages {
		where := tr.ID + " " + st.Name
		texts := []tracing.Text{st.DetailText}
		if st.DetailText.IsZero() && st.Detail != "" {
			t.Errorf("%s: detail %q has no Text: it shows in English in every language", where, st.Detail)
		}
		if got := st.DetailIn(enStrings); got != st.Detail {
			t.Errorf("%s: English detail %q, Text words it %q", where, st.Detail, got)
		}
		if zh := st.DetailIn(zhStrings); strings.Contains(zh, "%!") || (zh == "") != (st.Detail == "") {
			t.Errorf("%s: Chinese detail %q (English %q)", where, zh, st.Detail)
		}
		for _, f := range st.Fields {
			if f.LabelKey != "" {
				if checkKey(t, f.LabelKey); f.LabelIn(enStrings) != f.Label {
					t.Errorf("%s: label %q, key %s words it %q", where, f.Label, f.LabelKey, f.LabelIn(enStrings))
				}
				seen[f.LabelKey] = true
			}
			if f.ValueText.IsZero() && f.Value != "" {
				t.Errorf("%s: field %s value %q has no Text", where, f.Label, f.Value)
			}
			if got := f.ValueIn(enStrings); got != f.Value {
				t.Errorf("%s: field %s English value %q, Text words it %q", where, f.Label, f.Value, got)
			}
			if zh := f.ValueIn(zhStrings); strings.Contains(zh, "%!") {
				t.Errorf("%s: field %s Chinese value %q", where, f.Label, zh)
			}
			texts = append(texts, f.ValueText)
		}
		for _, x := range texts {
			for _, k := range x.Keys() {
				if !seen[k] {
					checkKey(t, k)
					seen[k] = true
				}
			}
			checkArgs(t, where, x)
		}
	}
}

// checkArgs fails for a Text (or one of its arguments) whose argument count is not its
// format's.
func checkArgs(t testing.TB, where string, x tracing.Text) {
	t.Helper()
	if x.Key != "" {
		if en, ok := enStrings.Format(x.Key); ok && len(formatArgs(t, en)) != len(x.Args) {
			t.Errorf("%s: %s has %d arguments for %q", where, x.Key, len(x.Args), en)
		}
	}
	for _, a := range x.Args {
		switch v := a.(type) {
		case tracing.Text:
			checkArgs(t, where, v)
		case tracing.Texts:
			for _, y := range v {
				checkArgs(t, where, y)
			}
		}
	}
}

// checkStoreWorded runs checkWorded on every lane of store (the server's own included) and
// returns the keys they use.
func checkStoreWorded(t *testing.T, store *tracing.Store) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	for _, tr := range store.List(tracing.Filter{Loopback: true}) {
		checkWorded(t, tr, seen)
	}
	return seen
}
