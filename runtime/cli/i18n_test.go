package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/cli/supervisor"
	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// setLocale puts the test in a locale: every variable lessons.DetectLang reads is set, so the
// machine's own locale does not leak in, and progress goes to a temporary directory.
func setLocale(t *testing.T, lang string) {
	t.Helper()
	for _, k := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES"} {
		t.Setenv(k, "")
	}
	t.Setenv("LANG", lang)
	t.Setenv("XDG_STATE_HOME", t.TempDir())
}

// run executes kubewalk's command line in-process.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Execute(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestCLIErrorsInChinese: with --lang zh-CN (or a Chinese locale) the errors kubewalk reports
// itself are Chinese; a bad --lang is reported in the locale's language.
func TestCLIErrorsInChinese(t *testing.T) {
	tests := []struct {
		name   string
		locale string
		args   []string
		want   []string
	}{
		{"bad flag value, --lang zh-CN", "en_US.UTF-8", []string{"tour", "--lang", "zh-CN", "--bind-address", "nope"},
			[]string{"kubewalk: 命令行参数有误：", `--bind-address "nope"`}},
		{"bad flag value, Chinese locale", "zh_CN.UTF-8", []string{"serve", "--secure-port", "70000"},
			[]string{"kubewalk: 命令行参数有误：", "--secure-port 70000"}},
		{"unsupported --lang, Chinese locale", "zh_CN.UTF-8", []string{"tour", "--lang", "klingon"},
			[]string{`--lang "klingon"：不支持该语言`, "繁体中文"}},
		{"Traditional Chinese asked for", "zh_CN.UTF-8", []string{"lessons", "--lang", "zh-TW"},
			[]string{`--lang "zh-TW"：不支持该语言`}},
		{"glossary, unsupported --lang", "zh_CN.UTF-8", []string{"glossary", "--lang", "fr"},
			[]string{`--lang "fr"：不支持该语言`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setLocale(t, tt.locale)
			code, _, stderr := run(t, tt.args...)
			if code != 1 {
				t.Errorf("exit code %d, want 1; stderr %q", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("not one line: %q", stderr)
			}
		})
	}
	// The same mistakes in English, unchanged.
	setLocale(t, "en_US.UTF-8")
	if _, _, stderr := run(t, "tour", "--lang", "klingon"); !strings.Contains(stderr, `--lang "klingon": not a supported language`) {
		t.Errorf("English: %q", stderr)
	}
	if _, _, stderr := run(t, "tour", "--bind-address", "nope"); stderr != "kubewalk: --bind-address \"nope\": not an IP address\n" {
		t.Errorf("English: %q", stderr)
	}
}

// TestLessonsListAligned: `kubewalk lessons --lang zh-CN` has a Chinese header and its columns
// start at the same terminal cell on every line (CJK is two cells wide); a corrupt progress
// file is a Chinese warning.
func TestLessonsListAligned(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			setLocale(t, "C.UTF-8")
			code, out, stderr := run(t, "lessons", "--lang", lang)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			table, _, _ := strings.Cut(out, "\n\n") // the exercises follow the table
			lines := strings.Split(strings.TrimRight(table, "\n"), "\n")
			tr := i18n.For(lang)
			header := strings.Split(tr.CLILessonsHeader, "\t")
			if !strings.HasPrefix(lines[0], header[0]) {
				t.Fatalf("header %q, want %q first", lines[0], header[0])
			}
			checkColumns(t, lines)
		})
	}
	setLocale(t, "zh_CN.UTF-8")
	dir := os.Getenv("XDG_STATE_HOME")
	if err := os.MkdirAll(filepath.Join(dir, "kubewalk"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kubewalk", "progress.json"), []byte("{nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "lessons")
	if code != 0 || !strings.Contains(stderr, "kubewalk: 警告：") || !strings.Contains(stderr, "不显示学习进度") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if !strings.HasPrefix(out, "阶段") {
		t.Errorf("the locale did not choose Chinese: %q", out)
	}
}

// checkColumns fails unless every column of a table (runs of two or more spaces separate
// them) starts at the same terminal cell on every line.
func checkColumns(t *testing.T, lines []string) {
	t.Helper()
	starts := func(l string) []int {
		var out []int
		cell, prevSpaces := 0, 0
		for _, r := range l {
			if r == ' ' {
				prevSpaces++
			} else {
				if prevSpaces >= 2 || (cell == 0 && prevSpaces == 0) {
					out = append(out, cell)
				}
				prevSpaces = 0
			}
			cell += ansi.StringWidth(string(r))
		}
		return out
	}
	want := starts(lines[0])
	for _, l := range lines[1:] {
		got := starts(l)
		for i := 0; i < len(got) && i < len(want); i++ {
			if got[i] != want[i] {
				t.Errorf("column %d starts at cell %d, header's at %d:\n%s\n%s", i+1, got[i], want[i], lines[0], l)
				break
			}
		}
	}
}

// TestGlossaryCommand: `kubewalk glossary` prints every term of the glossary in both languages,
// aligned in terminal cells, with the header in the chosen language, and under each term, within
// 80 columns, its definition, the variants it rejects and its note.
func TestGlossaryCommand(t *testing.T) {
	terms, err := i18n.Glossary()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			setLocale(t, "C.UTF-8")
			code, out, stderr := run(t, "glossary", "--lang", lang)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			tr := i18n.For(lang)
			intro, body, ok := strings.Cut(out, "\n\n")
			bare := func(s string) string { return strings.Join(strings.Fields(s), "") }
			if !ok || bare(intro) != bare(tr.GlossaryIntro) {
				t.Errorf("no introduction: %q", out[:min(len(out), 200)])
			}
			lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
			for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
				if w := ansi.StringWidth(l); w > 80 {
					t.Errorf("%d cells, more than the 80 of a pipe: %q", w, l)
				}
			}
			if want := strings.Split(tr.CLIGlossaryHeader, "\t")[1]; !strings.Contains(lines[0], want) {
				t.Errorf("header %q lacks %q", lines[0], want)
			}
			// Each term's line, then its indented lines; the Chinese term starts at the same
			// cell on every term line.
			col, i := -1, 1
			for _, term := range terms {
				if i >= len(lines) {
					t.Fatalf("the output ends before %q", term.English)
				}
				l := lines[i]
				j := strings.LastIndex(l, term.Chinese)
				if !strings.HasPrefix(l, term.English) || j < 0 {
					t.Fatalf("line %q lacks %q / %q", l, term.English, term.Chinese)
				}
				c := ansi.StringWidth(l[:j])
				if col < 0 {
					col = c
				} else if c != col {
					t.Errorf("%q starts at cell %d, not %d: %q", term.Chinese, c, col, l)
				}
				var more []string
				for i++; i < len(lines) && strings.HasPrefix(lines[i], "    "); i++ {
					more = append(more, strings.TrimSpace(lines[i]))
				}
				block := bare(strings.Join(more, ""))
				if !strings.Contains(block, bare(term.Definition)) {
					t.Errorf("%s: the definition %q is not under it:\n%s", term.English, term.Definition, strings.Join(more, "\n"))
				}
				for _, r := range term.Rejected {
					if !strings.Contains(block, bare(r)) {
						t.Errorf("%s: the rejected %q is not under it", term.English, r)
					}
				}
				if term.Note != "" && !strings.Contains(block, bare(term.Note)) {
					t.Errorf("%s: the note %q is not under it", term.English, term.Note)
				}
			}
			if i != len(lines) {
				t.Errorf("%d lines after the last term", len(lines)-i)
			}
		})
	}
}

