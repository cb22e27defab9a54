package lessons

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadMergesTranslation(t *testing.T) {
	content := fixtureContent(t, "")
	tests := []struct {
		lang       string
		wantTitles []string // lesson titles, in order
		wantSteps  []string // "lesson/step title [lang] text" of every step
	}{
		{
			lang:       "en",
			wantTitles: []string{"Authentication: who is calling?", "Authorization: may they?", "apimachinery, live"},
			wantSteps: []string{
				"authn/x509 Client certificates [en] The x509 text.\n\n### A sub-heading\n\nMore x509 text.\n\n```\n## not a heading: inside a code block\n```",
				"authn/token Bearer tokens [en] The token text.",
				"authz/rbac RBAC [en] The RBAC text.",
				"apimachinery/typemeta TypeMeta on your object [en] The typemeta text.",
				"apimachinery/scheme The scheme [en] The scheme text.",
			},
		},
		{
			lang:       "zh-CN",
			wantTitles: []string{"认证：谁在调用？", "Authorization: may they?", "apimachinery, live"},
			wantSteps: []string{
				"authn/x509 客户端证书 [zh-CN] x509 的中文说明。",
				"authn/token Bearer tokens [en] The token text.",
				"authz/rbac RBAC [en] The RBAC text.",
				"apimachinery/typemeta TypeMeta on your object [en] The typemeta text.",
				"apimachinery/scheme The scheme [en] The scheme text.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			ls, err := Load(content, tt.lang)
			if err != nil {
				t.Fatal(err)
			}
			var titles, steps []string
			for _, l := range ls {
				titles = append(titles, l.Title)
				for _, s := range l.Steps {
					steps = append(steps, l.ID+"/"+s.ID+" "+s.Title+" ["+s.Lang+"] "+s.Text)
				}
			}
			if strings.Join(titles, "|") != strings.Join(tt.wantTitles, "|") {
				t.Errorf("titles = %q, want %q", titles, tt.wantTitles)
			}
			if strings.Join(steps, "\n---\n") != strings.Join(tt.wantSteps, "\n---\n") {
				t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(steps, "\n---\n"), strings.Join(tt.wantSteps, "\n---\n"))
			}
			// Every lesson says the language it was loaded in, the untranslated one too.
			for _, l := range ls {
				if l.Lang != tt.lang {
					t.Errorf("%s: Lang %q, want %q", l.ID, l.Lang, tt.lang)
				}
			}
			// Metadata always comes from English.
			x509 := ls[0].Steps[0]
			if x509.Checkpoint != "authn/x509" || x509.Anchor != "(*Server).Authn" || x509.Focus != "x509.NewDynamic" ||
				x509.Upstream != "k8s.io/apiserver/pkg/authentication/request/x509.NewDynamic" || ls[0].File != "en/02-authn.md" ||
				ls[0].Kube != "pkg/kubeapiserver/authenticator/config.go Config.New" || ls[0].Steps[1].Kube != "pkg/kubeapiserver/authenticator/config.go NewTokenAuthenticator" {
				t.Errorf("metadata not from English: %+v", ls[0])
			}
		})
	}
}

