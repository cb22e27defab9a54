package tui

import (
	"sync"
	"sync/atomic"
	"testing"
)

// racyFollower is a fakeFollower whose state changes, once armed, right after the screen reads
// it: the instructor's next checkpoint lands between one read of the state and the next wait.
type racyFollower struct {
	*fakeFollower
	armed atomic.Bool
	once  sync.Once
	then  func(*FollowState)
}

func (r *racyFollower) State() FollowState {
	st := r.fakeFollower.State()
	if r.armed.Load() {
		r.once.Do(func() { r.set(r.then) })
	}
	return st
}

// TestFollowChangeBetweenReads: a change that lands just after the screen read the student's
// state is not lost: the following student's server still runs on to the instructor's
// checkpoint (it used to wait for the change after that, which may never come).
func TestFollowChangeBetweenReads(t *testing.T) {
	f := &racyFollower{
		fakeFollower: newFakeFollower(FollowState{Title: "walk", Name: "ana", Connected: true, Following: true}),
		then:         func(s *FollowState) { s.Instructor = ClassPlace{Checkpoint: "authz/rbac"} },
	}
	hs := newHarnessOpts(t, 120, 40, fakeContent{}, fakeServer{}, Options{GlamourStyle: "notty", Follow: f})
	hs.must("no message from the instructor yet")
	f.armed.Store(true)
	f.set(func(s *FollowState) { s.Message, s.MessageSeq = "look at the RBAC authorizer", 1 })
	hs.until("the student follows the instructor to authz/rbac", func() bool { return liveID(hs) == "authz/rbac" })
	hs.settle()
	hs.must("following the instructor (at authz/rbac)", "instructor: look at the RBAC authorizer")
}
