package server_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubewalk/kubewalk/server"
)

// statusHook records ServeStatus at every checkpoint.
type statusHook struct {
	mu sync.Mutex
	at map[string]server.ServeStatus
}

func (h *statusHook) Checkpoint(_ context.Context, cp server.Checkpoint, s *server.Server) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.at[cp.ID()] = s.ServeStatus()
	return nil
}

// TestServeStatus: what a client finds, from the server's own state at each step of the serve
// phase: nothing listens before serve/serving, the server answers from there, the kubeconfig is
// there from serve/kubeconfig on, and after Close it has stopped.
func TestServeStatus(t *testing.T) {
	h := &statusHook{at: map[string]server.ServeStatus{}}
	s := newServer(t, func(o *server.Options) { o.Hook = h })
	if got := s.ServeStatus(); got != server.NotListening {
		t.Fatalf("before any phase: %v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	want := map[string]server.ServeStatus{
		"install/" + server.PhaseCheckpoints(server.PhaseInstall)[0].Name: server.NotListening,
		"serve/prepare-run": server.NotListening,
		"serve/serving":     server.Listening,
		"serve/ready":       server.Listening,
		"serve/kubeconfig":  server.Serving,
	}
	h.mu.Lock()
	for id, w := range want {
		if got := h.at[id]; got != w {
			t.Errorf("at %s: %v, want %v", id, got, w)
		}
	}
	h.mu.Unlock()
	if got := s.ServeStatus(); got != server.Serving {
		t.Errorf("after Start: %v, want Serving", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := s.ServeStatus(); got != server.Stopped {
		t.Errorf("after Close: %v, want Stopped", got)
	}
}

// TestProbeContexts: the kubeconfig's anonymous context sends no credentials (the anonymous
// authenticator's paths answer 200, others 401) and badtoken a token nobody knows (401
// everywhere), read from the written kubeconfig as kubectl reads it and through RESTConfig
// alike; admin is not affected.
func TestProbeContexts(t *testing.T) {
	s := startServer(t)
	if got, want := s.Contexts(), []string{"admin", "alice", "bob", server.ContextAnonymous, server.ContextBadToken}; !slices.Equal(got, want) {
		t.Fatalf("Contexts() = %v, want %v", got, want)
	}
	raw, err := clientcmd.LoadFromFile(s.Kubeconfig())
	if err != nil {
		t.Fatal(err)
	}
	// No certificate, no token, no password: only a user name, which keeps kubectl from asking
	// for one (and no authenticator reads).
	if a := raw.AuthInfos[server.ContextAnonymous]; a == nil || a.Token != "" || a.TokenFile != "" || len(a.ClientCertificateData) > 0 ||
		a.ClientCertificate != "" || a.Exec != nil || a.AuthProvider != nil || a.Password != "" || a.Username == "" {
		t.Errorf("the anonymous user entry: %+v", a)
	}
	fromFile := func(ctxName string) *rest.Config {
		cfg, err := clientcmd.NewNonInteractiveClientConfig(*raw, ctxName, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
		if err != nil {
			t.Fatalf("%s: %v", ctxName, err)
		}
		return cfg
	}
	for _, tc := range []struct {
		context, path string
		code          int
	}{
		{server.ContextAnonymous, "/version", 200},
		{server.ContextAnonymous, "/healthz", 200},
		{server.ContextAnonymous, "/api/v1/namespaces", 401},
		{server.ContextBadToken, "/version", 401},
		{server.ContextBadToken, "/healthz", 401},
		{server.ContextBadToken, "/api/v1/namespaces", 401},
		{"admin", "/api/v1/namespaces", 200},
	} {
		for how, cfg := range map[string]*rest.Config{"kubeconfig": fromFile(tc.context), "RESTConfig": restConfig(t, s, tc.context)} {
			if got := statusOf(t, cfg, tc.path); got != tc.code {
				t.Errorf("%s (%s) GET %s: %d, want %d", tc.context, how, tc.path, got, tc.code)
			}
		}
	}
	// The bad token is a credential of this run: redacted like the others.
	bad := fromFile(server.ContextBadToken).BearerToken
	if bad == "" || !slices.Contains(s.Secrets(), bad) {
		t.Errorf("the badtoken context's token is not among the run's secrets")
	}
}
