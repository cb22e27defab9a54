package i18n

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// translations are the catalogues merged over English, by language.
var translations = map[string]func() map[string]string{SimplifiedChinese: zhCN}

// TestCatalogueParity fails, naming each key, for every English string a translation lacks
// (or leaves empty) and for every translated key that is not a string of Strings (an orphan:
// renamed or removed in English).
func TestCatalogueParity(t *testing.T) {
	en := fields(&Strings{})
	for lang, cat := range translations {
		tr := cat()
		var missing, orphans []string
		for k := range en {
			if strings.TrimSpace(tr[k]) == "" {
				missing = append(missing, k)
			}
		}
		for k := range tr {
			if _, ok := en[k]; !ok {
				orphans = append(orphans, k)
			}
		}
		sort.Strings(missing)
		sort.Strings(orphans)
		for _, k := range missing {
			t.Errorf("%s: missing %s (English: %q)", lang, k, fields(For(English))[k])
		}
		for _, k := range orphans {
			t.Errorf("%s: orphan key %s: Strings has no such field", lang, k)
		}
	}
}

// TestEveryEnglishString fails for a field english() leaves empty.
func TestEveryEnglishString(t *testing.T) {
	for k, v := range fields(For(English)) {
		if strings.TrimSpace(v) == "" {
			t.Errorf("english() has no text for %s", k)
		}
	}
}

// verbPattern matches a fmt verb: %%, or % with an optional [n] argument index, flags, width,
// precision and the verb letter.
var verbPattern = regexp.MustCompile(`%(?:%|(\[\d+\])?[-+# 0]*\d*(?:\.\d+)?([a-zA-Z]))`)

// formatArgs lists the arguments a format string uses as "n:verb", sorted; explicit indexes
// and implicit ones are numbered alike, so "%s %d" and "%[2]d %[1]s" give the same list.
func formatArgs(s string) ([]string, error) {
	var out []string
	next := 1
	for _, m := range verbPattern.FindAllStringSubmatch(s, -1) {
		if m[0] == "%%" {
			continue
		}
		n := next
		if m[1] != "" {
			i, err := strconv.Atoi(strings.Trim(m[1], "[]"))
			if err != nil {
				return nil, err
			}
			n = i
		}
		out = append(out, fmt.Sprintf("%d:%s", n, m[2]))
		next = n + 1
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// TestFormatVerbsMatch fails when a translation does not use the same arguments, with the same
// verbs, as its English string: a dropped or misnumbered %[n]s would print %!s(MISSING) or the
// wrong value.
func TestFormatVerbsMatch(t *testing.T) {
	en := fields(For(English))
	for lang := range translations {
		for k, v := range fields(For(lang)) {
			want, err := formatArgs(en[k])
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			got, err := formatArgs(v)
			if err != nil {
				t.Fatalf("%s %s: %v", lang, k, err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: arguments %v, English has %v\n  en: %q\n  %s: %q", lang, k, got, want, en[k], lang, v)
			}
		}
	}
}

func TestFormatArgs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"no verbs", ""},
		{"%s and %d", "1:s 2:d"},
		{"%[2]d then %[1]s", "1:s 2:d"},
		{"%[1]s twice %[1]s", "1:s"},
		{"100%% and %q", "1:q"},
		{"%-10s|%5.2f|%w", "1:s 2:f 3:w"},
	} {
		got, err := formatArgs(tt.in)
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("formatArgs(%q) = %v, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// TestFallback: a string a translation lacks shows in English, and an unknown language is
// English.
func TestFallback(t *testing.T) {
	s := english()
	overlay(&s, map[string]string{"PaneSource": "源码", "PaneState": "", "NoSuchField": "x"})
	if s.PaneSource != "源码" || s.PaneState != "State" {
		t.Errorf("overlay: PaneSource %q, PaneState %q", s.PaneSource, s.PaneState)
	}
	if got := For("fr"); got.PaneSource != "Source" || got.Lang() != English {
		t.Errorf("For(fr): %q, %q", got.PaneSource, got.Lang())
	}
	zh := For(SimplifiedChinese)
	if zh.Lang() != SimplifiedChinese || zh.PaneSource == "Source" {
		t.Errorf("For(zh-CN): %q, %q", zh.PaneSource, zh.Lang())
	}
	// Each call is a fresh value: changing one does not change the next.
	zh.PaneSource = "changed"
	if For(SimplifiedChinese).PaneSource == "changed" {
		t.Error("For shares its result between calls")
	}
}

// TestIdentifiersStayEnglish: the translations keep the commands, flags and names a
// learner types, exactly as English spells them.
func TestIdentifiersStayEnglish(t *testing.T) {
	token := regexp.MustCompile(`(?:^|[^\w/-])(:[a-z]+|--[a-z][a-z-]+|system:masters|kube-apiserver|k8s\.io/apiserver)`)
	en := fields(For(English))
	for lang := range translations {
		tr := fields(For(lang))
		for k, v := range en {
			for _, m := range token.FindAllStringSubmatch(v, -1) {
				if !strings.Contains(tr[k], m[1]) {
					t.Errorf("%s %s: %q is not kept in %q", lang, k, m[1], tr[k])
				}
			}
		}
	}
}
