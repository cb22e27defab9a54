package i18n

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestGlossaryData: the embedded glossary parses, has no duplicate term, fills both columns, and
// has every term the catalogue's comments and the lessons rely on.
func TestGlossaryData(t *testing.T) {
	terms, err := Glossary()
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) < 40 {
		t.Errorf("only %d terms", len(terms))
	}
	has := map[string]string{}
	for _, term := range terms {
		if strings.TrimSpace(term.English) == "" || strings.TrimSpace(term.Chinese) == "" {
			t.Errorf("empty column in %+v", term)
		}
		has[term.English] = term.Chinese
	}
	// The terms the catalogue uses for kubewalk's own concepts, as zh_cn.go's comment lists them.
	for en, zh := range map[string]string{
		"phase": "阶段", "breakpoint / checkpoint": "断点 / 检查点", "stage (of a request)": "环节",
		"request lane": "泳道", "held request": "挂起的请求", "lesson / step": "课程 / 步骤",
		"review (an earlier stop)": "回看", "pane": "面板", "authentication (authn)": "身份认证",
		"authorization (authz)": "鉴权", "Namespace": "名字空间", "impersonation": "伪装",
	} {
		if has[en] != zh {
			t.Errorf("glossary: %q is %q, want %q", en, has[en], zh)
		}
	}
}

func TestParseGlossaryErrors(t *testing.T) {
	for _, tt := range []struct {
		name, md, want string
	}{
		{"duplicate English", "| en | zh |\n|---|---|\n| phase | 阶段 |\n| Phase | 相位 |\n", `line 4: "Phase" is already on line 3`},
		{"duplicate Chinese", "| en | zh |\n|---|---|\n| phase | 阶段 |\n| stage | 阶段 |\n", `line 4: "阶段" is already on line 3`},
		{"empty Chinese", "| en | zh |\n|---|---|\n| phase |  |\n", "line 3: both"},
		{"empty English", "| en | zh | note |\n|---|---|---|\n|  | 阶段 | x |\n", "line 3: both"},
		{"no table", "# nothing\n", "no table"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGlossary([]byte(tt.md))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	terms, err := ParseGlossary([]byte("intro | not a table\n\n| a | b | c |\n|:--|--:|---|\n| x \\| y | 甲 | |\n| z | 乙 | 注 |\n\nafter\n| q | r |\n"))
	if err != nil || len(terms) != 2 || terms[0].English != "x | y" || terms[1].Note != "注" {
		t.Errorf("ParseGlossary = %+v, %v", terms, err)
	}
}

func TestTable(t *testing.T) {
	got := Table([][]string{{"PHASE", "STEPS", "LESSON"}, {"authn", "6", "身份认证"}, {"配置", "10", "配置"}}, 2)
	want := []string{
		"PHASE  STEPS  LESSON",
		"authn  6      身份认证",
		"配置   10     配置",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Table:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Every column starts at the same cell on every line.
	for _, l := range got {
		if c := strings.Index(l, "6"); c >= 0 && ansi.StringWidth(l[:c]) != 7 {
			t.Errorf("column 2 at cell %d in %q", ansi.StringWidth(l[:c]), l)
		}
	}
	if PadRight("阶段", 6) != "阶段  " || PadRight("toolong", 3) != "toolong" {
		t.Error("PadRight")
	}
}
