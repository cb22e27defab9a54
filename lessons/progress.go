package lessons

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// progressVersion is the progress file format this package writes and reads.
const progressVersion = 1

// ErrCorruptProgress marks a progress file that exists but cannot be read as progress.
var ErrCorruptProgress = errors.New("corrupt progress file")

// Progress is how far a learner got in each lesson.
type Progress struct {
	// Version is the file format version.
	Version int `json:"version"`
	// Lessons maps a lesson id to the furthest step reached in it.
	Lessons map[string]LessonProgress `json:"lessons"`
	// WelcomeSeen records that the learner has dismissed the first-run welcome screen. Files
	// written before it existed lack it: the welcome shows once more.
	WelcomeSeen bool `json:"welcomeSeen,omitempty"`
	// Exercises maps an exercise id to what the learner did with it. Files written before
	// exercises existed lack it: no exercise is done.
	Exercises map[string]ExerciseProgress `json:"exercises,omitempty"`
}

// ExerciseProgress is one exercise's record.
type ExerciseProgress struct {
	// Done is set once the exercise's check passed; Why says why it passed.
	Done bool   `json:"done,omitempty"`
	Why  string `json:"why,omitempty"`
	// Hints is how many hint levels the learner has had shown.
	Hints int `json:"hints,omitempty"`
	// Updated is when the record last changed.
	Updated time.Time `json:"updated"`
}

// LessonProgress is the furthest step reached in one lesson.
type LessonProgress struct {
	// Step is the id of the furthest step reached.
	Step string `json:"step"`
	// Updated is when Step was last recorded.
	Updated time.Time `json:"updated"`
}

// ProgressPath returns where progress is kept: $XDG_STATE_HOME/kubewalk/progress.json, or
// ~/.local/state/kubewalk/progress.json when XDG_STATE_HOME is unset or not absolute (as the
// XDG spec requires). getenv is os.Getenv in production.
func ProgressPath(getenv func(string) string) (string, error) {
	if dir := getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "kubewalk", "progress.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return "", fmt.Errorf("progress file: set XDG_STATE_HOME or HOME: %w", err)
		}
	}
	return filepath.Join(home, ".local", "state", "kubewalk", "progress.json"), nil
}

// LoadProgress reads the progress file at path. A missing file is no progress yet. A file that
// cannot be parsed gives empty progress and an error wrapping ErrCorruptProgress that names the
// file; the caller should tell the user before anything saves over it.
func LoadProgress(path string) (*Progress, error) {
	p := &Progress{Version: progressVersion, Lessons: map[string]LessonProgress{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return p, fmt.Errorf("read progress file %s: %w", path, err)
	}
	var read Progress
	if err := json.Unmarshal(data, &read); err != nil {
		return p, fmt.Errorf("progress file %s: %w: %w (move it away or delete it to start over)", path, ErrCorruptProgress, err)
	}
	if read.Version < 0 || read.Version > progressVersion { // 0: written by hand without a version
		return p, fmt.Errorf("progress file %s: %w: format version %d, this kubewalk reads %d (move it away or delete it to start over)",
			path, ErrCorruptProgress, read.Version, progressVersion)
	}
	if read.Lessons != nil {
		p.Lessons = read.Lessons
	}
	p.WelcomeSeen = read.WelcomeSeen
	p.Exercises = read.Exercises
	return p, nil
}

// Save writes the progress to path atomically (a temporary file in the same directory, then a
// rename), creating the directory; the file is readable by its owner only.
func (p *Progress) Save(path string) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("save progress: %w", err)
	}
	out := Progress{Version: progressVersion, Lessons: p.Lessons, WelcomeSeen: p.WelcomeSeen, Exercises: p.Exercises}
	if out.Lessons == nil {
		out.Lessons = map[string]LessonProgress{}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".progress-*.json")
	if err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("save progress %s: %w", path, err)
	}
	return nil
}

// Record notes that step stepID of l was reached at now. Progress only moves forward: going
// back to an earlier step keeps the furthest one. It reports whether anything changed; an
// unknown step id changes nothing.
func (p *Progress) Record(l Lesson, stepID string, now time.Time) bool {
	i := stepIndex(l, stepID)
	if i < 0 || i+1 <= p.Reached(l) {
		return false
	}
	if p.Lessons == nil {
		p.Lessons = map[string]LessonProgress{}
	}
	p.Lessons[l.ID] = LessonProgress{Step: stepID, Updated: now}
	return true
}

// Reached returns how many steps of l have been reached: the furthest step's position, 1-based,
// or 0 when none has been (or the recorded step no longer exists).
func (p *Progress) Reached(l Lesson) int {
	if p == nil {
		return 0
	}
	lp, ok := p.Lessons[l.ID]
	if !ok {
		return 0
	}
	return stepIndex(l, lp.Step) + 1
}

// Done reports whether the last step of l has been reached.
func (p *Progress) Done(l Lesson) bool {
	return len(l.Steps) > 0 && p.Reached(l) == len(l.Steps)
}

// Resume returns the id of the furthest step reached in l, or the first step's, or "".
func (p *Progress) Resume(l Lesson) string {
	if n := p.Reached(l); n > 0 {
		return l.Steps[n-1].ID
	}
	if len(l.Steps) > 0 {
		return l.Steps[0].ID
	}
	return ""
}

// ExerciseDone records that exercise id passed, with why. It reports whether anything
// changed: an exercise already done stays done with its first why.
func (p *Progress) ExerciseDone(id, why string, now time.Time) bool {
	e := p.Exercises[id]
	if e.Done {
		return false
	}
	e.Done, e.Why, e.Updated = true, why, now
	p.setExercise(id, e)
	return true
}

// ExerciseHints records that the first n hint levels of exercise id were shown; the count
// never goes down. It reports whether anything changed.
func (p *Progress) ExerciseHints(id string, n int, now time.Time) bool {
	e := p.Exercises[id]
	if n <= e.Hints {
		return false
	}
	e.Hints, e.Updated = n, now
	p.setExercise(id, e)
	return true
}

// ExercisesDone counts the exercises among ids that are done.
func (p *Progress) ExercisesDone(ids []string) int {
	if p == nil {
		return 0
	}
	n := 0
	for _, id := range ids {
		if p.Exercises[id].Done {
			n++
		}
	}
	return n
}

// ResetExercises forgets every exercise record.
func (p *Progress) ResetExercises() { p.Exercises = nil }

func (p *Progress) setExercise(id string, e ExerciseProgress) {
	if p.Exercises == nil {
		p.Exercises = map[string]ExerciseProgress{}
	}
	p.Exercises[id] = e
}

// stepIndex returns the position of step id in l, or -1.
func stepIndex(l Lesson, id string) int {
	for i, s := range l.Steps {
		if s.ID == id {
			return i
		}
	}
	return -1
}
