package plain

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/engine"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/server"
)

// fakeClass is a class whose state the test sets; Changed is closed at every set.
type fakeClass struct {
	mu       sync.Mutex
	st       ClassState
	ch       chan struct{}
	reported []Place
}

func newFakeClass() *fakeClass { return &fakeClass{ch: make(chan struct{})} }

func (c *fakeClass) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ch
}

func (c *fakeClass) State() ClassState {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

func (c *fakeClass) Report(p Place, _ int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reported = append(c.reported, p)
}

func (c *fakeClass) set(f func(*ClassState)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.st)
	close(c.ch)
	c.ch = make(chan struct{})
}

// syncBuf is a bytes.Buffer for one writer and a polling reader.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitOut waits, bounded, until out holds want.
func waitOut(t *testing.T, out *syncBuf, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestFollowerNext: after a stop the follower waits for the instructor, printing each message
// once and the connection's changes once each; it runs forward, never back; it runs on to the
// end after leaving the class, and at the last checkpoint.
func TestFollowerNext(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			tr := i18n.For(lang)
			all := server.Checkpoints()
			c := newFakeClass()
			c.set(func(s *ClassState) {
				s.Title, s.Connected, s.Instructor = "walk", true, Place{Checkpoint: all[0].ID()}
				s.Messages = []ClassMessage{{Key: "a/1", Text: "hello"}}
			})
			out := &syncBuf{}
			o := Options{Out: out}
			f := newFollower(c, tr, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			type result struct {
				t   engine.Target
				err error
			}
			got := make(chan result, 1)
			go func() { t, err := f.next(ctx, o, all[2].ID()); got <- result{t, err} }()
			waitOut(t, out, tr.ClassMessage+" hello")
			waitOut(t, out, fmt.Sprintf(tr.PlainFollowWaiting, "walk"))
			// Behind the student: nothing happens. A second message and a lost connection print.
			c.set(func(s *ClassState) {
				s.Instructor = Place{Checkpoint: all[1].ID()}
				s.Messages = append(s.Messages, ClassMessage{Key: "a/2", Text: "next"})
			})
			waitOut(t, out, tr.ClassMessage+" next")
			c.set(func(s *ClassState) { s.Connected, s.Problem = false, "the class host stopped" })
			waitOut(t, out, "the class host stopped")
			c.set(func(s *ClassState) { s.Connected, s.Problem = true, "" }) // back
			// Ahead: run there.
			c.set(func(s *ClassState) { s.Instructor = Place{Checkpoint: all[5].ID()} })
			select {
			case r := <-got:
				if r.err != nil || r.t != engine.ToCheckpoint(all[5].ID()) {
					t.Fatalf("next = %+v, %v; want ToCheckpoint(%s)", r.t, r.err, all[5].ID())
				}
			case <-ctx.Done():
				t.Fatalf("next never returned:\n%s", out)
			}
			s := out.String()
			for _, once := range []string{tr.ClassMessage + " hello", tr.ClassMessage + " next", "the class host stopped"} {
				if n := strings.Count(s, once); n != 1 {
					t.Errorf("%q printed %d times:\n%s", once, n, s)
				}
			}
			if n := strings.Count(s, "walk · "); n != 2 { // connected at first, and again
				t.Errorf("the connection's state printed %d times, want 2:\n%s", n, s)
			}

			// At the last checkpoint: on to serve, without waiting.
			if tg, err := f.next(ctx, o, all[len(all)-1].ID()); err != nil || tg != engine.NextCheckpoint() {
				t.Errorf("at the last checkpoint: %+v, %v", tg, err)
			}
			// Left the class: the transcript runs on.
			c.set(func(s *ClassState) { s.Connected, s.Fatal = false, "the host changed" })
			if tg, err := f.next(ctx, o, all[6].ID()); err != nil || tg != engine.NextCheckpoint() {
				t.Errorf("after leaving: %+v, %v", tg, err)
			}
			waitOut(t, out, "the host changed")
			// Ctrl-C while waiting.
			f2 := newFollower(newFakeClass(), tr, nil)
			cctx, ccancel := context.WithCancel(context.Background())
			ccancel()
			if _, err := f2.next(cctx, o, all[1].ID()); err == nil {
				t.Error("next ignored a cancelled context")
			}
		})
	}
}

// TestFollowerPastServe: once the instructor's server serves, the follower runs to the last
// checkpoint (printed like the others; from there the walk goes on to serve); in
// the track it prints a step once the instructor has shown it (or a later one); when the class
// ends, it says so once and runs on without waiting.
func TestFollowerPastServe(t *testing.T) {
	for _, lang := range []string{"en", "zh-CN"} {
		t.Run(lang, func(t *testing.T) {
			tr := i18n.For(lang)
			all := server.Checkpoints()
			last := all[len(all)-1].ID()
			steps := []string{"apimachinery/typemeta", "apimachinery/scheme", "own-group/register"}
			c := newFakeClass()
			c.set(func(s *ClassState) {
				s.Title, s.Connected, s.Instructor = "walk", true, Place{Checkpoint: last, Served: true}
			})
			out := &syncBuf{}
			o := Options{Out: out}
			exs := []lessons.Exercise{{ID: "authn-bad-token", Title: "Get turned away", Goal: "Get a 401."}}
			f := newFollower(c, tr, exs)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// An assignment prints once, named in the learner's language.
			c.set(func(s *ClassState) { s.Assigned, s.AssignedKey = "authn-bad-token", "i/1" })
			f.news(o, c.State())
			f.news(o, c.State())
			assigned := fmt.Sprintf(tr.PlainAssigned, "Get turned away", "authn-bad-token", "Get a 401.")
			if n := strings.Count(out.String(), assigned); n != 1 {
				t.Errorf("the assignment printed %d times:\n%s", n, out)
			}
			if tg, err := f.next(ctx, o, all[3].ID()); err != nil || tg != engine.ToCheckpoint(last) {
				t.Fatalf("instructor serving: next = %+v, %v; want the last checkpoint", tg, err)
			}
			waitOut(t, out, tr.PlainFollowServing)

			// The track: step 0 waits until the instructor shows it.
			done := make(chan error, 1)
			go func() { done <- f.toStep(ctx, o, 0, steps) }()
			waitOut(t, out, fmt.Sprintf(tr.PlainFollowWaiting, "walk"))
			select {
			case err := <-done:
				t.Fatalf("toStep(0) returned (%v) before the instructor entered the track", err)
			default:
			}
			c.set(func(s *ClassState) { s.Instructor = Place{Checkpoint: last, Served: true, Step: steps[1]} })
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			// Step 1 is shown already: no wait.
			if err := f.toStep(ctx, o, 1, steps); err != nil {
				t.Fatal(err)
			}
			// Step 2 waits; the class ends: it goes on, and says why once.
			go func() { done <- f.toStep(ctx, o, 2, steps) }()
			c.set(func(s *ClassState) { s.Connected, s.Ended = false, true })
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			waitOut(t, out, tr.PlainFollowEnded)
			if tg, err := f.next(ctx, o, all[3].ID()); err != nil || tg != engine.NextCheckpoint() {
				t.Errorf("after the end: %+v, %v", tg, err)
			}
			if n := strings.Count(out.String(), tr.PlainFollowEnded); n != 1 {
				t.Errorf("the end printed %d times:\n%s", n, out)
			}
			if strings.Contains(out.String(), strings.SplitN(tr.ClassReconnecting, "%", 2)[0]) {
				t.Errorf("the end of the class reads as a lost connection:\n%s", out)
			}
		})
	}
}
