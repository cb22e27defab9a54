package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/server"
)

// TestRequestTimeout: --request-timeout reaches the generic config (the config lesson's state
// shows it), defaults to kube-apiserver's 1m, and a negative value is refused by name.
func TestRequestTimeout(t *testing.T) {
	if _, err := server.New(server.Options{RequestTimeout: -time.Second}); err == nil || !strings.Contains(err.Error(), "--request-timeout -1s") {
		t.Errorf("negative timeout: err = %v", err)
	}
	for _, tc := range []struct {
		set  time.Duration
		want string
	}{{0, "1m0s"}, {11 * time.Minute, "11m0s"}} {
		s := newServer(t, func(o *server.Options) { o.RequestTimeout = tc.set })
		if err := s.Config(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := s.PhaseState(server.PhaseConfig).Find("RequestTimeout"); got == nil || got.Value != tc.want {
			t.Errorf("RequestTimeout %s: state shows %+v, want %s", tc.set, got, tc.want)
		}
	}
}

// TestRecordingOff: without a Recorder the config keeps the library's defaults (no audit
// backend); with one, the state says what records requests.
func TestRecordingOff(t *testing.T) {
	off := newServer(t)
	if err := off.Config(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := off.PhaseState(server.PhaseConfig).Find("AuditBackend"); n != nil {
		t.Errorf("audit backend without a recorder: %+v", n)
	}
	on := newServer(t, func(o *server.Options) { o.Recorder = &countingRecorder{} })
	if err := on.Config(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := on.PhaseState(server.PhaseConfig).Find("AuditBackend"); n == nil || !strings.Contains(n.Value, "level Metadata") {
		t.Errorf("audit backend with a recorder: %+v", n)
	}
}
