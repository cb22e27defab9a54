package lessons

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/kubewalk/kubewalk/content"
)

// TestContentTranslations requires every translation in content/ to be complete: the loader
// falls back to English string by string, so a missing title or text would silently show
// English to a learner who chose another language.
func TestContentTranslations(t *testing.T) {
	langs, err := Languages(content.FS)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(langs, "zh-CN") {
		t.Fatalf("languages %v: content/zh-CN is missing", langs)
	}
	for _, lang := range langs[1:] {
		for _, p := range translationGaps(content.FS, lang) {
			t.Errorf("content/%s", p)
		}
	}
}

// inlineCode matches a single-backtick code span; fencedCode a fenced block.
var (
	inlineCode = regexp.MustCompile("`[^`\n]+`")
	fencedCode = regexp.MustCompile("(?ms)^ {0,3}(```|~~~).*?^ {0,3}(```|~~~)[ \t]*$")
)

// translationGaps lists what the lang translation in fsys lacks against English: a lesson
// file, the lesson title, a step title or a step text; and, per step, the code (inline spans
// and fenced blocks) that differs from English, since identifiers, commands and paths are
// never translated. Orphans and wrong metadata are Check's business.
func translationGaps(fsys fs.FS, lang string) []string {
	names, err := lessonFiles(fsys, DefaultLang)
	if err != nil {
		return []string{err.Error()}
	}
	var gaps []string
	for _, name := range names {
		en, err := readLessonFile(fsys, path.Join(DefaultLang, name), nil)
		if err != nil {
			gaps = append(gaps, err.Error())
			continue
		}
		trPath := path.Join(lang, name)
		tr, err := readLessonFile(fsys, trPath, en)
		if err != nil {
			gaps = append(gaps, fmt.Sprintf("%s: not translated (%v)", trPath, err))
			continue
		}
		if tr.fm.Title == "" {
			gaps = append(gaps, fmt.Sprintf("%s: no lesson title", trPath))
		}
		titles := map[string]string{}
		for _, s := range tr.fm.Steps {
			titles[s.ID] = s.Title
		}
		for _, s := range en.fm.Steps {
			if titles[s.ID] == "" {
				gaps = append(gaps, fmt.Sprintf("%s: step %s: no title", trPath, s.ID))
			}
			text := tr.sections[s.ID]
			switch {
			case text == "":
				gaps = append(gaps, fmt.Sprintf("%s: step %s: no text (no \"## %s\" section)", trPath, s.ID, s.ID))
				continue
			case text == en.sections[s.ID]:
				gaps = append(gaps, fmt.Sprintf("%s: step %s: the text is the English text", trPath, s.ID))
				continue
			}
			gaps = append(gaps, codeDiff(trPath, s.ID, en.sections[s.ID], text)...)
		}
	}
	return gaps
}

// codeDiff reports the code of the English step text en that the translation tr lacks, and
// code in tr that en does not have.
func codeDiff(file, step, en, tr string) []string {
	code := func(s string) []string {
		blocks := fencedCode.FindAllString(s, -1)
		return append(blocks, inlineCode.FindAllString(fencedCode.ReplaceAllString(s, ""), -1)...)
	}
	enCode, trCode := code(en), code(tr)
	var out []string
	for _, c := range enCode {
		if !slices.Contains(trCode, c) {
			out = append(out, fmt.Sprintf("%s: step %s: code %s of the English text is missing (copy code spans and blocks unchanged)", file, step, c))
			trCode = append(trCode, c) // report each once
		}
	}
	for _, c := range code(tr) {
		if !slices.Contains(enCode, c) {
			out = append(out, fmt.Sprintf("%s: step %s: code %s is not in the English text (identifiers, commands and paths stay as in English)", file, step, c))
			enCode = append(enCode, c)
		}
	}
	return out
}

func TestTranslationGaps(t *testing.T) {
	const en = "---\nid: authn\nphase: authn\ntitle: \"Authn\"\nsteps:\n" +
		"  - id: x509\n    checkpoint: authn/x509\n    title: \"Certs\"\n    anchor: \"New\"\n" +
		"  - id: token\n    checkpoint: authn/token\n    title: \"Tokens\"\n    anchor: \"New\"\n---\n" +
		"## x509\nUse `--client-ca-file`.\n\n## token\nRead `Authorization: Bearer <token>`.\n"
	tests := []struct {
		name string
		zh   string // "" for no file
		want []string
	}{
		{"complete", "---\nid: authn\ntitle: \"认证\"\nsteps:\n  - id: x509\n    title: \"证书\"\n  - id: token\n    title: \"令牌\"\n---\n" +
			"## x509\n使用 `--client-ca-file`。\n\n## token\n读取 `Authorization: Bearer <token>`。\n", nil},
		{"no file", "", []string{"zh-CN/02-authn.md: not translated"}},
		{"gaps", "---\nid: authn\nsteps:\n  - id: x509\n    title: \"证书\"\n---\n" +
			"## x509\nUse `--client-ca-file`.\n", []string{
			"zh-CN/02-authn.md: no lesson title",
			"zh-CN/02-authn.md: step x509: the text is the English text",
			"zh-CN/02-authn.md: step token: no title",
			"zh-CN/02-authn.md: step token: no text",
		}},
		{"code changed", "---\nid: authn\ntitle: \"认证\"\nsteps:\n  - id: x509\n    title: \"证书\"\n  - id: token\n    title: \"令牌\"\n---\n" +
			"## x509\n使用 `--客户端-ca-file`。\n\n## token\n读取 `Authorization: Bearer <token>`。\n", []string{
			"step x509: code `--client-ca-file` of the English text is missing",
			"step x509: code `--客户端-ca-file` is not in the English text",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"en/02-authn.md": {Data: []byte(en)}, "zh-CN/README.md": {Data: []byte("x")}}
			if tt.zh != "" {
				fsys["zh-CN/02-authn.md"] = &fstest.MapFile{Data: []byte(tt.zh)}
			}
			got := translationGaps(fsys, "zh-CN")
			if len(got) != len(tt.want) {
				t.Fatalf("gaps:\n%q\nwant %d containing:\n%q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("gap %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}