func TestLangArg(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"tour", "--lang", "zh-CN"}, "zh-CN"},
		{[]string{"--lang=zh", "--plain"}, "zh"},
		{[]string{"serve", "--", "--lang", "zh"}, ""},
		{[]string{"tour", "--lang"}, ""},
	} {
		if got := langArg(tt.args); got != tt.want {
			t.Errorf("langArg(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// TestCrashMessageInChinese: the supervisor says in the run's language that kubewalk crashed.
func TestCrashMessageInChinese(t *testing.T) {
	zh := supervisor.MessagesFor(i18n.SimplifiedChinese)
	got := supervisor.CrashMessage(zh, syscall.WaitStatus(2<<8), "/tmp/kubewalk.log", []string{"/tmp/x"})
	for _, w := range []string{"kubewalk 崩溃了（退出状态 2）；日志位于 /tmp/kubewalk.log", "无法删除：/tmp/x"} {
		if !strings.Contains(got, w) {
			t.Errorf("%q lacks %q", got, w)
		}
	}
}

// TestMessagesAreI18n holds the supervisor's copies of its messages equal to runtime/i18n's.
func TestMessagesAreI18n(t *testing.T) {
	for _, lang := range i18n.Languages() {
		tr, sup := i18n.For(lang), supervisor.MessagesFor(lang)
		pairs := []struct{ name, sup, i18n string }{
			{"CLIInterruptedShort", sup.InterruptedShort, tr.CLIInterruptedShort},
			{"CLICrashedNoLog", sup.CrashedNoLog, tr.CLICrashedNoLog},
			{"CLICrashed", sup.Crashed, tr.CLICrashed},
			{"CLICrashedTrace", sup.CrashedTrace, tr.CLICrashedTrace},
			{"CLICouldNotRemove", sup.CouldNotRemove, tr.CLICouldNotRemove},
			{"CLIExitStatus", sup.ExitStatus, tr.CLIExitStatus},
			{"CLISignal", sup.Signal, tr.CLISignal},
		}
		for _, p := range pairs {
			if p.sup != p.i18n {
				t.Errorf("%s %s: the supervisor says %q, runtime/i18n %q", lang, p.name, p.sup, p.i18n)
			}
		}
	}
}

// TestDetectLangAsCLI: the supervisor speaks the language the run speaks.
func TestDetectLangAsCLI(t *testing.T) {
	envs := []map[string]string{
		{}, {"LANG": "C"}, {"LANG": "C.UTF-8"}, {"LANG": "POSIX"}, {"LANG": "zh_CN.UTF-8"}, {"LANG": "zh_CN"},
		{"LANG": "zh_TW.UTF-8"}, {"LANG": "en_GB.UTF-8"}, {"LANG": "fr_FR.UTF-8", "LANGUAGE": "zh_CN:en"},
		{"LANG": "C", "LANGUAGE": "zh_CN"}, {"LANGUAGE": "zh"}, {"LC_ALL": "zh_SG.UTF-8", "LANG": "en_US.UTF-8"},
		{"LC_MESSAGES": "zh-Hans", "LANG": "en_US.UTF-8"}, {"LC_ALL": "de_DE@euro", "LANGUAGE": "fr:zh-hans-cn"},
		{"LANG": " ZH_cn .utf8"},
	}
	argss := [][]string{
		nil, {"--lang", "zh-CN"}, {"tour", "--lang=zh"}, {"--lang", "en"}, {"--lang", "xx"}, {"--lang=", "--lang", "zh"},
		{"serve", "--", "--lang", "zh"}, {"--lang"}, {"--lang", "zh_CN.UTF-8"}, {"--lang", "ZH-HANS"},
	}
	for _, env := range envs {
		for _, k := range []string{"LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"} {
			t.Setenv(k, env[k])
		}
		for _, args := range argss {
			want := msgs(langArg(args)).Lang()
			if got := supervisor.DetectLang(args, os.Getenv); got != want {
				t.Errorf("env %v, args %q: the supervisor speaks %s, the run %s", env, args, got, want)
			}
		}
	}
}
