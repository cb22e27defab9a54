package kubectl

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
)

var (
	enStrings = i18n.For(i18n.English)
	zhStrings = i18n.For(i18n.SimplifiedChinese)
)

// verb matches a fmt verb, with an optional [n] argument index.
var verb = regexp.MustCompile(`%(?:%|(\[\d+\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z]))`)

// formatArgs lists the arguments format uses as "n:verb", sorted and without repeats.
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

// verbatim matches what a refusal names and a learner types — flags (-f, --context, -i/-t),
// `code spans` and :k — which every language keeps as kubectl spells it.
var verbatim = regexp.MustCompile("`[^`]+`|(?:^|[\\s(])(--?[a-z][a-z-]*(?:/--?[a-z][a-z-]*)*|:k)\\b")

// checkKey fails unless key is a Refuse* format of both catalogues, non-empty, translated
// (the Chinese differs from the English), with the same arguments in both and the same flags
// and code spans; it returns how many arguments the format takes.
func checkKey(t testing.TB, key string) int {
	t.Helper()
	if !strings.HasPrefix(key, "Refuse") {
		t.Errorf("key %q: refusals use the catalogue's Refuse* strings", key)
	}
	en, ok := enStrings.Format(key)
	if !ok || strings.TrimSpace(en) == "" {
		t.Errorf("key %q is not in the English catalogue", key)
		return 0
	}
	zh, _ := zhStrings.Format(key)
	if strings.TrimSpace(zh) == "" || zh == en {
		t.Errorf("key %q: no Chinese (zh-CN shows %q)", key, zh)
	}
	ea, za := formatArgs(t, en), formatArgs(t, zh)
	if !slices.Equal(ea, za) {
		t.Errorf("key %q: English %q takes %v, Chinese %q takes %v", key, en, ea, zh, za)
	}
	for _, m := range verbatim.FindAllStringSubmatch(en, -1) {
		word := m[0]
		if m[1] != "" {
			word = m[1]
		}
		if !strings.Contains(zh, word) {
			t.Errorf("key %q: the Chinese %q does not keep %q", key, zh, word)
		}
	}
	return len(ea)
}

// TestRefusalKeysInCatalogue reads allow.go and guard.go for every reason they word by key —
// why("Refuse…", args), including the maps of flag and command reasons and the branches no
// live test reaches: each must be in both catalogues, translated, with as many arguments as
// its why call passes. Two keys with the same English are one reason said twice: they must
// be one key.
func TestRefusalKeysInCatalogue(t *testing.T) {
	fset := token.NewFileSet()
	used := map[string]bool{}
	for _, file := range []string{"allow.go", "guard.go"} {
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "why" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: why with a key that is not a literal: this test cannot see it", fset.Position(call.Pos()))
				return true
			}
			key, _ := strconv.Unquote(lit.Value)
			if args := checkKey(t, key); args != len(call.Args)-1 {
				t.Errorf("%s: why(%q) passes %d arguments, its format takes %d", fset.Position(call.Pos()), key, len(call.Args)-1, args)
			}
			used[key] = true
			return true
		})
	}
	if len(used) < 50 {
		t.Errorf("found only %d refusal keys in allow.go and guard.go: the scan lost its way", len(used))
	}

	// The catalogue's Refuse* strings are exactly the ones used, each English said once.
	english := map[string]string{}
	for _, key := range catalogueKeys(t, "Refuse") {
		if !used[key] {
			t.Errorf("catalogue key %s is used by no refusal", key)
		}
		en, _ := enStrings.Format(key)
		if other, dup := english[en]; dup {
			t.Errorf("keys %s and %s say the same %q: use one key", other, key, en)
		}
		english[en] = key
	}

	// The reasons nested into a wrapping format (RefuseCommand, RefuseFlag, RefuseOwnTerminal)
	// take no arguments of their own.
	var nested []reason
	for _, r := range flagReasons {
		nested = append(nested, r)
	}
	for _, r := range commandReasons {
		nested = append(nested, r)
	}
	for _, o := range ownTerminal {
		nested = append(nested, o.reason)
	}
	for _, r := range nested {
		if en, _ := enStrings.Format(r.key); len(r.args) != 0 || len(formatArgs(t, en)) != 0 {
			t.Errorf("nested reason %s (%q) has arguments", r.key, en)
		}
	}
}

// catalogueKeys lists the string fields of i18n.Strings whose name starts with prefix.
func catalogueKeys(t testing.TB, prefix string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../i18n/en.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Strings" {
			return true
		}
		for _, fld := range ts.Type.(*ast.StructType).Fields.List {
			for _, name := range fld.Names {
				if strings.HasPrefix(name.Name, prefix) {
					keys = append(keys, name.Name)
				}
			}
		}
		return false
	})
	if len(keys) == 0 {
		t.Fatalf("no %s* fields in i18n.Strings", prefix)
	}
	return keys
}

// TestReasonIn: a reason words its nested reasons in the same language and shows other
// arguments as they are; without a catalogue it is English; a RefusedError made with a Reason
// of its own gives that Reason in every language.
func TestReasonIn(t *testing.T) {
	r := why("RefuseFlag", "from-file", "kubectl create configmap", why("RefuseReadsFiles"))
	tests := []struct {
		tr   *i18n.Strings
		want string
	}{
		{nil, "--from-file does not run here with `kubectl create configmap`: it reads files on the class host"},
		{enStrings, "--from-file does not run here with `kubectl create configmap`: it reads files on the class host"},
		{zhStrings, "--from-file 不能和 `kubectl create configmap` 一起在这里使用：它会读取课堂机器上的文件"},
	}
	for _, tt := range tests {
		if got := r.in(tt.tr); got != tt.want {
			t.Errorf("in(%v) = %q, want %q", tt.tr != nil, got, tt.want)
		}
	}
	e := refused([]string{"x"}, r, "")
	if e.Reason != tests[0].want || e.ReasonIn(zhStrings) != tests[2].want {
		t.Errorf("refused: Reason %q, ReasonIn(zh) %q", e.Reason, e.ReasonIn(zhStrings))
	}
	own := &RefusedError{Reason: "a reason of its own"}
	if own.ReasonIn(zhStrings) != own.Reason || own.ReasonIn(nil) != own.Reason {
		t.Errorf("a RefusedError without a worded reason: %q", own.ReasonIn(zhStrings))
	}
	if got := why("RefuseNoSuchKey", "a").in(zhStrings); got == "" {
		t.Error("an unknown key words as nothing")
	}
}
