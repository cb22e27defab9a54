package translations

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"k8s.io/kubectl/pkg/util/i18n"
)

func TestLocale(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{nil, "default"},
		{map[string]string{"LANG": "C"}, "default"},
		{map[string]string{"LANG": "C.UTF-8"}, "C"},
		{map[string]string{"LANG": "en_US.UTF-8"}, "en_US"},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, "zh_CN"},
		{map[string]string{"LANG": "zh_CN"}, "default"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8"}, "ja_JP"},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8", "LC_ALL": "de_DE.UTF-8"}, "de_DE"},
		{map[string]string{"LANG": "de_DE@euro.ISO-8859-15.x"}, "default"},
	}
	for _, tt := range tests {
		if got := Locale(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("Locale(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}

// TestSameAsKubectl checks that loading nothing for English gives every message of kubectl's
// English catalogues as loading them does, and that another locale still loads its own.
// kubectl's catalogue is process state that only the first T loads: the steps run in this order
// in a fresh process, this test binary run again for this test alone.
func TestSameAsKubectl(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		sameAsKubectl(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSameAsKubectl$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSameAsKubectl") {
		t.Fatalf("in a fresh process: %v\n%s", err, out)
	}
}

// childEnv marks the process TestSameAsKubectl starts.
const childEnv = "KUBEWALK_TRANSLATIONS_TEST_CHILD"

func sameAsKubectl(t *testing.T) {
	ids := catalogueIDs(t, "default")
	if len(ids) < 100 {
		t.Fatalf("only %d messages in kubectl's default catalogue", len(ids))
	}
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "C.UTF-8")
	unbound := translate(ids) // the first T: this package's loader, which loads nothing here
	for _, lang := range []string{"default", "en_US"} {
		if err := i18n.LoadTranslations("kubectl", func() string { return lang }); err != nil {
			t.Fatal(err)
		}
		for i, got := range translate(ids) {
			if got != unbound[i] {
				t.Errorf("%s: %q translates to %q, unloaded to %q", lang, ids[i], got, unbound[i])
			}
		}
	}
	t.Setenv("LANG", "zh_CN.UTF-8")
	if err := load(); err != nil {
		t.Fatal(err)
	}
	if got := i18n.T("Display one or many resources"); got == "Display one or many resources" || !strings.ContainsRune(got, '显') {
		t.Errorf("zh_CN: kubectl's catalogue not loaded: %q", got)
	}
}

// translate returns T of each message, singular and plural.
func translate(ids []string) []string {
	var out []string
	for _, id := range ids {
		out = append(out, i18n.T(id), i18n.T(id, 2))
	}
	return out
}

// catalogueIDs returns the message IDs of one of kubectl's catalogues, read from the module.
func catalogueIDs(t *testing.T, lang string) []string {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubectl").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/kubectl: %v", err)
	}
	po, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "pkg/util/i18n/translations/kubectl", lang, "LC_MESSAGES/k8s.po"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	entry := regexp.MustCompile(`(?m)^msgid ((?:".*"\n)+)`)
	part := regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)
	for _, m := range entry.FindAllStringSubmatch(string(po), -1) {
		var b strings.Builder
		for _, p := range part.FindAllString(m[1], -1) {
			s, err := strconv.Unquote(p)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			b.WriteString(s)
		}
		if b.Len() > 0 {
			ids = append(ids, b.String())
		}
	}
	return ids
}
