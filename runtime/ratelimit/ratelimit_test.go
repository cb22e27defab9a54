package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	l := New(Config{PerIP: 2, PerIPEvery: 10 * time.Second, Global: 3, GlobalEvery: 5 * time.Second})
	t0 := time.Unix(1000, 0)
	steps := []struct {
		ip   string
		at   time.Duration
		ok   bool
		fail bool
	}{
		{"10.0.0.1", 0, true, true},
		{"10.0.0.1", 0, true, true},
		{"10.0.0.1", 0, false, false}, // per-IP bucket empty
		{"10.0.0.2", 0, true, true},   // another address still may: global has 1 left
		{"10.0.0.3", 0, false, false}, // …until the global bucket is empty
		{"10.0.0.3", 5 * time.Second, true, false},
		{"10.0.0.1", 10 * time.Second, true, false}, // one token back for .1 after 10 s
	}
	for i, s := range steps {
		_, ok := l.Check(s.ip, t0.Add(s.at))
		if ok != s.ok {
			t.Fatalf("step %d (%s at +%s): allowed %v, want %v", i, s.ip, s.at, ok, s.ok)
		}
		if s.fail {
			l.Fail(s.ip, t0.Add(s.at))
		}
	}
	l.Fail("10.0.0.1", t0.Add(10*time.Second))
	if w, ok := l.Check("10.0.0.1", t0.Add(10*time.Second)); ok || w <= 0 {
		t.Errorf("a refusal must say how long to wait; got %s, %v", w, ok)
	}
}

func TestLimiterBoundsAddresses(t *testing.T) {
	l := New(Config{PerIP: 1, PerIPEvery: time.Second, Global: 1 << 30, GlobalEvery: time.Nanosecond})
	t0 := time.Unix(1000, 0)
	for i := range MaxTrackedIPs {
		l.Fail(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), t0)
	}
	// An hour later every bucket is full again: the next new address prunes them all.
	l.Fail("192.0.2.1", t0.Add(time.Hour))
	if n := l.Tracked(); n != 1 {
		t.Errorf("tracked addresses after pruning: %d, want 1", n)
	}
}
