package i18n

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestGlossaryData: the embedded glossary parses, has no duplicate term, fills both columns and
// the definition, and has every term the catalogue's comments and the lessons rely on, with the
// variants issue 16 found drifting rejected.
func TestGlossaryData(t *testing.T) {
	terms, err := Glossary()
	if err != nil {
		t.Fatal(err)
	}
	if len(terms) < 70 {
		t.Errorf("only %d terms", len(terms))
	}
	has := map[string]Term{}
	for _, term := range terms {
		if strings.TrimSpace(term.English) == "" || strings.TrimSpace(term.Chinese) == "" || strings.TrimSpace(term.Definition) == "" {
			t.Errorf("empty column in %+v", term)
		}
		if w := ansi.StringWidth(term.Definition); w > 160 {
			t.Errorf("%s: the definition is %d cells; keep it short (at most 160)", term.English, w)
		}
		has[term.English] = term
	}
	// The terms the catalogue uses for kubewalk's own concepts, as zh_cn.go's comment lists them,
	// and the ones the lessons and exercises drifted on.
	for _, tt := range []struct {
		en, zh   string
		rejected []string
	}{
		{"phase", "阶段", nil}, {"breakpoint / checkpoint", "断点 / 检查点", nil}, {"stage (of a request)", "环节", nil},
		{"request lane", "泳道", []string{"通道"}}, {"held request", "挂起的请求", nil}, {"lesson / step", "课程 / 步骤", nil},
		{"review (an earlier stop)", "回看", nil}, {"pane", "面板", nil}, {"authentication (authn)", "身份认证", []string{"认证"}},
		{"authorization (authz)", "鉴权", nil}, {"Namespace", "名字空间", []string{"命名空间"}}, {"impersonation", "伪装", nil},
		{"authenticator", "身份认证器", []string{"认证器"}}, {"authorizer", "鉴权器", []string{"授权器"}},
		{"bearer token", "持有者令牌", []string{"bearer token"}}, {"token", "令牌", []string{"token"}},
		{"validation", "验证", []string{"校验"}}, {"key (etcd)", "键", []string{"key"}}, {"revision (etcd)", "修订号", []string{"revision"}},
		{"cluster-scoped", "集群作用域的", []string{"集群级"}}, {"handler", "处理程序", []string{"处理器"}},
		{"short name", "简称", []string{"简写"}}, {"kind", "Kind", []string{"类别"}}, {"schema", "schema", []string{"模式"}},
		{"ConfigMap", "ConfigMap", []string{"configmap"}}, {"Pod", "Pod", []string{"pod"}}, {"Deployment", "Deployment", []string{"deployment"}},
	} {
		term, ok := has[tt.en]
		if !ok || term.Chinese != tt.zh {
			t.Errorf("glossary: %q is %q, want %q", tt.en, term.Chinese, tt.zh)
		}
		for _, r := range tt.rejected {
			if !slices.Contains(term.Rejected, r) {
				t.Errorf("glossary: %q does not reject %q (rejects %q)", tt.en, r, term.Rejected)
			}
		}
	}
}

