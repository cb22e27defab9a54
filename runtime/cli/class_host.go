package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/lessons"
	"github.com/kubewalk/kubewalk/runtime/classroom"
	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/tui"
	"github.com/kubewalk/kubewalk/server"
)

// classHostOptions are `class host`'s flags: the tour's, plus where the class listens and its
// title.
type classHostOptions struct {
	tourOptions
	Listen string
	Title  string
}

func newClassHostCommand(stdout, stderr io.Writer, sess *session) *cobra.Command {
	o := &classHostOptions{}
	cmd := &cobra.Command{
		Use:   "host",
		Short: "Lead a class: your tour, and students' tours that follow it (kubewalk join)",
		Long: `class host runs your tour as usual and a class endpoint beside it. Each student runs
"kubewalk join ADDR --code CODE" (the line stays on your screen): they get a tour with a
live server of their own that runs forward to every checkpoint you reach, serves when
yours serves, and follows you along the after-serve lessons. :board shows the class
(where each student is, exercises done, idle time, who is stuck); :msg TEXT sends a line
to every student; :assign ID assigns an exercise to the class. When you quit, students
are told the class has ended. docs/runbook.md is the instructor's runbook.

It listens on 127.0.0.1 unless told otherwise: open it to the classroom network with
--listen 0.0.0.0:7443 (or one interface's address). The class's certificate and code are
kept under the state directory, so a restarted host keeps the same join line.`,
		Example: `  kubewalk class host --listen 0.0.0.0:7443 --name "apiserver walk"
  # a student:  kubewalk join 192.168.1.20:7443 --code 4F7K-Q2-8K3M-T9QX-2HVD-R4NA`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClassHost(cmd.Context(), o, stdout, stderr, sess)
		},
	}
	o.tourOptions.addFlags(cmd)
	fs := cmd.Flags()
	fs.StringVar(&o.Listen, "listen", classroom.DefaultListen, "address the class listens on; 0.0.0.0:7443 opens it to the network")
	fs.StringVar(&o.Title, "name", "kubewalk", "the class's title, shown on students' screens")
	return cmd
}

// classHostIdentityPath is where the class's certificate and code are kept:
// $XDG_STATE_HOME/kubewalk/class-host/identity.pem, else under ~/.local/state.
func classHostIdentityPath() string {
	dir := classStateDir() // …/kubewalk/class-ssh
	if dir == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(dir), "class-host", "identity.pem")
}

// runClassHost starts the class endpoint once the flags are checked, then the tour; the
// endpoint stops (students are told) when the tour ends.
func runClassHost(ctx context.Context, o *classHostOptions, stdout, stderr io.Writer, sess *session) error {
	path := classHostIdentityPath()
	if path == "" {
		return fmt.Errorf("class host: no state directory for the class identity: set XDG_STATE_HOME or HOME")
	}
	o.class = &classSetup{start: func(ctx context.Context, log, _ io.Writer, lang string, ls []lessons.Lesson) (classParts, error) {
		id, _, err := classroom.LoadOrCreateIdentity(path)
		if err != nil {
			return classParts{}, fmt.Errorf("class host: identity: %w", err)
		}
		h, err := classroom.StartHost(ctx, classroom.HostConfig{
			Listen: o.Listen, Title: o.Title, AppVersion: appVersion(), Identity: id,
			Logf: func(format string, args ...any) { fmt.Fprintf(log, "kubewalk: class: "+format+"\n", args...) },
		})
		if err != nil {
			return classParts{}, err // "class host: listen on ADDR (pass another address with --listen): …"
		}
		fmt.Fprintf(log, "kubewalk: class: %s\n", h.JoinLine())
		rootWarning(os.Geteuid(), log, i18n.For(lang), "host") // the class log, too
		return classParts{host: classHostView{h: h, course: newCoursePlaces(ls)}, stop: h.Stop}, nil
	}}
	return runTour(ctx, &o.tourOptions, stdout, stderr, sess)
}

