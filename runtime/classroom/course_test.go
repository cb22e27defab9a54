package classroom

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestFollowPastServe: once the instructor's server serves, the checkpoint says so (Served) and
// then names the track step (Step); each advances on the ordinal, and a follower never goes
// back to the serve stop from a step, nor to an earlier step.
func TestFollowPastServe(t *testing.T) {
	h := startHost(t, HostConfig{})
	s := joined(t, joinCfg(h, "ana"))
	const n = 28 // the startup checkpoints
	last := Checkpoint{Phase: "serve", ID: "serve/kubeconfig", Ordinal: n}
	served := Checkpoint{Phase: "serve", ID: "serve/kubeconfig", Ordinal: n + 1, Served: true}
	step := func(i int, id string) Checkpoint {
		return Checkpoint{Phase: "serve", ID: "serve/kubeconfig", Ordinal: n + 2 + i, Served: true, Step: id}
	}
	for _, tc := range []struct {
		publish Checkpoint
		moves   bool
		want    Checkpoint
	}{
		{last, true, last},
		{served, true, served},
		{step(0, "apimachinery/typemeta"), true, step(0, "apimachinery/typemeta")},
		{step(3, "apimachinery/bytes"), true, step(3, "apimachinery/bytes")},
		{step(1, "apimachinery/scheme"), false, step(3, "apimachinery/bytes")}, // the instructor went back
		{served, false, step(3, "apimachinery/bytes")},                         // and left the track
		{step(4, "own-group/register"), true, step(4, "own-group/register")},
	} {
		if got := h.Publish(tc.publish); got != tc.moves {
			t.Errorf("Publish(%+v) = %v, want %v", tc.publish, got, tc.moves)
		}
		want := tc.want
		waitFor(t, "student at "+want.Step, s.Changed, func() bool { return s.State().Instructor == want })
		if b := h.Board(); b.Checkpoint != want {
			t.Errorf("board's checkpoint %+v, want %+v", b.Checkpoint, want)
		}
	}
	// The student reports its own place in the track.
	s.Report(step(2, "apimachinery/restmapper"), 4)
	waitFor(t, "board shows ana in the track", h.Changed, func() bool {
		st, ok := student(h.Board(), "ana")
		return ok && st.Checkpoint.Step == "apimachinery/restmapper" && st.Checkpoint.Served && st.Done == 4
	})
}