func TestLoadSortsByPhase(t *testing.T) {
	content := fstest.MapFS{
		"en/01-serve.md":  {Data: []byte("---\nid: serve\nphase: serve\ntitle: S\nsteps: []\n---\n")},
		"en/02-bogus.md":  {Data: []byte("---\nid: bogus\nphase: bogus\ntitle: B\nsteps: []\n---\n")},
		"en/03-config.md": {Data: []byte("---\nid: config\nphase: config\ntitle: C\nsteps: []\n---\n")},
		"en/README.md":    {Data: []byte("not a lesson")},
	}
	ls, err := Load(content, "en")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range ls {
		ids = append(ids, l.ID)
	}
	if got, want := strings.Join(ids, ","), "config,serve,bogus"; got != want {
		t.Errorf("order = %s, want %s", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	good := fixtureContent(t, "")
	broken := fixtureContent(t, "unknown-field")
	tests := []struct {
		name        string
		content     fstest.MapFS
		lang        string
		wantErr     string
		wantLessons int // lessons returned alongside the error
	}{
		{"missing language", good, "fr", `no lessons in language "fr": directory fr/ does not exist`, 0},
		{"no English", fstest.MapFS{"zh-CN/01-config.md": {}}, "en", `no lessons in language "en"`, 0},
		{"no lesson files", fstest.MapFS{"en/README.md": {}}, "en", `no lesson files (NN-<phase>.md, 2N-<id>.md) in en/`, 0},
		{"bad file keeps the others", broken, "en", `en/03-authz.md: front matter: `, 2},
		{"bad file keeps the others in zh-CN", broken, "zh-CN", `unknown field "anchr"`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls, err := Load(tt.content, tt.lang)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Load() error = %v, want it to contain %q", err, tt.wantErr)
			}
			if len(ls) != tt.wantLessons {
				t.Errorf("Load() returned %d lessons, want %d", len(ls), tt.wantLessons)
			}
		})
	}
	_, err := Load(broken, "en")
	var ps Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0].File != "en/03-authz.md" {
		t.Errorf("Load() error = %#v, want Problems naming en/03-authz.md", err)
	}
}

func TestSplitSections(t *testing.T) {
	tests := []struct {
		name string
		body string
		want map[string]string
	}{
		{"closing hashes", "## a ##\nA\n## b\nB\n", map[string]string{"a": "A", "b": "B"}},
		{"tilde fence", "## a\n~~~~\n## b\n~~~~\n", map[string]string{"a": "~~~~\n## b\n~~~~"}},
		{"longer fence needs longer close", "## a\n````\n```\n## b\n````\n## b\nB", map[string]string{"a": "````\n```\n## b\n````", "b": "B"}},
		{"indented code keeps indentation", "## a\n\n    code\n\n", map[string]string{"a": "    code"}},
		{"h3 stays", "## a\n### b\nx", map[string]string{"a": "### b\nx"}},
		{"not at line start", "## a\n ## b\n", map[string]string{"a": " ## b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &lessonFile{path: "x.md", sections: map[string]string{}}
			f.splitSections(tt.body, 1, map[string]bool{"a": true, "b": true})
			if len(f.sections) != len(tt.want) {
				t.Errorf("sections = %q, want %q", f.sections, tt.want)
			}
			for id, w := range tt.want {
				if f.sections[id] != w {
					t.Errorf("section %s = %q, want %q", id, f.sections[id], w)
				}
			}
		})
	}
}

