package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/kubectl"
)

// TestRefusalInLearnersLanguage: the kubectl pane says why a command was refused in the
// learner's language. The runner is the real one, confined as a class ssh student's; every
// refusal comes before any request, so its kubeconfig names a server that is not there.
func TestRefusalInLearnersLanguage(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubewalk"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["admin"] = &clientcmdapi.Context{Cluster: "kubewalk", AuthInfo: "admin"}
	cfg.CurrentContext = "admin"
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		lang string
		want map[string][]string // command line → what the pane shows
	}{
		{i18n.English, map[string][]string{
			"k edit cm x":                           {"✗ not run: needs a terminal of its own: edit opens an editor on the", "refused"},
			"k apply edit-last-applied cm/x":        {"✗ not run: `kubectl apply edit-last-applied` does not run here: it", "starts an editor on the class host."},
			"k create cm x --from-file=/etc/passwd": {"✗ not run: --from-file does not run here with `kubectl create", "configmap`: it reads files on the class host"},
			"k --server https://x get cm":           {"✗ not run: --server is pinned: kubectl here talks only to this run's"},
		}},
		{i18n.SimplifiedChinese, map[string][]string{
			"k edit cm x":                           {"✗ 未执行：需要独占一个终端：edit 会在终端上打开编辑器", "已拒绝"},
			"k apply edit-last-applied cm/x":        {"✗ 未执行：`kubectl apply edit-last-applied` 不能在这里运行：", "上启动编辑器。可以运行的命令："},
			"k create cm x --from-file=/etc/passwd": {"✗ 未执行：--from-file 不能和 `kubectl create configmap`", "它会读取课堂机器上的文件"},
			"k --server https://x get cm":           {"✗ 未执行：--server 已固定：这里的 kubectl 只用 kubeconfig 中的身份"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			hs := newHarnessOpts(t, 120, 40, fakeContent{zh: tt.lang == i18n.SimplifiedChinese}, fakeServer{},
				Options{GlamourStyle: "notty", Lang: tt.lang, NewKubectl: func(string) (Kubectl, error) {
					return kubectl.New(kubectl.Options{Kubeconfig: kc, CacheDir: t.TempDir(), Confined: true, NoExecPlugins: true})
				}})
			hs.keys("E")
			t.Cleanup(func() {
				if err := hs.model.m.shutdown(); err != nil {
					t.Error(err)
				}
			})
			for line, want := range tt.want {
				hs.startLine(line)
				hs.until("the refusal of "+line, func() bool { return hs.model.m.kc().Finished() })
				hs.settle()
				hs.must(want...)
				if v := hs.view(); tt.lang == i18n.SimplifiedChinese && (strings.Contains(v, "does not run here") || strings.Contains(v, "class host") || strings.Contains(v, "is pinned")) {
					t.Errorf("%s: English reason on a zh-CN screen:\n%s", line, v)
				}
			}
		})
	}
}
