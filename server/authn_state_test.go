package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server"
)

// TestAuthnStateShowsWrappersOnceBuilt runs the real config and authn phases and reads the
// authn state at each of its checkpoints, as the walkthrough's state pane does: an
// authenticator or wrapper appears only from the step that builds it, never before, so the
// pane agrees with the lesson.
func TestAuthnStateShowsWrappersOnceBuilt(t *testing.T) {
	const (
		loose    = "authenticators"
		x509     = "x509.Authenticator"
		tokens   = "bearertoken → tokenfile.TokenAuthenticator"
		adder    = "group.NewAuthenticatedGroupAdder"
		union    = "union.New"
		anon     = "anonymous.Authenticator"
		failOnEr = "union.NewFailOnError"
		authed   = "system:authenticated"
	)
	tests := []struct {
		checkpoint string
		labels     []string // node labels the authn subtree must have
		noLabels   []string // node labels it must not have yet
		has, lacks []string // substrings of its text
	}{
		{
			checkpoint: "authn/x509",
			labels:     []string{loose, x509},
			noLabels:   []string{tokens, adder, union, anon, "authenticator"},
			lacks:      []string{failOnEr, authed},
		},
		{
			checkpoint: "authn/token",
			labels:     []string{loose, x509, tokens},
			noLabels:   []string{adder, union, anon, "authenticator"},
			lacks:      []string{failOnEr, authed},
		},
		{
			checkpoint: "authn/union",
			labels:     []string{"authenticator", adder, union, x509, tokens},
			noLabels:   []string{loose, anon},
			has:        []string{"groups [system:masters " + authed + "]"},
			lacks:      []string{failOnEr},
		},
		{
			checkpoint: "authn/anonymous",
			labels:     []string{"authenticator", adder, union, x509, tokens, anon},
			noLabels:   []string{loose},
			has:        []string{"authenticator: " + failOnEr, "groups [system:masters " + authed + "]"},
		},
	}

	seen := map[string]*server.Node{}
	hook := server.HookFunc(func(_ context.Context, cp server.Checkpoint, s *server.Server) error {
		if cp.Phase == server.PhaseAuthn {
			seen[cp.ID()] = s.State().Find(string(server.PhaseAuthn))
		}
		return nil
	})
	s := newServer(t, func(o *server.Options) { o.Hook = hook })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, p := range []server.Phase{server.PhaseConfig, server.PhaseAuthn} {
		if err := s.RunPhase(ctx, p); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}

	for _, tt := range tests {
		n := seen[tt.checkpoint]
		if n == nil {
			t.Errorf("%s: the hook saw no authn state", tt.checkpoint)
			continue
		}
		text := n.String()
		for _, l := range tt.labels {
			if n.Find(l) == nil {
				t.Errorf("%s: state has no %q node:\n%s", tt.checkpoint, l, text)
			}
		}
		for _, l := range tt.noLabels {
			if n.Find(l) != nil {
				t.Errorf("%s: state shows %q before the phase built it:\n%s", tt.checkpoint, l, text)
			}
		}
		for _, sub := range tt.has {
			if !strings.Contains(text, sub) {
				t.Errorf("%s: state lacks %q:\n%s", tt.checkpoint, sub, text)
			}
		}
		for _, sub := range tt.lacks {
			if strings.Contains(text, sub) {
				t.Errorf("%s: state shows %q before the phase built it:\n%s", tt.checkpoint, sub, text)
			}
		}
	}
}
