package classroom

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

const classSize = 40

// startClass starts a host and n followers in this process, all joined.
func startClass(tb testing.TB, n int) (*Host, []*Student) {
	return startClassWith(tb, HostConfig{}, n)
}

func startClassWith(tb testing.TB, cfg HostConfig, n int) (*Host, []*Student) {
	tb.Helper()
	cfg.Listen = "127.0.0.1:0"
	h, err := StartHost(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(h.Stop)
	students := make([]*Student, n)
	for i := range students {
		s, err := Join(context.Background(), StudentConfig{Addr: h.Addr().String(), Code: h.JoinCode(), Name: fmt.Sprintf("s%02d", i)})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(s.Stop)
		students[i] = s
	}
	for _, s := range students {
		select {
		case <-s.Ready():
		case <-s.Done():
			tb.Fatalf("student stopped: %v", s.Err())
		case <-time.After(bound):
			tb.Fatal("student not admitted")
		}
	}
	return h, students
}

// reach waits, at most bound, until s has seen the instructor at ordinal ord or later.
func reach(s *Student, ord int) bool {
	timeout := time.NewTimer(bound)
	defer timeout.Stop()
	for {
		ch := s.Changed()
		if s.State().Instructor.Ordinal >= ord {
			return true
		}
		select {
		case <-ch:
		case <-timeout.C:
			return false
		}
	}
}

// TestFortyFollowers checks that a class of 40 all follow the instructor (the timing is
// measured by BenchmarkFollow40, not asserted here).
func TestFortyFollowers(t *testing.T) {
	h, students := startClass(t, classSize)
	if n := len(h.Board().Students); n != classSize {
		t.Fatalf("board has %d students, want %d", n, classSize)
	}
	h.Publish(Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 1})
	for _, s := range students {
		if !reach(s, 1) {
			t.Fatalf("%s did not follow: %+v", s.State().Name, s.State())
		}
	}
}

// BenchmarkFollow40 publishes a checkpoint per iteration to 40 followers in this process and
// reports the time until each follower's State shows it: p50, p95 and max over all
// followers and iterations.
func BenchmarkFollow40(b *testing.B) {
	h, students := startClass(b, classSize)
	benchFollow(b, h, students)
}

// BenchmarkFollow40WithStalled is BenchmarkFollow40 with a 41st student that has stopped
// reading, its socket buffers already full: the others must not notice it.
func BenchmarkFollow40WithStalled(b *testing.B) {
	h, students := startClassWith(b, HostConfig{sndBuf: 4096, WriteTimeout: time.Hour, Heartbeat: time.Minute}, classSize)
	stalled := stalledStudent(b, h)
	defer stalled.Close()
	// Send until its queue overflows, that is until its writer is blocked on the socket.
	for i := 0; ; i++ {
		if st, _ := student(h.Board(), "stalled"); st.Dropped > 0 {
			break
		}
		if i == 100000 {
			b.Fatal("the stalled student's writer never blocked")
		}
		h.Broadcast(fmt.Sprintf("%0*d", MaxMessageRunes, i))
	}
	benchFollow(b, h, students)
}

func benchFollow(b *testing.B, h *Host, students []*Student) {
	var all []time.Duration
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		lat := make([]time.Duration, len(students))
		var wg sync.WaitGroup
		t0 := time.Now()
		for j, s := range students {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if reach(s, i) {
					lat[j] = time.Since(t0)
				} else {
					lat[j] = -1
				}
			}()
		}
		h.Publish(Checkpoint{Phase: "serve", ID: fmt.Sprintf("serve/%d", i), Ordinal: i})
		wg.Wait()
		if slices.Contains(lat, -1) {
			b.Fatalf("a follower missed checkpoint %d", i)
		}
		all = append(all, lat...)
	}
	b.StopTimer()
	slices.Sort(all)
	b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
	b.ReportMetric(ms(all[len(all)*95/100]), "p95-ms")
	b.ReportMetric(ms(all[len(all)-1]), "max-ms")
}

// BenchmarkBroadcast40 measures message throughput to 40 followers without losing any: the
// host sends bursts of 8 messages (half of a student's queue) and waits until every follower
// has the burst's last one. It reports deliveries per second (messages × followers) and the
// share dropped (0 unless a follower falls a whole queue behind).
func BenchmarkBroadcast40(b *testing.B) {
	const burst = 8
	h, students := startClass(b, classSize)
	b.ResetTimer()
	t0 := time.Now()
	for i := 1; i <= b.N; i++ {
		if err := h.Broadcast(fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog", i)); err != nil {
			b.Fatal(err)
		}
		if i%burst == 0 || i == b.N {
			for _, s := range students {
				if !waitSeq(s, i) {
					b.Fatalf("%s did not get message %d", s.State().Name, i)
				}
			}
		}
	}
	elapsed := time.Since(t0)
	b.StopTimer()
	reportDeliveries(b, h, elapsed)
}

// BenchmarkBroadcast40Flood sends b.N messages as fast as the host accepts them: Broadcast
// never waits for a socket, so the host's rate is bounded by CPU, and each follower's queue
// drops its oldest messages when its writer falls behind.
func BenchmarkBroadcast40Flood(b *testing.B) {
	h, students := startClass(b, classSize)
	b.ResetTimer()
	t0 := time.Now()
	for i := 1; i <= b.N; i++ {
		if err := h.Broadcast(fmt.Sprintf("message %d: the quick brown fox jumps over the lazy dog", i)); err != nil {
			b.Fatal(err)
		}
	}
	sent := time.Since(t0)
	for _, s := range students {
		if !waitSeq(s, b.N) {
			b.Fatalf("%s did not get message %d", s.State().Name, b.N)
		}
	}
	elapsed := time.Since(t0)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/sent.Seconds(), "broadcasts/s")
	reportDeliveries(b, h, elapsed)
}

func reportDeliveries(b *testing.B, h *Host, elapsed time.Duration) {
	dropped := 0
	for _, st := range h.Board().Students {
		dropped += st.Dropped
	}
	delivered := classSize*b.N - dropped
	b.ReportMetric(float64(delivered)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(dropped)/float64(classSize*b.N)*100, "%dropped")
}

func waitSeq(s *Student, seq int) bool {
	timeout := time.NewTimer(bound)
	defer timeout.Stop()
	for {
		ch := s.Changed()
		if m := s.State().Messages; len(m) > 0 && m[len(m)-1].Seq >= seq {
			return true
		}
		select {
		case <-ch:
		case <-timeout.C:
			return false
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
