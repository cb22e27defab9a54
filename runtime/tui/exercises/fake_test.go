package exercises

import (
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/kubewalk/kubewalk/runtime/i18n"
)

// fake is a Backend: five exercises over three lessons, in English or Chinese. A typed answer
// is right when it matches (case and spaces do not matter), a choice when it is the right
// option's number; pass makes a live check pass. fail makes every call after it fail.
type fake struct {
	mu      sync.Mutex
	list    []Exercise
	hints   map[string][]string
	answers map[string]string
	whys    map[string]string
	changed chan struct{}
	shown   map[string]int // hint levels revealed, by ID
	calls   int            // RevealHint and Answer calls
	fail    error
}

func newFake(lang string) *fake {
	zh := lang == i18n.SimplifiedChinese
	t := func(en, cn string) string {
		if zh {
			return cn
		}
		return en
	}
	x := &fake{changed: make(chan struct{}, 1), hints: map[string][]string{}, answers: map[string]string{},
		whys: map[string]string{}, shown: map[string]int{}}
	add := func(e Exercise, hints []string, answer, why string) {
		e.HintLevels = len(hints)
		x.list = append(x.list, e)
		x.hints[e.ID], x.answers[e.ID], x.whys[e.ID] = hints, answer, why
	}
	authn, authz, serve := t("Authentication", "身份认证"), t("Authorization", "鉴权"), t("Serving", "服务")
	add(Exercise{ID: "authn-401", Lesson: "02-authn", Phase: "authn", LessonTitle: authn, State: Done,
		Title: t("A request that fails with 401", "一个返回 401 的请求"),
		Goal:  t("Send a request with a bad token.", "发送一个带错误令牌的请求。"),
		Why:   t("401 at authentication: invalid bearer token", "在 authentication 返回 401：无效的持有者令牌")},
		[]string{"a", "b", "c"}, "", "")
	add(Exercise{ID: "authn-which", Lesson: "02-authn", Phase: "authn", LessonTitle: authn, State: Open, Input: InputChoice,
		Title:   t("Which authenticator answered admin?", "哪个认证器回答了 admin？"),
		Goal:    t("Pick the authenticator that knew the user.", "选出认出该用户的认证器。"),
		Choices: []string{t("the token file", "令牌文件"), t("the client certificate", "客户端证书"), t("anonymous", "匿名")}},
		[]string{"a", "b", "c"}, "2", t("admin is authenticated by its client certificate", "admin 由客户端证书认证"))
	add(Exercise{ID: "authz-bob-cm", Lesson: "03-authz", Phase: "authz", LessonTitle: authz, State: Open,
		Title: t("Let bob list configmaps in default", "让 bob 能列出 default 中的 configmap"),
		Goal:  t("Give bob `list` on configmaps in `default` and nothing else.", "只允许 bob 在 `default` 中 `list` configmap。")},
		[]string{t("A Role and a RoleBinding.", "一个 Role 和一个 RoleBinding。"), t("The authorization stage names the rule.", "authorization 环节会写出规则。"),
			"kubectl create role cm-reader --verb=list --resource=configmaps\nkubectl create rolebinding bob-cm --role=cm-reader --user=bob"},
		"", t("allowed by RoleBinding `bob-cm`", "由 RoleBinding `bob-cm` 允许"))
	add(Exercise{ID: "authz-who", Lesson: "03-authz", Phase: "authz", LessonTitle: authz, State: Open, Input: InputText,
		Title: t("Who lets alice create configmaps?", "是谁允许 alice 创建 configmap？"),
		Goal:  t("Name the RoleBinding.", "写出该 RoleBinding 的名称。")},
		[]string{"a", "b", "c"}, "developers", t("RoleBinding developers binds alice's group", "RoleBinding developers 绑定了 alice 的组"))
	add(Exercise{ID: "serve-readyz", Lesson: "07-serve", Phase: "serve", LessonTitle: serve, State: Locked, Input: InputText,
		Title: t("The readyz check of the informers", "等待 informer 的 readyz 检查"),
		Goal:  t("Name the check.", "写出该检查。")},
		[]string{"a", "b", "c"}, "informer-sync", "")
	return x
}

func (x *fake) List() []Exercise {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]Exercise, len(x.list))
	for i, e := range x.list {
		e.Hints = append([]string(nil), e.Hints...)
		out[i] = e
	}
	return out
}

func (x *fake) Changed() <-chan struct{} { return x.changed }

func (x *fake) signal() {
	select {
	case x.changed <- struct{}{}:
	default:
	}
}

func (x *fake) find(id string) (*Exercise, error) {
	for i := range x.list {
		if x.list[i].ID == id {
			return &x.list[i], nil
		}
	}
	return nil, errors.New("no exercise " + strconv.Quote(id))
}

func (x *fake) RevealHint(id string) (Exercise, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.calls++
	if x.fail != nil {
		return Exercise{}, x.fail
	}
	e, err := x.find(id)
	if err != nil {
		return Exercise{}, err
	}
	if len(e.Hints) < len(x.hints[id]) {
		e.Hints = append(e.Hints, x.hints[id][len(e.Hints)])
		x.shown[id] = len(e.Hints)
	}
	r := *e
	r.Hints = append([]string(nil), e.Hints...)
	return r, nil
}

func (x *fake) Answer(id, answer string) (Exercise, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.calls++
	if x.fail != nil {
		return Exercise{}, x.fail
	}
	e, err := x.find(id)
	if err != nil {
		return Exercise{}, err
	}
	norm := func(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }
	if norm(answer) == norm(x.answers[id]) {
		e.State, e.Why, e.LastTry = Done, x.whys[id], ""
		x.signal()
	} else {
		e.LastTry = strconv.Quote(answer) + " is not it"
	}
	return *e, nil
}

// pass makes a live check pass, as the backend does when the server shows it.
func (x *fake) pass(id string) {
	x.mu.Lock()
	e, _ := x.find(id)
	e.State, e.Why = Done, x.whys[id]
	x.mu.Unlock()
	x.signal()
}
