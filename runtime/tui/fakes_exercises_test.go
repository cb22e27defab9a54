package tui

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// fakeExercises is an Exercises: a fixed set of exercises whose live checks the test passes
// by hand (pass), typed answers checked against an expected one (case and space
// insensitive), multiple choice against the right option's number.
type fakeExercises struct {
	mu      sync.Mutex
	list    []Exercise
	hints   map[string][]string // every level, by ID
	answers map[string]string   // the right answer, by ID
	whys    map[string]string
	changed chan struct{}
	shown   map[string]int // hint levels revealed, by ID (what kubewalk records)
	zh      bool           // LastTry in Chinese
}

// newFakeExercises builds seven exercises over four lessons, in English or Chinese.
func newFakeExercises(lang string) *fakeExercises {
	zh := lang == i18n.SimplifiedChinese
	t := func(en, cn string) string {
		if zh {
			return cn
		}
		return en
	}
	authn, authz, adm, serve := t("Authentication", "身份认证"), t("Authorization", "鉴权"), t("Admission", "准入控制"), t("Serving", "服务")
	x := &fakeExercises{
		zh:      zh,
		changed: make(chan struct{}, 1),
		hints:   map[string][]string{},
		answers: map[string]string{},
		whys:    map[string]string{},
		shown:   map[string]int{},
	}
	add := func(e Exercise, hints []string, answer, why string) {
		e.HintLevels = len(hints)
		x.list = append(x.list, e)
		x.hints[e.ID] = hints
		x.answers[e.ID] = answer
		x.whys[e.ID] = why
	}
	add(Exercise{ID: "authn-401", Lesson: "02-authn", Phase: "authn", LessonTitle: authn, State: ExerciseDone,
		Title: t("A request that fails with 401", "一个返回 401 的请求"),
		Goal:  t("Send a request with a bad token and see it fail at authentication.", "发送一个带错误令牌的请求，看它在身份认证处失败。")},
		[]string{t("Any token the server does not know will do.", "服务器不认识的令牌都可以。"), t("The authentication stage of its lane says why.", "泳道的 authentication 环节会说明原因。"), "kubectl --token nope get cm"},
		"", t("401 at authentication: invalid bearer token", "在 authentication 返回 401：无效的持有者令牌"))
	x.list[0].Why = x.whys["authn-401"]
	add(Exercise{ID: "authn-which", Lesson: "02-authn", Phase: "authn", LessonTitle: authn, State: ExerciseOpen, Input: InputChoice,
		Title:   t("Which authenticator answered the admin context?", "哪个认证器回答了 admin 上下文？"),
		Goal:    t("Look at an admin request's lane and pick the authenticator that knew the user.", "查看 admin 请求的泳道，选出认出该用户的认证器。"),
		Choices: []string{t("the bearer token file", "持有者令牌文件"), t("the client certificate (x509)", "客户端证书（x509）"), t("anonymous", "匿名")}},
		[]string{t("admin's kubeconfig carries no token.", "admin 的 kubeconfig 里没有令牌。"), t("authentication stage, field authenticator", "authentication 环节的 authenticator 字段"), t("the client certificate (x509)", "客户端证书（x509）")},
		"2", t("admin is authenticated by its client certificate", "admin 由客户端证书认证"))
	add(Exercise{ID: "authz-bob-cm", Lesson: "03-authz", Phase: "authz", LessonTitle: authz, State: ExerciseOpen,
		Title: t("Let bob list configmaps in default", "让 bob 能列出 default 中的 configmap"),
		Goal:  t("Give bob `list` on configmaps in `default` and nothing else: not in `kube-system`, not secrets.", "只允许 bob 在 `default` 中 `list` configmap：不能在 `kube-system` 中，也不能列出 secret。")},
		[]string{t("A Role and a RoleBinding in default.", "在 default 中建一个 Role 和一个 RoleBinding。"), t("The authorization stage of bob's request names the rule.", "bob 请求的 authorization 环节会写出规则。"),
			"kubectl --context admin create role cm-reader --verb=list --resource=configmaps\nkubectl --context admin create rolebinding bob-cm --role=cm-reader --user=bob"},
		"", t("allowed by RoleBinding bob-cm", "由 RoleBinding bob-cm 允许"))
	add(Exercise{ID: "authz-who", Lesson: "03-authz", Phase: "authz", LessonTitle: authz, State: ExerciseOpen, Input: InputText,
		Title: t("Who lets alice create configmaps?", "是谁允许 alice 创建 configmap？"),
		Goal:  t("Name the RoleBinding that lets alice create configmaps in `default`.", "写出允许 alice 在 `default` 中创建 configmap 的 RoleBinding 名称。")},
		[]string{t("kubectl can list the bindings.", "kubectl 可以列出绑定。"), t("The authorization stage of alice's create names it.", "alice 创建请求的 authorization 环节写出了它。"), "developers"},
		"developers", t("RoleBinding developers binds Role configmap-writer to alice's group", "RoleBinding developers 把 Role configmap-writer 绑定到 alice 所在的组"))
	add(Exercise{ID: "adm-pinned", Lesson: "04-admission", Phase: "admission", LessonTitle: adm, State: ExerciseNeedsServe,
		Title: t("Get a pod past PinnedImages", "让一个 pod 通过 PinnedImages"),
		Goal:  t("Create a pod whose image PinnedImages lets through.", "创建一个镜像能通过 PinnedImages 的 pod。")},
		[]string{"a", "b", "c"}, "", "")
	add(Exercise{ID: "serve-readyz", Lesson: "07-serve", Phase: "serve", LessonTitle: serve, State: ExerciseLocked, Input: InputText,
		Title: t("The readyz check that waits for the informers", "等待 informer 的 readyz 检查"),
		Goal:  t("Name the readyz check that waits for the informers to sync.", "写出等待 informer 同步的 readyz 检查。")},
		[]string{"a", "b", "c"}, "informer-sync", "")
	add(Exercise{ID: "serve-watch", Lesson: "07-serve", Phase: "serve", LessonTitle: serve, State: ExerciseLocked,
		Title: t("Watch your own change arrive", "看着你自己的修改到达"),
		Goal:  t("Watch configmaps and change one.", "监视 configmap 并修改其中一个。")},
		[]string{"a", "b", "c"}, "", "")
	return x
}