// TestAssign: the instructor's assignment reaches every student, latecomers in their welcome;
// a new one replaces it, an empty one takes it back; students report their state on it and the
// board shows it. Bad IDs are cleaned or refused, and bad reports dropped.
func TestAssign(t *testing.T) {
	h := startHost(t, HostConfig{})
	ana := joined(t, joinCfg(h, "ana"))
	if a := ana.State().Assigned; !a.IsZero() {
		t.Fatalf("assignment before any: %+v", a)
	}
	a1, err := h.Assign("authn-bad-token")
	if err != nil || a1.ID != "authn-bad-token" || a1.Seq != 1 {
		t.Fatalf("Assign = %+v, %v", a1, err)
	}
	waitFor(t, "ana sees the assignment", ana.Changed, func() bool { return same(ana.State().Assigned, a1) })
	if b := h.Board(); !same(b.Assigned, a1) {
		t.Errorf("board's assignment %+v, want %+v", b.Assigned, a1)
	}
	late := joined(t, joinCfg(h, "bo"))
	if got := late.State().Assigned; !same(got, a1) {
		t.Errorf("latecomer's assignment %+v, want %+v", got, a1)
	}

	ana.ReportExercise(ExerciseProgress{ID: "authn-bad-token", State: ExerciseTrying, Hints: 2})
	late.ReportExercise(ExerciseProgress{ID: "authn-bad-token", State: "exploded", Hints: -3})
	waitFor(t, "board shows ana trying with 2 hints, bo's nonsense dropped", h.Changed, func() bool {
		a, _ := student(h.Board(), "ana")
		b, ok := student(h.Board(), "bo")
		return a.Exercise == ExerciseProgress{ID: "authn-bad-token", State: ExerciseTrying, Hints: 2} &&
			ok && b.Exercise == ExerciseProgress{ID: "authn-bad-token"}
	})

	// The same exercise again is a new assignment (students see it again); another replaces it.
	a2, _ := h.Assign("authn-bad-token")
	a3, _ := h.Assign(" authn-\x1b[31manonymous\n")
	if a2.Seq != 2 || a3.Seq != 3 || a3.ID != "authn-[31manonymous" {
		t.Fatalf("assignments %+v %+v", a2, a3)
	}
	for _, s := range []*Student{ana, late} {
		waitFor(t, "the latest assignment", s.Changed, func() bool { return same(s.State().Assigned, a3) })
	}
	// Taken back.
	a4, _ := h.Assign("")
	waitFor(t, "assignment taken back", ana.Changed, func() bool { st := ana.State().Assigned; return st.Seq == 4 && st.ID == "" })
	if a4.IsZero() {
		t.Error("a taken-back assignment reads as none ever made")
	}
	// An older assignment of the same host run does not replace a newer one.
	ana.mu.Lock()
	took := ana.assignLocked(a1)
	ana.mu.Unlock()
	if took || ana.State().Assigned.Seq != 4 {
		t.Errorf("an older assignment was taken: %+v", ana.State().Assigned)
	}
	if _, err := h.Assign(strings.Repeat("x", maxFieldRunes+1)); err == nil {
		t.Error("Assign of a 65-character ID = nil, want an error")
	}
}

