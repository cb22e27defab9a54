package kubectl_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"get cm", []string{"get", "cm"}},
		{"  get\tcm \n -A ", []string{"get", "cm", "-A"}},
		{`create cm x --from-literal='a=b c'`, []string{"create", "cm", "x", "--from-literal=a=b c"}},
		{`create cm x --from-literal="a=b c"`, []string{"create", "cm", "x", "--from-literal=a=b c"}},
		{`get cm -o 'jsonpath={.items[*].metadata.name}'`, []string{"get", "cm", "-o", "jsonpath={.items[*].metadata.name}"}},
		{`auth can-i '*' '*'`, []string{"auth", "can-i", "*", "*"}},
		{`auth can-i * *`, []string{"auth", "can-i", "*", "*"}}, // no globbing
		{`x "a\"b" "c\\d" "e\f" 'g\h'`, []string{"x", `a"b`, `c\d`, `e\f`, `g\h`}},
		{`a\ b c\"d`, []string{"a b", `c"d`}},
		{`''`, []string{""}},
		{`a''b ""`, []string{"ab", ""}},
		{`get cm 'a|b' "x > y" '$(date)' "&&" \|`, []string{"get", "cm", "a|b", "x > y", "$(date)", "&&", "|"}},
		{`label cm x price=5$`, []string{"label", "cm", "x", "price=5$"}},
		{"get cm \\\nx", []string{"get", "cm", "x"}},
		{"~/x.yaml", []string{"~/x.yaml"}}, // no tilde expansion
	}
	for _, tc := range tests {
		got, err := kubectl.Split(tc.line)
		if err != nil {
			t.Errorf("Split(%q): %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct {
		line    string
		col     int
		message string
		zh      string // what MsgIn says in Chinese
	}{
		{`get cm "x`, 8, "unterminated double quote: add the closing \"", "双引号没有闭合：请补上结尾的 \""},
		{`get cm 'x`, 8, "unterminated single quote: add the closing '", "单引号没有闭合：请补上结尾的 '"},
		{`get cm x\`, 9, "trailing backslash", "末尾有一个反斜杠"},
		{`get cm | grep x`, 8, `"|" needs a shell`, `"|" 需要 shell，而 kubewalk 运行 kubectl 时不经过 shell（没有管道、重定向、命令列表和命令替换）；要把它原样传给 kubectl，请加引号（'|'）`},
		{`get cm || true`, 8, `"||" needs a shell`, ""},
		{`get cm > out.txt`, 8, `">" needs a shell`, ""},
		{`get cm >> out.txt`, 8, `">>" needs a shell`, ""},
		{`apply -f x < y`, 12, `"<" needs a shell`, ""},
		{`get cm && get ns`, 8, `"&&" needs a shell`, ""},
		{`get cm &`, 8, `"&" needs a shell`, ""},
		{`get cm; get ns`, 7, `";" needs a shell`, ""},
		{"get cm `date`", 8, "\"`\" needs a shell", ""},
		{`get cm $(date)`, 8, `"$(" needs a shell`, ""},
		{`get cm -n $NS`, 11, `"$NS" needs a shell`, `"$NS" 需要 shell，而 kubewalk 运行 kubectl 时不经过 shell：变量和命令替换不会展开`},
		{`get cm -n ${NS}`, 11, `"${" needs a shell`, ""},
	}
	for _, tc := range tests {
		_, err := kubectl.Split(tc.line)
		var pe *kubectl.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("Split(%q) error = %v, want a *ParseError", tc.line, err)
			continue
		}
		if pe.Col != tc.col || !strings.Contains(pe.Msg, tc.message) {
			t.Errorf("Split(%q) = column %d %q, want column %d containing %q", tc.line, pe.Col, pe.Msg, tc.col, tc.message)
		}
		if en := pe.MsgIn(i18n.For(i18n.English)); en != pe.Msg || pe.MsgIn(nil) != pe.Msg {
			t.Errorf("Split(%q): MsgIn(English) %q, MsgIn(nil) %q, Msg %q: want the same English", tc.line, en, pe.MsgIn(nil), pe.Msg)
		}
		zh := pe.MsgIn(i18n.For(i18n.SimplifiedChinese))
		if tc.zh != "" && !strings.Contains(zh, tc.zh) || zh == pe.Msg || strings.Contains(zh, "%!") {
			t.Errorf("Split(%q): in Chinese %q, want it to contain %q", tc.line, zh, tc.zh)
		}
		if !strings.Contains(err.Error(), "column") {
			t.Errorf("Split(%q) error %q does not say where", tc.line, err)
		}
	}
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, args := range [][]string{
		{"get", "cm"},
		{"create", "cm", "x", "--from-literal=a=b c"},
		{"auth", "can-i", "*", "*"},
		{"", "it's", `a"b`, `c\d`, "$(x)", "a|b", "tab\there", "new\nline", "中文"},
	} {
		line := kubectl.Quote(args)
		got, err := kubectl.Split(line)
		if err != nil || !reflect.DeepEqual(got, args) {
			t.Errorf("Split(Quote(%q)) = %q, %v (line %s)", args, got, err, line)
		}
	}
	if got := kubectl.Quote([]string{"get", "cm", "-n", "kube-system"}); got != "get cm -n kube-system" {
		t.Errorf("Quote quoted safe words: %s", got)
	}
}
