package cli

import (
	"context"
	"time"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/exercises"
	"github.com/kubewalk/kubewalk/runtime/tui"
)

// answerTimeout bounds a typed answer's check (an etcd read at most): the TUI calls Answer on
// its update loop.
const answerTimeout = 2 * time.Second

// exerciseView adapts an exercises.Tracker to what the TUI's exercises view needs.
type exerciseView struct {
	t *exercises.Tracker
}

var _ tui.Exercises = exerciseView{}

// List implements tui.Exercises.
func (v exerciseView) List() []tui.Exercise {
	sts := v.t.List()
	out := make([]tui.Exercise, len(sts))
	for i, st := range sts {
		out[i] = toTUIExercise(st)
	}
	return out
}

// Changed implements tui.Exercises.
func (v exerciseView) Changed() <-chan struct{} { return v.t.Changed() }

// RevealHint implements tui.Exercises.
func (v exerciseView) RevealHint(id string) (tui.Exercise, error) {
	st, err := v.t.RevealHint(id)
	return toTUIExercise(st), err
}

// Answer implements tui.Exercises.
func (v exerciseView) Answer(id, answer string) (tui.Exercise, error) {
	ctx, cancel := context.WithTimeout(context.Background(), answerTimeout)
	defer cancel()
	st, err := v.t.Answer(ctx, id, answer)
	return toTUIExercise(st), err
}

// toTUIExercise converts one exercise's status to the view's terms: only the hints shown.
func toTUIExercise(st exercises.Status) tui.Exercise {
	e := st.Exercise
	out := tui.Exercise{
		ID: e.ID, Lesson: e.Lesson, Phase: e.Phase, LessonTitle: e.LessonTitle,
		Title: e.Title, Goal: e.Goal, Choices: e.Choices,
		Hints:      append([]string(nil), e.Hints[:min(st.Hints, len(e.Hints))]...),
		HintLevels: len(e.Hints),
		Why:        st.Why, LastTry: st.LastTry,
	}
	switch e.Check.Kind {
	case lessons.CheckChoice:
		out.Input = tui.InputChoice
	case lessons.CheckAnswer, lessons.CheckEtcdRevision:
		out.Input = tui.InputText
	default:
		out.Input = tui.InputLive
	}
	switch st.State {
	case exercises.Done:
		out.State = tui.ExerciseDone
	case exercises.Open:
		out.State = tui.ExerciseOpen
	case exercises.NeedsServe:
		out.State = tui.ExerciseNeedsServe
	default:
		out.State = tui.ExerciseLocked
	}
	return out
}