// TestClassEnded: when the instructor stops the host, students are told the class ended (not
// that the connection dropped); that is not fatal: the host started again with the same
// identity admits them again and they follow on.
func TestClassEnded(t *testing.T) {
	id, err := NewIdentity()
	if err != nil {
		t.Fatal(err)
	}
	h1, err := StartHost(context.Background(), HostConfig{Listen: "127.0.0.1:0", Identity: id, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	addr := h1.Addr().String()
	s := joined(t, StudentConfig{Addr: addr, Code: h1.JoinCode(), Name: "ana", BackoffMin: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond, Logf: t.Logf})
	if s.State().Ended {
		t.Fatal("Ended while the class runs")
	}
	h1.Stop()
	waitFor(t, "student told the class ended", s.Changed, func() bool { st := s.State(); return st.Ended && !st.Connected })
	select {
	case <-s.Done():
		t.Fatalf("the end of the class stopped the student: %v", s.Err())
	default:
	}
	// Still ended after failed attempts to reconnect (nobody listens now).
	waitFor(t, "an attempt after the end", s.Changed, func() bool { st := s.State(); return st.LastError != nil && !errorsIsStopped(st.LastError) })
	if !s.State().Ended {
		t.Fatal("a failed reconnection cleared Ended")
	}
	h2 := startHost(t, HostConfig{Listen: addr, Identity: id})
	cp := Checkpoint{Phase: "authn", ID: "authn/x509", Ordinal: 3}
	h2.Publish(cp)
	waitFor(t, "student back in the class started again", s.Changed, func() bool {
		st := s.State()
		return st.Connected && !st.Ended && st.Instructor == cp
	})
}

// same compares assignments as they cross the wire (the time without its monotonic reading).
func same(a, b Assignment) bool {
	return a.ID == b.ID && a.Seq == b.Seq && a.Instance == b.Instance && a.At.Equal(b.At)
}

func errorsIsStopped(err error) bool { return strings.Contains(err.Error(), "class host stopped") }

// TestProtocolCompatible: v1 lines with fields this build does not know, and message types it
// does not know, are read and ignored in both directions; a line without the new fields reads
// as before.
func TestProtocolCompatible(t *testing.T) {
	lines := []struct {
		line string
		want func(envelope) bool
	}{
		{`{"v":1,"t":"checkpoint","cp":{"phase":"authz","id":"authz/rbac","ord":9}}`, func(e envelope) bool {
			return e.Checkpoint != nil && *e.Checkpoint == Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 9}
		}},
		{`{"v":1,"t":"checkpoint","cp":{"phase":"serve","id":"serve/kubeconfig","ord":30,"served":true,"step":"a/b","later":[1,2]},"future":{"x":1}}`, func(e envelope) bool {
			return e.Checkpoint != nil && e.Checkpoint.Served && e.Checkpoint.Step == "a/b" && e.Checkpoint.Ordinal == 30
		}},
		{`{"v":1,"t":"progress","progress":{"cp":{"id":"config/scheme","ord":1},"done":2,"stuck":false,"following":true}}`, func(e envelope) bool {
			return e.Progress != nil && e.Progress.Done == 2 && e.Progress.Exercise == ExerciseProgress{}
		}},
		{`{"v":1,"t":"assign","assign":{"id":"authn-anonymous","seq":2,"at":"2026-01-02T03:04:05Z","why":"new field"}}`, func(e envelope) bool {
			return e.Assign != nil && e.Assign.ID == "authn-anonymous" && e.Assign.Seq == 2
		}},
		{`{"v":1,"t":"poll","question":"later"}`, func(e envelope) bool { return e.T == "poll" }},
	}
	for _, tc := range lines {
		env, _, err := readEnvelope(bufio.NewReader(strings.NewReader(tc.line + "\n")))
		if err != nil || !tc.want(env) {
			t.Errorf("%s: %+v, %v", tc.line, env, err)
		}
	}
	// A progress line of this build, as an earlier host reads it: the fields it knows.
	b, _ := json.Marshal(envelope{V: 1, T: tProgress, Progress: &Progress{Done: 1, Exercise: ExerciseProgress{ID: "x", State: ExerciseDone}}})
	var old struct {
		Progress struct {
			Done      int  `json:"done"`
			Following bool `json:"following"`
		} `json:"progress"`
	}
	if err := json.Unmarshal(b, &old); err != nil || old.Progress.Done != 1 {
		t.Errorf("an earlier reader: %+v, %v (%s)", old, err, b)
	}

	// A live host ignores a type it does not know from a student, and the student stays.
	h := startHost(t, HostConfig{})
	s := joined(t, joinCfg(h, "ana"))
	h.mu.Lock()
	var p *peer
	for _, r := range h.sessions {
		p = r.peer
	}
	h.mu.Unlock()
	// The host's writer sends a line of a type the student does not know: ignored.
	p.finishLine(t, envelope{T: "poll", Title: "a later minor addition"})
	cp := Checkpoint{Phase: "authz", ID: "authz/rbac", Ordinal: 9}
	h.Publish(cp) // after the unknown line on the same connection
	waitFor(t, "the checkpoint after the unknown line", s.Changed, func() bool { return s.State().Instructor == cp })
	s.Report(Checkpoint{Phase: "authn", ID: "authn/x509", Ordinal: 3}, 1)
	waitFor(t, "board still updated", h.Changed, func() bool {
		st, ok := student(h.Board(), "ana")
		return ok && st.Connected && st.Checkpoint.ID == "authn/x509"
	})
	if !s.State().Connected {
		t.Error("an unknown type dropped the student")
	}
}

// finishLine writes one extra line on the peer's connection, as a later host version would.
func (p *peer) finishLine(t *testing.T, env envelope) {
	t.Helper()
	env.V = ProtocolVersion
	buf, err := appendEnvelope(nil, env)
	if err != nil {
		t.Fatal(err)
	}
	p.conn.SetWriteDeadline(time.Now().Add(bound))
	if _, err := p.conn.Write(buf); err != nil {
		t.Fatal(err)
	}
}
