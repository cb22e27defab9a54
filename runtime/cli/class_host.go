package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/spf13/cobra"

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
live server of their own that runs forward to every checkpoint you reach. :board shows
the class (checkpoint, exercises done, idle time, who is stuck); :msg TEXT sends a line
to every student.

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
	o.class = &classSetup{start: func(ctx context.Context, log, _ io.Writer, lang string) (classParts, error) {
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
		return classParts{host: classHostView{h}, stop: h.Stop}, nil
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
type classHostView struct{ h *classroom.Host }

func (v classHostView) JoinLine() string         { return v.h.JoinLine() }
func (v classHostView) LoopbackOnly() bool       { return v.h.LoopbackOnly() }
func (v classHostView) Changed() <-chan struct{} { return v.h.Changed() }
func (v classHostView) Broadcast(text string) error {
	return v.h.Broadcast(text)
}

// Reached publishes a checkpoint with its position in server.Checkpoints() as the ordinal
// (from 1): the same across a restart of the host, and growing along the tour.
func (v classHostView) Reached(id string) {
	if cp, ok := classCheckpoint(id); ok {
		v.h.Publish(cp)
	}
}

// Board converts the host's board for the screen.
func (v classHostView) Board() tui.ClassBoard {
	b := v.h.Board()
	out := tui.ClassBoard{Title: b.Title, Checkpoint: b.Checkpoint.ID, Message: b.Message.Text}
	for _, s := range b.Students {
		out.Students = append(out.Students, tui.ClassStudent{
			Name: s.Name, Checkpoint: s.Checkpoint.ID, Done: s.Done, Idle: s.Idle,
			Stuck: s.Stuck, Following: s.Following, Connected: s.Connected,
		})
	}
	return out
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
