package engine_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/server"
)

// TestTargets walks a real server with each kind of target and checks where it pauses.
func TestTargets(t *testing.T) {
	eng, err := engine.New(server.Options{LogOutput: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx := context.Background()
	if err := eng.Start(ctx, engine.NextCheckpoint()); err != nil {
		t.Fatal(err)
	}
	next := func() engine.Event {
		select {
		case ev := <-eng.Events():
			return ev
		case <-time.After(time.Minute):
			t.Fatal("no event")
			return engine.Event{}
		}
	}
	steps := []struct {
		target engine.Target
		want   string // checkpoint ID, or "served"
	}{
		{engine.NextCheckpoint(), "config/generic-config"},
		{engine.NextPhase(), "authn/x509"},
		{engine.ToPhase(server.PhaseStorage), "storage/etcd"},
		{engine.ToCheckpoint("install/groups"), "install/groups"},
		{engine.ToEnd(), "served"},
	}
	if ev := next(); ev.Paused == nil || ev.Paused.Checkpoint.ID() != "config/scheme" {
		t.Fatalf("first pause = %+v", ev)
	}
	for _, st := range steps {
		if err := eng.Continue(st.target); err != nil {
			t.Fatal(err)
		}
		ev := next()
		got := "served"
		if ev.Paused != nil {
			got = ev.Paused.Checkpoint.ID()
		} else if !ev.Served {
			t.Fatalf("event = %+v", ev)
		}
		if got != st.want {
			t.Fatalf("paused at %s, want %s", got, st.want)
		}
	}
	if n := len(eng.Stops()); n != len(server.Checkpoints()) {
		t.Fatalf("recorded %d stops, want %d", n, len(server.Checkpoints()))
	}
}

// TestCloseIsNotAFailure: closing the server ends the startup wherever it is — before the
// first phase, between phases, while paused — and that is not reported as a failure.
func TestCloseIsNotAFailure(t *testing.T) {
	for _, when := range []string{"before the first phase", "while paused"} {
		t.Run(when, func(t *testing.T) {
			eng, err := engine.New(server.Options{LogOutput: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if when == "before the first phase" {
				if err := eng.Server().Close(); err != nil {
					t.Fatal(err)
				}
			}
			if err := eng.Start(context.Background(), engine.NextCheckpoint()); err != nil {
				t.Fatal(err)
			}
			if when == "while paused" {
				select {
				case ev := <-eng.Events():
					if ev.Paused == nil {
						t.Fatalf("first event = %+v", ev)
					}
				case <-time.After(time.Minute):
					t.Fatal("no pause")
				}
			}
			// Engine.Close returns once the startup goroutine has sent its last event.
			if err := eng.Close(); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-eng.Events():
				t.Fatalf("after Close: event %+v (Failed: %v)", ev, ev.Failed)
			default:
			}
		})
	}
}

// BenchmarkFirstCheckpoint measures launch → the first checkpoint's state ready to show.
func BenchmarkFirstCheckpoint(b *testing.B) {
	for i := 0; i < b.N; i++ {
		eng, err := engine.New(server.Options{LogOutput: io.Discard})
		if err != nil {
			b.Fatal(err)
		}
		if err := eng.Start(context.Background(), engine.NextCheckpoint()); err != nil {
			b.Fatal(err)
		}
		if ev := <-eng.Events(); ev.Paused == nil {
			b.Fatalf("event = %+v", ev)
		}
		b.StopTimer()
		eng.Close()
		b.StartTimer()
	}
}
