package server

// This file holds what the serve phase builds (serveState), what it shows in the state tree, and which of its objects the raw view may read.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/apiserver/pkg/server/healthz"
	restclient "k8s.io/client-go/rest"
)

// serveState is what the serve phase builds.
type serveState struct {
	prepared   interface{ Run(context.Context) error } // aggregatorapiserver.preparedAPIAggregator (unexported: "PrepareRun before Run" is enforced by the type)
	listener   *trackingListener
	cancel     context.CancelFunc
	exited     chan struct{} // closed when RunWithContext returns
	runErr     error         // RunWithContext's result, set before exited closes
	kubeconfig string
	readyAt    time.Time
	// hookSettled pass once the library post-start hooks an early stop must not interrupt
	// have returned (see waitHooksSettled).
	hookSettled []healthz.HealthChecker
}

// liveObjects lists the serve phase's objects the raw view may read now: none. The prepared
// aggregator reaches the controllers of the chain, whose work queues run goroutines (its
// OpenAPI v3 aggregation controller adds to its queue from PrepareRun on), and Run runs it
// from serve/serving on.
func (sv *serveState) liveObjects(r running) []LiveObject {
	if sv.prepared == nil || r.serving || r.chain {
		return nil
	}
	return []LiveObject{{"serve.prepared", sv.prepared, "PrepareRun has returned and RunWithContext has not started"}}
}

func (s *Server) describeServe(n *Node) {
	sv := s.sv
	n.Add("address", s.c.loopback.Host)
	n.Add("listening", listeningState(sv.listener != nil))
	if !sv.readyAt.IsZero() {
		n.Add("readyAt", sv.readyAt.Format(time.RFC3339Nano))
		n.Add("readyz", s.readyzVerbose())
	}
	if sv.kubeconfig != "" {
		k := n.Add("kubeconfig", sv.kubeconfig)
		if s.kubeconfigNote != "" {
			k.Add("note", s.kubeconfigNote)
		}
		for _, id := range s.an.identities {
			k.Add("context "+id.Context, "kubectl --kubeconfig "+sv.kubeconfig+" --context "+id.Context+" get ns")
		}
		// No user: the anonymous authenticator's paths answer one, any credential-less
		// request elsewhere and every bad token get 401.
		k.Add("context "+ContextAnonymous, "kubectl --kubeconfig "+sv.kubeconfig+" --context "+ContextAnonymous+" get --raw /version")
		k.Add("context "+ContextBadToken, "kubectl --kubeconfig "+sv.kubeconfig+" --context "+ContextBadToken+" get --raw /version")
	}
}

// SelfCheckAgent is the User-Agent of the requests kubewalk makes to its own server to show
// it to the learner: the state pane's /readyz?verbose here, the TUI's health poll. Like every
// client of kubewalk's own (kubewalk-loopback, kubewalk-exercises) it starts "kubewalk-": the
// Requests view counts those with the loopback traffic (hidden by default), so that they do
// not bury the learner's own requests.
const SelfCheckAgent = "kubewalk-self-check"

// readyzVerbose fetches /readyz?verbose and returns its checks as one line.
func (s *Server) readyzVerbose() string {
	cfg, err := s.RESTConfig("admin")
	if err != nil {
		return err.Error()
	}
	client, err := restclient.HTTPClientFor(cfg)
	if err != nil {
		return err.Error()
	}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+"/readyz?verbose", nil)
	req.Header.Set("User-Agent", SelfCheckAgent)
	resp, err := client.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err.Error()
	}
	ok, failed := 0, 0
	for _, l := range strings.Split(string(body), "\n") {
		switch {
		case strings.HasPrefix(l, "[+]"):
			ok++
		case strings.HasPrefix(l, "[-]"):
			failed++
		}
	}
	return fmt.Sprintf("%s, %d checks ok, %d failing", resp.Status, ok, failed)
}