// TestTermChecker: the contract's rules, one case each, including what they must let through.
func TestTermChecker(t *testing.T) {
	terms := []Term{
		{English: "authenticator", Chinese: "身份认证器", Rejected: []string{"认证器"}},
		{English: "authentication", Chinese: "身份认证", Rejected: []string{"认证"}},
		{English: "bearer token", Chinese: "持有者令牌", Rejected: []string{"bearer token"}},
		{English: "token", Chinese: "令牌", Rejected: []string{"token"}},
		{English: "Pod", Chinese: "Pod", Rejected: []string{"pod"}},
		{English: "validation", Chinese: "验证", Rejected: []string{"校验"}},
		{English: "authorization mode", Chinese: "鉴权模式"},
		{English: "schema", Chinese: "schema", Rejected: []string{"模式"}},
		{English: "watch / watch cache", Chinese: "监视（watch）/ 监视缓存", Rejected: []string{"watch 缓存"}},
	}
	c := NewTermChecker(terms)
	for _, tt := range []struct {
		name, text string
		want       []string // the Text of each finding
	}{
		{"preferred", "身份认证器和持有者令牌", nil},
		{"variant", "匿名认证器", []string{"认证器"}},
		{"longest variant wins", "认证器", []string{"认证器"}},
		{"bare variant", "认证拒绝了它", []string{"认证"}},
		{"gloss after the term", "持有者令牌（bearer token）", nil},
		{"gloss not after a term", "凭据（bearer token）", []string{"bearer token"}},
		{"Latin variant", "用一个 bearer token 和一个 token", []string{"bearer token", "token"}},
		{"whole words", "tokenfile 和 authn-bad-token", nil},
		{"case counts", "创建一个 Pod，再看 pod", []string{"pod"}},
		{"code span", "运行 `kubectl run pod --token x`", nil},
		{"double-backtick span", "运行 ``a `pod` b`` 之后", nil},
		{"path or command", "读 pods/exec，用 :pod 和 x.pod", nil},
		{"English quotation", "消息是“pod web does not have a host assigned”", nil},
		{"Chinese quotation", "他说“这个 pod 不行”", []string{"pod"}},
		{"inside a preferred term", "每种鉴权模式一个鉴权器", nil},
		{"overlapping a preferred term", "先用 CA 校验证书链", []string{"校验"}},
		{"variant with a space", "由 watch 缓存提供，而不是监视缓存", []string{"watch 缓存"}},
		{"stray space", "用 回环客户端", []string{"用 回"}},
		{"two stray spaces", "RBAC 用 资源/子资源 的形式", []string{"用 资", "源 的"}},
		{"space next to full-width punctuation", "答对了 ，好", []string{"了 ，"}},
		{"ideographic space", "答对了\u3000好", []string{"了\u3000好"}},
		{"spaces around Latin and code", "调用 `Complete()` 时，用 kubectl 和 60 秒", nil},
		{"tab separates columns", "阶段\t步骤", nil},
		{"stage called a phase", "看它的 authentication 阶段", []string{"authentication 阶段"}},
		{"stage in code called a phase", "看 `admission/mutating/kubewalk.io/CreatedBy` 阶段", []string{"`admission/mutating/kubewalk.io/CreatedBy` 阶段"}},
		{"phase name", "storage 阶段和 authn 阶段", nil},
		{"stage", "authentication 环节", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range c.Check(tt.text) {
				got = append(got, f.Text)
				if rs := []rune(tt.text); f.Col < 0 || f.Col >= len(rs) || f.Msg == "" {
					t.Errorf("finding %+v: column out of %q or no message", f, tt.text)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
	// The column points into the original text, code spans counted.
	if fs := c.Check("`x` 和 `yy` 的 pod"); len(fs) != 1 || string([]rune("`x` 和 `yy` 的 pod")[fs[0].Col:][:3]) != "pod" {
		t.Errorf("Check column = %+v", fs)
	}
}

func TestParseGlossaryErrors(t *testing.T) {
	const head = "| English | 中文 | definition | rejected | 说明 |\n|---|---|---|---|---|\n"
	for _, tt := range []struct {
		name, md, want string
	}{
		{"duplicate English", "| en | zh |\n|---|---|\n| phase | 阶段 |\n| Phase | 相位 |\n", `line 4: "Phase" is already on line 3`},
		{"duplicate Chinese", "| en | zh |\n|---|---|\n| phase | 阶段 |\n| stage | 阶段 |\n", `line 4: "阶段" is already on line 3`},
		{"empty Chinese", "| en | zh |\n|---|---|\n| phase |  |\n", "line 3: both"},
		{"empty English", "| en | zh | note |\n|---|---|---|\n|  | 阶段 | x |\n", "line 3: both"},
		{"no definition", head + "| phase | 阶段 |  | | |\n", `line 3: "phase" has no definition`},
		{"rejects its own term", head + "| role / cluster role | 角色 / 集群角色 | A role. | 集群角色 | |\n", `line 3: "集群角色" is both preferred and rejected`},
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
	// Columns by name, in any order; variants split on 、 and commas.
	terms, err = ParseGlossary([]byte("| 说明 | rejected | English | definition | 中文 |\n|---|---|---|---|---|\n| 注 | 认证器、验证器, x | authenticator | Says who. | 身份认证器 |\n"))
	want := Term{English: "authenticator", Chinese: "身份认证器", Definition: "Says who.", Rejected: []string{"认证器", "验证器", "x"}, Note: "注"}
	if err != nil || len(terms) != 1 || !reflect.DeepEqual(terms[0], want) {
		t.Errorf("ParseGlossary = %+v, %v; want %+v", terms, err, want)
	}
	if got := (Term{Chinese: "监视（watch）/ 监视缓存"}).Preferred(); !slices.Equal(got, []string{"监视（watch）", "监视", "监视缓存"}) {
		t.Errorf("Preferred = %q", got)
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

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		s    string
		w    int
		want []string
	}{
		{"a short line", 20, []string{"a short line"}},
		{"words wrap between words", 10, []string{"words wrap", "between", "words"}},
		{"说明：kubewalk 特有：请求经过处理链", 16, []string{"说明：kubewalk", "特有：请求经过处", "理链"}},
		{"一二三四五，六七", 10, []string{"一二三四", "五，六七"}},
		{"一二三四（五六）", 8, []string{"一二三四", "（五六）"}},
		{"一二三四五（六）", 8, []string{"一二三四", "五（六）"}},
		{"averyveryverylongword", 8, []string{"averyver", "yverylon", "gword"}},
		{"", 10, []string{""}},
	} {
		got := Wrap(tt.s, tt.w)
		if !slices.Equal(got, tt.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.s, tt.w, got, tt.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > tt.w {
				t.Errorf("Wrap(%q, %d): line %q is %d cells", tt.s, tt.w, l, ansi.StringWidth(l))
			}
		}
	}
}
