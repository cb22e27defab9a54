package tour

import (
	"context"
	"net/http"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"k8s.io/client-go/rest"

	"github.com/kubewalk/kubewalk/server"
)

// readyzEvery is how often the after-serve panel polls /readyz.
const readyzEvery = 2 * time.Second

// healthAgent is the User-Agent of the panel's /readyz polls (and the state pane's): the
// Requests view counts them with the server's own traffic (hidden unless L shows it), or a
// poll every two seconds would bury the learner's requests.
const healthAgent = server.SelfCheckAgent

// ReadyzMsg is the result of one /readyz poll.
type ReadyzMsg struct {
	client *http.Client // reused by the next poll
	ok     bool
	status string
	at     time.Time
}

// ReadyzTickMsg asks for the next poll.
type ReadyzTickMsg struct{}

// pollReadyz returns a command that GETs /readyz as admin. client may be nil the first time.
func pollReadyz(srv ServerInfo, client *http.Client, now func() time.Time) tea.Cmd {
	return func() tea.Msg {
		msg := ReadyzMsg{client: client}
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