func TestCRLFAndBOM(t *testing.T) {
	data := "\ufeff---\r\nid: a\r\nphase: authn\r\ntitle: A\r\nsteps:\r\n  - id: s\r\n    title: S\r\n---\r\n## s\r\nText\r\n"
	f, err := parseLessonFile("en/02-authn.md", []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.fm.ID != "a" || f.sections["s"] != "Text" {
		t.Errorf("parsed %+v %q", f.fm, f.sections)
	}
}

func TestDetectLang(t *testing.T) {
	tests := []struct {
		name string
		flag string
		env  map[string]string
		want string
	}{
		{"nothing set", "", nil, "en"},
		{"flag zh-CN", "zh-CN", nil, "zh-CN"},
		{"flag zh", "zh", nil, "zh-CN"},
		{"flag wins over the locale", "en", map[string]string{"LANG": "zh_CN.UTF-8", "LANGUAGE": "zh_CN"}, "en"},
		{"flag unsupported", "fr", nil, "en"},
		{"flag Traditional", "zh-TW", nil, "en"},
		{"LANG", "", map[string]string{"LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{"LANG other encoding", "", map[string]string{"LANG": "zh_CN.GB2312"}, "zh-CN"},
		{"LANG Singapore", "", map[string]string{"LANG": "zh_SG.UTF-8"}, "zh-CN"},
		{"LC_MESSAGES over LANG", "", map[string]string{"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh-CN"},
		{"LC_ALL over LC_MESSAGES", "", map[string]string{"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, "en"},
		{"LC_ALL=C", "", map[string]string{"LC_ALL": "C", "LC_MESSAGES": "zh_CN.UTF-8"}, "en"},
		{"LC_ALL modifier", "", map[string]string{"LC_ALL": "zh_CN@pinyin"}, "zh-CN"},
		{"German", "", map[string]string{"LANG": "de_DE.UTF-8"}, "en"},
		{"Taiwan", "", map[string]string{"LANG": "zh_TW.UTF-8"}, "en"},
		{"Hong Kong", "", map[string]string{"LANG": "zh_HK.UTF-8"}, "en"},
		{"LANGUAGE over LANG", "", map[string]string{"LANGUAGE": "zh_CN", "LANG": "en_US.UTF-8"}, "zh-CN"},
		{"LANGUAGE over LC_ALL", "", map[string]string{"LANGUAGE": "zh", "LC_ALL": "en_GB.UTF-8"}, "zh-CN"},
		{"LANGUAGE first usable entry", "", map[string]string{"LANGUAGE": "fr:de:zh_CN:en", "LANG": "en_US.UTF-8"}, "zh-CN"},
		{"LANGUAGE English first", "", map[string]string{"LANGUAGE": "en:zh_CN", "LANG": "zh_CN.UTF-8"}, "en"},
		{"LANGUAGE nothing usable", "", map[string]string{"LANGUAGE": "fr:zh_TW", "LANG": "zh_CN.UTF-8"}, "zh-CN"},
		{"LANGUAGE empty entries", "", map[string]string{"LANGUAGE": "::zh-Hans:", "LANG": "en_US.UTF-8"}, "zh-CN"},
		{"LANGUAGE ignored in the C locale", "", map[string]string{"LANGUAGE": "zh_CN", "LANG": "C"}, "en"},
		{"LANGUAGE ignored in POSIX", "", map[string]string{"LANGUAGE": "zh_CN", "LC_ALL": "POSIX"}, "en"},
		{"LANGUAGE ignored without a locale", "", map[string]string{"LANGUAGE": "zh_CN"}, "en"},
		{"LANGUAGE counts in C.UTF-8", "", map[string]string{"LANGUAGE": "zh_CN", "LANG": "C.UTF-8"}, "zh-CN"},
		{"LANGUAGE Traditional only", "", map[string]string{"LANGUAGE": "zh_TW", "LANG": "en_US.UTF-8"}, "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DetectLang(tt.flag, func(k string) string { return tt.env[k] })
			if got != tt.want {
				t.Errorf("DetectLang(%q, %v) = %q, want %q", tt.flag, tt.env, got, tt.want)
			}
		})
	}
}

func TestNormalizeLang(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"zh-CN", "zh-CN", true},
		{"zh_cn", "zh-CN", true},
		{"zh_CN.UTF-8", "zh-CN", true},
		{"zh_CN.utf8", "zh-CN", true},
		{"zh", "zh-CN", true},
		{"zh_SG", "zh-CN", true},
		{"zh-Hans", "zh-CN", true},
		{"zh-Hans-CN", "zh-CN", true},
		{"zh_TW", "en", false},
		{"zh_HK.UTF-8", "en", false},
		{"zh-Hant", "en", false},
		{"en_GB.UTF-8", "en", true},
		{"C.UTF-8", "en", true},
		{"POSIX", "en", true},
		{"", "en", false},
		{"ja_JP.UTF-8", "en", false},
	}
	for _, tt := range tests {
		got, ok := NormalizeLang(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("NormalizeLang(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLanguages(t *testing.T) {
	got, err := Languages(fstest.MapFS{"zh-CN/a.md": {}, "en/a.md": {}, "de/a.md": {}, ".git/x": {}, "README.md": {}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "en,de,zh-CN" {
		t.Errorf("Languages() = %q", got)
	}
}
