package server

import (
	"context"
	"errors"
	"testing"
)

// doneChecker is a cache.DoneChecker over a channel.
type doneChecker chan struct{}

func (d doneChecker) Name() string          { return "test informer" }
func (d doneChecker) Done() <-chan struct{} { return d }

// TestWaitDone: the bootstrap hooks' wait for the namespace informer returns as soon as the
// informer has synced, and with the context's cause, naming what it waited for, when the
// context ends first (the server stops while it starts).
func TestWaitDone(t *testing.T) {
	stop := errors.New("server stopping")
	tests := []struct {
		name    string
		synced  bool
		cancel  bool
		wantErr error
	}{
		{name: "synced", synced: true},
		{name: "synced and cancelled", synced: true, cancel: true}, // either answer is right: see below
		{name: "cancelled first", cancel: true, wantErr: stop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := make(doneChecker)
			if tt.synced {
				close(d)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			if tt.cancel {
				cancel(stop)
			} else {
				defer cancel(nil)
			}
			err := waitDone(ctx, d)
			switch {
			case tt.synced && tt.cancel:
				if err != nil && !errors.Is(err, stop) {
					t.Fatalf("waitDone = %v, want nil or %v", err, stop)
				}
			case tt.wantErr == nil && err != nil:
				t.Fatalf("waitDone = %v, want nil", err)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("waitDone = %v, want %v", err, tt.wantErr)
			case tt.wantErr != nil && err.Error() != "waiting for test informer: server stopping":
				t.Fatalf("waitDone = %q, want it to name what it waited for", err)
			}
		})
	}
}
