package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/runtime/tui/walk"
	"github.com/kubewalk/kubewalk/server"
)

// codeSpanRE finds single-backtick inline code in Markdown; fencedRE a fenced code block,
// whose lines are shown as they are, never wrapped at words.
var (
	codeSpanRE = regexp.MustCompile("`([^`]+)`")
	fencedRE   = regexp.MustCompile("(?ms)^```[^\n]*\n.*?^```[ \t]*$")
)

// squeeze drops what rendering may add or remove around words: spaces, Markdown emphasis and
// link punctuation, backticks.
var squeeze = strings.NewReplacer(" ", "", string(keepSpace), "", string(gluedSpace), "", "`", "", "*", "", "[", "", "]", "", "(", "", ")", "")

// wrapProblems checks lesson lines rendered from the Markdown md at width w: no line is wider
// than w, every inline code span that fits on a line is on one line, and no word that fits is
// split (CJK text may break between characters, so words are the runs of narrow runes). It
// returns one message per problem.
func wrapProblems(md string, lines []string, w int) []string {
	var probs []string
	var plain []string
	for i, l := range lines {
		if got := ansi.StringWidth(l); got > w {
			probs = append(probs, fmt.Sprintf("line %d is %d cells, wider than %d: %q", i+1, got, w, ansi.Strip(l)))
		}
		plain = append(plain, ansi.Strip(l))
	}
	// Room for a word: the width less the margin and a list bullet's hanging indent.
	room := w - 6
	onOneLine := func(s string, squeezed bool) bool {
		for _, l := range plain {
			if squeezed {
				l = squeeze.Replace(l)
			}
			if strings.Contains(l, s) {
				return true
			}
		}
		return false
	}
	md = fencedRE.ReplaceAllString(md, "")
	for _, m := range codeSpanRE.FindAllStringSubmatch(md, -1) {
		code := strings.ReplaceAll(m[1], "\n", " ")
		if ansi.StringWidth(code) <= room && !onOneLine(code, false) {
			probs = append(probs, fmt.Sprintf("inline code %q is split across lines", code))
		}
	}
	for _, tok := range strings.Fields(md) {
		for _, word := range narrowRuns(squeeze.Replace(tok)) {
			if len(word) > 1 && ansi.StringWidth(word) <= room && !onOneLine(word, true) {
				probs = append(probs, fmt.Sprintf("word %q (in %q) is split across lines", word, tok))
			}
		}
	}
	return probs
}

// narrowRuns splits s at its wide (CJK) runes.
func narrowRuns(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return ansi.StringWidth(string(r)) > 1 })
}

// lessonText is a Markdown step with every case that used to break: a command with an option
// glued by "=", a flag after "--", a code span followed by punctuation, a long path, a span
// wider than any pane, emphasis, a list, and Chinese text with inline code.
const lessonText = "Try `kubectl run web --image=nginx` after serve, or `etcdctl --endpoints <endpoint> get /registry --prefix --keys-only`. " +
	"kube-apiserver builds its chain from `--authorization-mode`, for example `Node,RBAC`. " +
	"A URL names a group, a version and a resource, for example `/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings`, " +
	"and `kubectl auth can-i --list --as alice` lists what RBAC allows.\n\n" +
	"**State pane:** `authz → authorizer: union: first Allow/Deny wins` lists `1. privileged-groups` and `2. rbac`.\n\n" +
	"- the loopback client, user `system:apiserver`, whose post-start hooks create the RBAC policy;\n" +
	"- the `admin` context, whose certificate has `O=system:masters`.\n\n" +
	"A span wider than a pane: `kubectl --kubeconfig /tmp/kubewalk-0123456789/kubeconfig --context alice create configmap demo --from-literal=key=value --dry-run=server -o yaml`.\n\n" +
	"用 `kubectl auth can-i --list` 查看，RBAC 只会添加权限，没有“拒绝”规则；`system:masters` 组的成员（例如 `admin` 上下文）不受 RBAC 限制。"

func TestLessonWrapKeepsCodeAndWords(t *testing.T) {
	step := Step{ID: "x/y", Title: "Wrapping", Text: lessonText}
	cp := server.Checkpoints()[0]
	for _, style := range []string{"notty", "dark", "light"} {
		for w := 24; w <= 120; w++ {
			p := walk.NewLesson(common.Common{Styles: DefaultStyles(), Tr: i18n.For(i18n.English)}, style)
			p.SetSize(w, 40)
			p.SetStep(step, true, cp)
			for _, prob := range wrapProblems(lessonText, p.Lines(), w-2) {
				t.Errorf("%s, pane %d wide: %s", style, w, prob)
			}
		}
	}
}

func TestWrapProblemsFindsSplits(t *testing.T) {
	// The checker itself must catch what it is for.
	md := "Run `kubectl run web --image=nginx` now, with Node,RBAC."
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"code split at a hyphen", []string{"Run kubectl run web --", "image=nginx now, with Node,RBAC."}, `inline code "kubectl run web --image=nginx" is split`},
		{"word split", []string{"Run kubectl run web --image=nginx now, with Node,", "RBAC."}, `word "Node,RBAC." (in "Node,RBAC.") is split`},
		{"too wide", []string{"Run kubectl run web --image=nginx now, with Node,RBAC. and more text"}, "wider than 60"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(wrapProblems(md, tt.lines, 60), "\n")
			if !strings.Contains(got, tt.want) {
				t.Errorf("problems %q, want one containing %q", got, tt.want)
			}
		})
	}
	if got := wrapProblems(md, []string{"Run kubectl run web --image=nginx now,", "with Node,RBAC."}, 60); len(got) > 0 {
		t.Errorf("a good wrap has problems: %q", got)
	}
}

// TestLessonWrapLatinAfterCJKPunctuation: an English word or inline code right after opening
// CJK punctuation, as Chinese lessons write a term's English ("监视（watch）"), stays whole.
func TestLessonWrapLatinAfterCJKPunctuation(t *testing.T) {
	const text = "持续监视（watch），在内部（internal）类型之外，以 protobuf（`application/vnd.kubernetes.protobuf`）存储，" +
		"并加入回环令牌身份认证器（`AuthorizeClientBearerToken`）；它先调用委托（delegate）的 `PrepareRun`。"
	step := Step{ID: "x/y", Title: "换行", Text: text}
	cp := server.Checkpoints()[0]
	for _, style := range []string{"notty", "dark"} {
		for w := 24; w <= 120; w++ {
			p := walk.NewLesson(common.Common{Styles: DefaultStyles(), Tr: i18n.For(i18n.English)}, style)
			p.SetSize(w, 40)
			p.SetStep(step, true, cp)
			for _, prob := range wrapProblems(text, p.Lines(), w-2) {
				t.Errorf("%s, pane %d wide: %s", style, w, prob)
			}
		}
	}
}