func (x *fakeExercises) List() []Exercise {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]Exercise, len(x.list))
	for i, e := range x.list {
		out[i] = copyExercise(e)
	}
	return out
}

func copyExercise(e Exercise) Exercise {
	e.Hints = append([]string(nil), e.Hints...)
	e.Choices = append([]string(nil), e.Choices...)
	return e
}

func (x *fakeExercises) Changed() <-chan struct{} { return x.changed }

// signal tells the view something changed (coalesced), as the real backend does.
func (x *fakeExercises) signal() {
	select {
	case x.changed <- struct{}{}:
	default:
	}
}

func (x *fakeExercises) find(id string) (int, error) {
	for i, e := range x.list {
		if e.ID == id {
			return i, nil
		}
	}
	return 0, errors.New("no exercise " + strconv.Quote(id))
}

func (x *fakeExercises) RevealHint(id string) (Exercise, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	i, err := x.find(id)
	if err != nil {
		return Exercise{}, err
	}
	e := &x.list[i]
	if len(e.Hints) < len(x.hints[id]) {
		e.Hints = append(e.Hints, x.hints[id][len(e.Hints)])
		x.shown[id] = len(e.Hints)
	}
	defer x.signal()
	return copyExercise(*e), nil
}

func (x *fakeExercises) Answer(id, answer string) (Exercise, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	i, err := x.find(id)
	if err != nil {
		return Exercise{}, err
	}
	e := &x.list[i]
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	if norm(answer) == norm(x.answers[id]) {
		e.State, e.Why, e.LastTry = ExerciseDone, x.whys[id], ""
		x.signal()
	} else if e.Input == InputChoice {
		e.LastTry = "option " + answer + " is not it"
		if x.zh {
			e.LastTry = "不是选项 " + answer
		}
	} else {
		lang := i18n.English
		if x.zh {
			lang = i18n.SimplifiedChinese
		}
		e.LastTry = fakeWrong(lang, strconv.Quote(answer))
	}
	return copyExercise(*e), nil
}

// pass makes an exercise's live check pass, as the backend does when the server shows it.
func (x *fakeExercises) pass(id string) {
	x.mu.Lock()
	i, _ := x.find(id)
	x.list[i].State, x.list[i].Why = ExerciseDone, x.whys[id]
	x.mu.Unlock()
	x.signal()
}

// open makes every locked or waiting exercise open (the walkthrough reached serve).
func (x *fakeExercises) openAll() {
	x.mu.Lock()
	for i := range x.list {
		if x.list[i].State < ExerciseOpen {
			x.list[i].State = ExerciseOpen
		}
	}
	x.mu.Unlock()
	x.signal()
}

// fakeWrong is the LastTry of a wrong typed answer (quoted), in lang.
func fakeWrong(lang, quoted string) string {
	if lang == i18n.SimplifiedChinese {
		return "不是 " + quoted
	}
	return quoted + " is not it"
}
