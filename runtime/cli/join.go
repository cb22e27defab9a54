package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/classroom"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/plain"
	"github.com/kubewalk/kubewalk/runtime/tui"
)

// joinOptions are `join`'s flags: the tour's, plus the class's code and the student's name.
type joinOptions struct {
	tourOptions
	Code string
	Name string
}

// joinWait bounds how long join waits for the class before it starts the student's tour
// anyway (it keeps trying in the background). A refusal (wrong code, another version, a
// certificate that does not match) comes within it and stops join before anything starts.
const joinWait = 10 * time.Second

func newJoinCommand(stdout, stderr io.Writer, sess *session) *cobra.Command {
	o := &joinOptions{}
	cmd := &cobra.Command{
		Use:   "join ADDR --code CODE",
		Short: "Follow an instructor's class (kubewalk class host) with a tour and server of your own",
		Long: `join runs your own tour, with its own live server, and follows the instructor: whenever
the instructor reaches a checkpoint, your server runs forward to it (never back; earlier steps
stay there to review); when the instructor's server serves, yours serves too, and then your
screen follows the instructor along the after-serve lessons. D detaches (go at your own pace)
and re-syncs; ! raises and lowers your "stuck" flag on the instructor's board; the
instructor's messages, and the exercise the instructor assigns (A opens it), show under the
header.

If the connection drops, your tour goes on and join reconnects by itself.`,
		Example: `  kubewalk join 192.168.1.20:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA --name ana`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runJoin(cmd.Context(), args[0], o, stdout, stderr, sess)
		},
	}
	o.tourOptions.addFlags(cmd)
	fs := cmd.Flags()
	fs.StringVar(&o.Code, "code", "", "the join code on the instructor's screen (required)")
	fs.StringVar(&o.Name, "name", "", "your name on the instructor's board (default: your user name)")
	_ = cmd.MarkFlagRequired("code")
	return cmd
}

// runJoin joins the class, waits (bounded) for its welcome, then runs the tour following it.
func runJoin(ctx context.Context, addr string, o *joinOptions, stdout, stderr io.Writer, sess *session) error {
	name := o.Name
	if name == "" {
		name = os.Getenv("USER")
	}
	if name == "" {
		name, _ = os.Hostname()
	}
	o.class = &classSetup{follows: true, start: func(ctx context.Context, log, out io.Writer, lang string, ls []lessons.Lesson) (classParts, error) {
		tr := i18n.For(lang)
		s, err := classroom.Join(ctx, classroom.StudentConfig{
			Addr: addr, Code: o.Code, Name: name, AppVersion: appVersion(),
			Logf: func(format string, args ...any) { fmt.Fprintf(log, "kubewalk: class: "+format+"\n", args...) },
		})
		if err != nil {
			return classParts{}, joinRefused(tr, addr, err)
		}
		fmt.Fprintf(out, tr.CLIJoinWaiting+"\n", addr)
		t := time.NewTimer(joinWait)
		defer t.Stop()
		select {
		case <-s.Ready():
		case <-s.Done():
			s.Stop()
			return classParts{}, joinRefused(tr, addr, s.Err())
		case <-ctx.Done():
			s.Stop()
			return classParts{}, errInterrupted
		case <-t.C:
			why := s.State().LastError
			if why == nil {
				why = errors.New("no answer")
			}
			fmt.Fprintf(out, tr.CLIJoinNotYet+"\n", addr, why)
		}
		course := newCoursePlaces(ls)
		return classParts{follow: studentView{s, course}, plainFollow: plainStudent{s, course}, stop: s.Stop}, nil
	}}
	return runTour(ctx, &o.tourOptions, stdout, stderr, sess)
}

// joinRefused is the error join ends with when the class refused it: one sentence that says
// what to do for a wrong code, else the library's explanation. It wraps err.
func joinRefused(tr *i18n.Strings, addr string, err error) error {
	if errors.Is(err, classroom.ErrWrongCode) {
		return &refusal{text: fmt.Sprintf(tr.CLIJoinWrongCode, addr), err: err}
	}
	return &refusal{text: fmt.Sprintf(tr.CLIJoinRefused, addr, err), err: err}
}

// refusal is an error with words of its own for an error it wraps.
type refusal struct {
	text string
	err  error
}

func (r *refusal) Error() string { return r.text }
func (r *refusal) Unwrap() error { return r.err }

// studentView adapts *classroom.Student to the screen.
type studentView struct {
	s      *classroom.Student
	course coursePlaces
}

func (v studentView) Changed() <-chan struct{} { return v.s.Changed() }
func (v studentView) Detach()                  { v.s.Detach() }
func (v studentView) Resync()                  { v.s.Resync() }
func (v studentView) SetStuck(stuck bool)      { v.s.SetStuck(stuck) }

// Report sends the student's place (with its ordinal) and exercises done.
func (v studentView) Report(p tui.ClassPlace, done int) {
	cp, _ := v.course.checkpoint(p)
	v.s.Report(cp, done)
}

// ReportExercise sends the student's state on the assigned exercise.
func (v studentView) ReportExercise(ex tui.ClassExercise) {
	v.s.ReportExercise(classroom.ExerciseProgress{ID: ex.ID, State: ex.State, Hints: ex.Hints})
}

// State converts the student's state for the screen.
func (v studentView) State() tui.FollowState {
	st := v.s.State()
	out := tui.FollowState{
		Title: st.Title, Name: st.Name, Connected: st.Connected, Instructor: placeOf(st.Instructor),
		Following: st.Following, Stuck: st.Stuck, Assigned: st.Assigned.ID, AssignedSeq: st.Assigned.Seq,
		Ended: st.Ended && !st.Connected,
	}
	if n := len(st.Messages); n > 0 {
		out.Message, out.MessageSeq = st.Messages[n-1].Text, st.Messages[n-1].Seq
	}
	if st.LastError != nil && !st.Connected {
		out.Problem = oneLine(st.LastError)
	}
	if st.Err != nil {
		out.Fatal = oneLine(st.Err)
	}
	return out
}

// plainStudent adapts *classroom.Student to the plain transcript.
type plainStudent struct {
	s      *classroom.Student
	course coursePlaces
}

func (v plainStudent) Changed() <-chan struct{} { return v.s.Changed() }

// Report sends the student's place (with its ordinal) and exercises done.
func (v plainStudent) Report(p plain.Place, done int) {
	studentView(v).Report(tui.ClassPlace(p), done)
}

// State converts the student's state for the transcript.
func (v plainStudent) State() plain.ClassState {
	st := v.s.State()
	out := plain.ClassState{Title: st.Title, Connected: st.Connected, Ended: st.Ended && !st.Connected,
		Instructor: plain.Place(placeOf(st.Instructor)), Assigned: st.Assigned.ID}
	if !st.Assigned.IsZero() {
		out.AssignedKey = fmt.Sprintf("%s/%d", st.Assigned.Instance, st.Assigned.Seq)
	}
	for _, m := range st.Messages {
		out.Messages = append(out.Messages, plain.ClassMessage{Key: fmt.Sprintf("%s/%d", m.Instance, m.Seq), Text: m.Text})
	}
	if st.LastError != nil && !st.Connected {
		out.Problem = oneLine(st.LastError)
	}
	if st.Err != nil {
		out.Fatal = oneLine(st.Err)
	}
	return out
}
