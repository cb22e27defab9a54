package tui

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui/common"
	"github.com/kubewalk/kubewalk/server"
)

// readyzEvery is how often the after-serve panel polls /readyz.
const readyzEvery = 2 * time.Second

// healthAgent is the User-Agent of the panel's /readyz polls (and the state pane's): the
// Requests view counts them with the server's own traffic (hidden unless L shows it), or a
// poll every two seconds would bury the learner's requests.
const healthAgent = server.SelfCheckAgent

// readyzMsg is the result of one /readyz poll.
type readyzMsg struct {
	client *http.Client // reused by the next poll
	ok     bool
	status string
	at     time.Time
}

// readyzTickMsg asks for the next poll.
type readyzTickMsg struct{}

// pollReadyz returns a command that GETs /readyz as admin. client may be nil the first time.
func pollReadyz(srv ServerInfo, client *http.Client, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		msg := readyzMsg{client: client}
		cfg, err := srv.RESTConfig("admin")
		if err != nil {
			msg.status = err.Error()
			msg.at = now()
			return msg
		}
		if client == nil {
			c, err := rest.HTTPClientFor(cfg)
			if err != nil {
				msg.status = err.Error()
				msg.at = now()
				return msg
			}
			msg.client = c
		}
		ctx, cancel := context.WithTimeout(context.Background(), readyzEvery)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cfg.Host, "/")+"/readyz", nil)
		if err != nil {
			msg.status = err.Error()
			msg.at = now()
			return msg
		}
		req.Header.Set("User-Agent", healthAgent)
		resp, err := msg.client.Do(req)
		if err != nil {
			msg.status = err.Error()
			msg.at = now()
			return msg
		}
		resp.Body.Close()
		msg.ok = resp.StatusCode == http.StatusOK
		msg.status = resp.Status
		msg.at = now()
		return msg
	}
}

// servedPane is the after-serve panel: the kubeconfig, kubectl commands to try and live health.
type servedPane struct {
	frame

	kubeconfig string
	address    string
	ids        []server.Identity

	checked bool
	ok      bool
	status  string
	at      time.Time

	lines  []string
	offset int
}

func newServedPane(st *Styles, tr *i18n.Strings) *servedPane {
	return &servedPane{frame: frame{st: st, tr: tr, dirty: true}}
}

func (p *servedPane) SetSize(w, h int) {
	if p.w != w || p.h != h {
		p.w, p.h = w, h
		p.relayout()
	}
}

// SetServer reads what the panel shows from the serving server.
func (p *servedPane) SetServer(srv ServerInfo) {
	p.kubeconfig, p.address, p.ids = srv.Kubeconfig(), srv.Address(), srv.Identities()
	p.relayout()
}

// SetHealth records a /readyz poll.
func (p *servedPane) SetHealth(msg readyzMsg) {
	p.checked, p.ok, p.status, p.at = true, msg.ok, msg.status, msg.at
	p.relayout()
}

// CreateDemo creates the configmap the lessons read from serve on (runtime/live's
// ConfigMapName): the README, the serve lesson, the apimachinery lesson and this panel give
// this one command, so following any of them after another says it already exists, rather
// than making a different object.
const CreateDemo = "kubectl --context alice create configmap demo --from-literal=greeting=hello"

// Commands are the copy-ready commands the panel suggests, in order.
func (p *servedPane) Commands() []string {
	kc := p.kubeconfig
	if kc == "" {
		kc = "<kubeconfig>"
	}
	return []string{
		"export KUBECONFIG=" + kc,
		"kubectl get ns",
		CreateDemo,
		"kubectl get cm demo -o yaml",
		"kubectl --context bob get cm",
		"kubectl auth can-i --list --context alice",
	}
}

func (p *servedPane) relayout() {
	p.dirty = true
	w := p.w - 2
	if w <= 0 {
		p.lines = nil
		return
	}
	st, tr := p.st.Served, p.tr
	var out []string
	add := func(style func(...string) string, text string) {
		if rest, ok := strings.CutPrefix(text, "# "); ok && w > 4 {
			// A shell comment stays one when it wraps: a block pasted whole runs no prose.
			for _, l := range wrapLines(rest, w-2) {
				out = append(out, style("# "+l))
			}
			return
		}
		for _, l := range wrapLines(text, w) {
			out = append(out, style(l))
		}
	}
	health := st.Dim.Render(tr.ServedChecking)
	if p.checked {
		checked := st.Dim.Render(fmt.Sprintf(tr.ServedChecked, p.status, p.at.Format("15:04:05")))
		if p.ok {
			health = st.OK.Render(tr.ServedOK) + checked
		} else {
			health = st.Failing.Render(tr.ServedFailing) + checked
		}
	}
	out = append(out, wrapLines(health, w)...)
	// The labels line up in cells: CJK labels are two cells a character.
	labelW := 0
	for _, l := range []string{tr.ServedServer, tr.ServedKubeconfig, tr.ServedContexts} {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	label := func(l string) string { return i18n.PadRight(l, labelW) + " " }
	add(st.Label.Render, label(tr.ServedServer)+p.address)
	add(st.Label.Render, label(tr.ServedKubeconfig)+p.kubeconfig)
	var ctxs []string
	for _, id := range p.ids {
		groups := strings.Join(id.Groups, ",")
		if groups != "" {
			groups = " [" + groups + "]"
		}
		ctxs = append(ctxs, fmt.Sprintf("%s → %s%s", id.Context, id.User, groups))
	}
	if len(ctxs) > 0 {
		ctxs = append(ctxs, tr.ServedProbeContexts)
		add(st.Label.Render, label(tr.ServedContexts)+strings.Join(ctxs, "; "))
	}
	out = append(out, "")
	add(st.Heading.Render, tr.ServedTry)
	notes := []string{"", tr.ServedAsAdmin, tr.ServedAliceWrites, tr.ServedCreatedBy, tr.ServedBobMayNot, tr.ServedAliceRBAC}
	for i, c := range p.Commands() {
		if notes[i] != "" {
			add(st.Comment.Render, notes[i])
		}
		for _, l := range wrapCommand(c, w) {
			out = append(out, st.Command.Render(l))
		}
		if i == 0 {
			add(st.Comment.Render, tr.ServedEnvHint)
		}
	}
	out = append(out, "")
	add(st.Heading.Render, tr.ServedHere)
	add(st.Comment.Render, tr.ServedHereNote)
	for _, c := range []string{":k get ns", ":k --context bob get cm", ":req"} {
		out = append(out, st.Command.Render(c))
	}
	p.lines = out
	p.offset = max(min(p.offset, len(p.lines)-p.visible()), 0)
}

func (p *servedPane) visible() int { return max(p.h-2, 1) }

// Scroll moves the view by n lines.
func (p *servedPane) Scroll(n int) {
	p.offset = max(min(p.offset+n, len(p.lines)-p.visible()), 0)
	p.dirty = true
}

func (p *servedPane) Page() int { return max(p.visible()-2, 1) }

// View renders the pane: exactly h lines of exactly w cells.
func (p *servedPane) View() []string {
	return p.render(paneServed.name(p.tr), p.tr.ServedTitle, "", func() []string {
		return p.lines[p.offset:min(p.offset+p.visible(), len(p.lines))]
	})
}

// wrapCommand breaks a shell command into lines of at most w cells that paste as one command
// (common.WrapCommand).
func wrapCommand(cmd string, w int) []string { return common.WrapCommand(cmd, w) }
