package tui

import (
	"github.com/kubewalk/kubewalk/runtime/tui/class"
	"github.com/kubewalk/kubewalk/runtime/tui/etcd"
	"github.com/kubewalk/kubewalk/runtime/tui/exercises"
	kubectlview "github.com/kubewalk/kubewalk/runtime/tui/kubectl"
	"github.com/kubewalk/kubewalk/runtime/tui/requests"
)

// The after-serve views read the running server through the small interfaces below, so the
// screen can be tested with fakes and the backends (runtime/tracing, runtime/etcdview,
// runtime/kubectl) can change behind adapters. Every method is called from a tea.Cmd, never
// from the update loop, possibly from several goroutines at once: implementations must be safe
// for concurrent use. A nil backend in Options turns its view into a short explanation.

// Requests is the trace store the Requests view and the kubectl pane read; it lives with the
// view (runtime/tui/requests).
type Requests = requests.Requests

// Breakpoints holds matching requests at a stage of the chain (runtime/tui/requests).
type Breakpoints = requests.Breakpoints

// HeldRequest is a request a breakpoint holds (runtime/tui/requests).
type HeldRequest = requests.HeldRequest

// The etcd explorer's reader and what it reads, defined beside the view
// (runtime/tui/etcd); runtime/cli implements them under these names.
type (
	EtcdBrowser = etcd.Browser
	EtcdKey     = etcd.Key
	EtcdPage    = etcd.Page
	EtcdValue   = etcd.Value
	EtcdChange  = etcd.Change
)

// Kubectl runs kubectl commands in-process for the kubectl view (*kubectl.Runner); the view
// (runtime/tui/kubectl) defines it.
type Kubectl = kubectlview.Kubectl

// NewKubectl makes the kubectl runner once the server serves and its kubeconfig exists; it
// is called from a tea.Cmd on the first :kubectl command.
type NewKubectl = kubectlview.NewKubectl

// Exercises is what the exercises view needs (runtime/cli adapts runtime/exercises to it):
// exercises.Backend, kept here under its old name with the exercise types so that runtime/cli
// does not change.
type Exercises = exercises.Backend

// Exercise is one exercise as the view shows it (exercises.Exercise).
type Exercise = exercises.Exercise

// ExerciseState is where an exercise stands (exercises.State).
type ExerciseState = exercises.State

// The exercise states.
const (
	ExerciseLocked     = exercises.Locked
	ExerciseNeedsServe = exercises.NeedsServe
	ExerciseOpen       = exercises.Open
	ExerciseDone       = exercises.Done
)

// ExerciseInput is how the learner answers (exercises.Input).
type ExerciseInput = exercises.Input

// The ways to answer.
const (
	InputLive   = exercises.InputLive
	InputText   = exercises.InputText
	InputChoice = exercises.InputChoice
)

// The follow-along class's backends and what they carry, defined beside the class view
// (runtime/tui/class); runtime/cli and runtime/classroom use them under these names.
type (
	ClassPlace    = class.Place
	ClassExercise = class.Exercise
	ClassHost     = class.Host
	ClassBoard    = class.Board
	ClassStudent  = class.Student
	ClassFollower = class.Follower
	FollowState   = class.FollowState
)

// States of a student on the assigned exercise (class.ExLocked, …).
const (
	ClassExLocked = class.ExLocked
	ClassExOpen   = class.ExOpen
	ClassExTrying = class.ExTrying
	ClassExDone   = class.ExDone
)
