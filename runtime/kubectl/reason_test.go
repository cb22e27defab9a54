package kubectl_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

// TestRefusalInLearnersLanguage: a refused command says why in the learner's language — the
// Chinese catalogue's words for zh-CN, English otherwise — with commands, flags and paths as
// kubectl spells them; Reason and Error stay English (logs and the escape tests read them).
func TestRefusalInLearnersLanguage(t *testing.T) {
	r := newRunner(t, func(o *kubectl.Options) { o.Confined = true })
	tests := []struct {
		line   string
		en, zh []string // what the reason says, in order, in each language
	}{
		{"edit cm x",
			[]string{"needs a terminal of its own: edit opens an editor on the terminal"},
			[]string{"需要独占一个终端：edit 会在终端上打开编辑器"}},
		{"apply edit-last-applied cm/x",
			[]string{"`kubectl apply edit-last-applied` does not run here: it starts an editor on the class host. Commands that do: ", "annotate, api-resources"},
			[]string{"`kubectl apply edit-last-applied` 不能在这里运行：它会在课堂机器上启动编辑器。可以运行的命令：", "annotate、api-resources"}},
		{"create cm x --from-file=/etc/passwd",
			[]string{"--from-file does not run here with `kubectl create configmap`: it reads files on the class host"},
			[]string{"--from-file 不能和 `kubectl create configmap` 一起在这里使用：它会读取课堂机器上的文件"}},
		{"--server https://x get cm",
			[]string{"--server is pinned: kubectl here talks only to this run's server", "--context", "--as"},
			[]string{"--server 已固定：", "--context", "--as"}},
		{"apply -f /etc/passwd",
			[]string{"-f /etc/passwd reads a file on the class host; `-f -` reads the manifest"},
			[]string{"-f /etc/passwd 会读取课堂机器上的文件；`-f -` 读取你在文本框中输入的清单"}},
		{"get cm -o jsonpath-file=/etc/passwd",
			[]string{"-o jsonpath-file reads a file on the class host; write the template itself (-o jsonpath=…)"},
			[]string{"-o jsonpath-file 会读取课堂机器上的文件；请直接写出模板本身（-o jsonpath=…）"}},
		{"--context nosuch get cm",
			[]string{"--context nosuch is not a context of this run's kubeconfig (", "admin"},
			[]string{"--context nosuch 不是本次运行的 kubeconfig 中的上下文（", "admin"}},
		{"top pod",
			[]string{"`kubectl top pod` does not run here: this server has no metrics API."},
			[]string{"`kubectl top pod` 不能在这里运行：这台服务器没有 metrics API。"}},
		{"get cm --show-kind --sort-by=x --chunk-size=1 --v=9",
			[]string{"-v sets klog's verbosity"},
			[]string{"-v 设置 klog 的日志详细程度"}},
		{"delete cm x --interactive",
			[]string{"--interactive does not run here with `kubectl delete`: it asks on the terminal, which the screen owns"},
			[]string{"--interactive 不能和 `kubectl delete` 一起在这里使用：它会在终端上提问"}},
		{"config use-context bob",
			[]string{"it would change the kubeconfig kubewalk wrote for this run; pass --context to a command instead"},
			[]string{"它会修改 kubewalk 为本次运行写的 kubeconfig；请改为给命令加上 --context"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			_, err := r.RunLine(context.Background(), tt.line, &input{})
			var ref *kubectl.RefusedError
			if !errors.As(err, &ref) {
				t.Fatalf("not refused: %v", err)
			}
			for _, lang := range []string{i18n.English, "fr", i18n.SimplifiedChinese} {
				want := tt.en
				if lang == i18n.SimplifiedChinese {
					want = tt.zh
				}
				got := ref.ReasonIn(i18n.For(lang))
				if !inOrder(got, want) || strings.Contains(got, "%!") {
					t.Errorf("%s: reason %q, want it to say %q", lang, got, want)
				}
			}
			if ref.ReasonIn(nil) != ref.Reason || !inOrder(ref.Reason, tt.en) || !strings.Contains(err.Error(), ref.Reason) {
				t.Errorf("Reason %q, ReasonIn(nil) %q, Error %q: want the English", ref.Reason, ref.ReasonIn(nil), err.Error())
			}
		})
	}
}

// inOrder reports whether s contains each of parts, one after another.
func inOrder(s string, parts []string) bool {
	for _, p := range parts {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return true
}