// appVersion is this binary's module version ("devel" for a local build).
func appVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// classHostView adapts *classroom.Host to the screen.
type classHostView struct {
	h      *classroom.Host
	course coursePlaces
}

func (v classHostView) JoinLine() string         { return v.h.JoinLine() }
func (v classHostView) LoopbackOnly() bool       { return v.h.LoopbackOnly() }
func (v classHostView) Changed() <-chan struct{} { return v.h.Changed() }
func (v classHostView) Broadcast(text string) error {
	return v.h.Broadcast(text)
}

// Assign assigns exercise id to the class ("" takes it back).
func (v classHostView) Assign(id string) error {
	_, err := v.h.Assign(id)
	return err
}

// Reached publishes a place with its ordinal along the course (see coursePlaces): the same
// across a restart of the host, and growing along the tour.
func (v classHostView) Reached(p tui.ClassPlace) {
	if cp, ok := v.course.checkpoint(p); ok {
		v.h.Publish(cp)
	}
}

// Board converts the host's board for the screen.
func (v classHostView) Board() tui.ClassBoard {
	b := v.h.Board()
	out := tui.ClassBoard{Title: b.Title, Place: placeOf(b.Checkpoint), Message: b.Message.Text, Assigned: b.Assigned.ID}
	for _, s := range b.Students {
		out.Students = append(out.Students, tui.ClassStudent{
			Name: s.Name, Place: placeOf(s.Checkpoint), Done: s.Done, Idle: s.Idle,
			Exercise: tui.ClassExercise{ID: s.Exercise.ID, State: s.Exercise.State, Hints: s.Exercise.Hints},
			Stuck:    s.Stuck, Following: s.Following, Connected: s.Connected,
		})
	}
	return out
}

// coursePlaces numbers the places of the course a class follows, the same way on every screen
// of the class: the startup checkpoints in server.Checkpoints()'s order (1…N), the serving
// server (N+1), then the after-serve track's steps in the lessons' order (N+2…), so that the
// ordinal only grows along the course. A step is named "lesson/step", as the screens name it.
type coursePlaces struct {
	steps map[string]int // track step → its position in the track, from 0
}

// newCoursePlaces numbers the after-serve track of ls.
func newCoursePlaces(ls []lessons.Lesson) coursePlaces {
	c := coursePlaces{steps: map[string]int{}}
	for _, l := range ls {
		if l.Track != lessons.TrackAfterServe {
			continue
		}
		for _, st := range l.Steps {
			if st.Checkpoint == "" {
				c.steps[l.ID+"/"+st.ID] = len(c.steps)
			}
		}
	}
	return c
}

// checkpoint is the class's form of a place; ok is false for a place the course lacks (an
// unknown checkpoint or track step).
func (c coursePlaces) checkpoint(p tui.ClassPlace) (classroom.Checkpoint, bool) {
	if !p.Served {
		return classCheckpoint(p.Checkpoint)
	}
	all := server.Checkpoints()
	last := all[len(all)-1]
	cp := classroom.Checkpoint{Phase: string(last.Phase), ID: last.ID(), Ordinal: len(all) + 1, Served: true}
	if p.Step != "" {
		i, ok := c.steps[p.Step]
		if !ok {
			return classroom.Checkpoint{}, false
		}
		cp.Step, cp.Ordinal = p.Step, len(all)+2+i
	}
	return cp, true
}

// placeOf is the screen's form of a class checkpoint.
func placeOf(cp classroom.Checkpoint) tui.ClassPlace {
	return tui.ClassPlace{Checkpoint: cp.ID, Served: cp.Served, Step: cp.Step}
}

// classCheckpoint is the class's form of a checkpoint ID: its phase, ID and ordinal (its
// position in server.Checkpoints(), from 1).
func classCheckpoint(id string) (classroom.Checkpoint, bool) {
	for i, c := range server.Checkpoints() {
		if c.ID() == id {
			return classroom.Checkpoint{Phase: string(c.Phase), ID: id, Ordinal: i + 1}, true
		}
	}
	return classroom.Checkpoint{}, false
}
