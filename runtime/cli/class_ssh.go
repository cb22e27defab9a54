package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubewalk/kubewalk/runtime/classroom"
	"github.com/kubewalk/kubewalk/runtime/sandbox"
	"github.com/kubewalk/kubewalk/runtime/sshclass"
)

// newClassCommand groups the workshop commands. `class host` (the follow-along channel of
// runtime/classroom) joins `class ssh` here.
func newClassCommand(stdout, stderr io.Writer, sess *session) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "class",
		Short: "Run a workshop: every student gets a tour with a live server of their own",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newClassSSHCommand(stdout, stderr), newClassHostCommand(stdout, stderr, sess))
	return cmd
}

// classSSHOptions are `class ssh`'s flags.
type classSSHOptions struct {
	Listen         string
	AuthorizedKeys string
	PasswordFile   string
	MaxSessions    int
	Warm           int // -1 until set: then --max-sessions
	LeanSpares     bool
	IdleTimeout    time.Duration
	HostKey        string
	// Follow and Code make every session join a class host (kubewalk join) instead of a tour
	// of its own.
	Follow, Code string
	// Sandbox is --sandbox: auto, require or off.
	Sandbox string
	// RunAs is --run-as: the user every tour runs as; "" is nobody for root, else the class's
	// own user.
	RunAs string
}

func newClassSSHCommand(stdout, stderr io.Writer) *cobra.Command {
	o := &classSSHOptions{}
	stateDir := classStateDir()
	cmd := &cobra.Command{
		Use:   "ssh",
		Short: "Serve the tour over SSH: each session gets its own tour, live server and etcd",
		Long: `class ssh serves the kubewalk tour over SSH, so students need nothing but an ssh client.
Every SSH session runs its own tour — a separate kubewalk process with its own API server and
etcd, listening on this machine's loopback only — and nothing else: no shell, no command, no
file transfer, no port forwarding. Progress is kept per SSH user name.

It listens on 127.0.0.1 unless told otherwise: open it to the classroom network with
--listen 0.0.0.0:2222 (or one interface's address).

Each tour is confined: its kubectl runs only allowed commands and flags; it starts no program
(seccomp); it reads and writes only its own files and reaches only its own server's ports
(Landlock); started as root, the class runs the tours as an unprivileged user (--run-as, nobody
by default). --sandbox auto uses what the kernel offers and says what is missing, require
refuses to start without it, off goes without the kernel's sandbox (docs/classroom.md).`,
		Example: `  kubewalk class ssh --authorized-keys students.pub
  kubewalk class ssh --listen 0.0.0.0:2222 --password-file class-password --max-sessions 40
  # a student:  ssh -p 2222 alice@192.168.1.20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runClassSSH(cmd.Context(), o, stateDir, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Listen, "listen", sshclass.DefaultListen, "address to listen on; 0.0.0.0:2222 opens it to the network")
	fs.StringVar(&o.AuthorizedKeys, "authorized-keys", "", "OpenSSH authorized_keys file with the students' public keys (read again when it changes)")
	fs.StringVar(&o.PasswordFile, "password-file", "", "file (mode 0600) whose first line is the class password")
	fs.IntVar(&o.MaxSessions, "max-sessions", sshclass.DefaultMaxSessions, "most sessions at once; one more is told the class is full")
	fs.IntVar(&o.Warm, "warm", -1, "tours kept started ahead of arrivals, so that a student's starts at once; 0 starts each on arrival; each waiting one holds ~12 MB")
	fs.BoolVar(&o.LeanSpares, "lean-spares", false, "spares wait before kubewalk initialises: ~2 MB each instead of ~12, but each student's tour initialises on arrival (~0.15 CPU-seconds; slower when many arrive at once)")
	fs.Lookup("warm").DefValue = "--max-sessions"
	fs.DurationVar(&o.IdleTimeout, "idle-timeout", time.Hour, "end a session after this long without a key press; 0 never does")
	fs.StringVar(&o.HostKey, "host-key", filepath.Join(stateDir, "ssh_host_ed25519_key"), "SSH host key, generated there (mode 0600) on first use")
	fs.StringVar(&o.Follow, "follow", "", "ADDR of a class host (kubewalk class host): every session follows it, named after its SSH user")
	fs.StringVar(&o.Code, "code", "", "the class host's join code, with --follow")
	fs.StringVar(&o.Sandbox, "sandbox", string(sandbox.Auto), "auto: confine each tour with what the kernel offers (Landlock, seccomp) and say what is missing; require: refuse to start without Landlock with network rules and seccomp; off: without them")
	fs.StringVar(&o.RunAs, "run-as", "", "the unprivileged user every tour runs as (the class must run as root to use another user; never root)")
	fs.Lookup("run-as").DefValue = "nobody when run as root, else yourself"
	return cmd
}

// runAsUser resolves --run-as (a user name or ID): by default nobody when this process is root,
// else nil (the class's own user).
func runAsUser(name string) (*sshclass.RunAs, error) {
	if name == "" {
		if os.Geteuid() != 0 {
			return nil, nil
		}
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		if u2, err2 := user.LookupId(name); err2 == nil {
			u, err = u2, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("--run-as %s: %w", name, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--run-as %s: user ID %q and group ID %q are not numbers", name, u.Uid, u.Gid)
	}
	// sshclass.New refuses root, and another user unless this process is root.
	return &sshclass.RunAs{Name: u.Username, UID: uid, GID: gid}, nil
}

// tourHasFlag reports whether this binary's tour command has the flag: the sessions run this
// binary, and class ssh passes some flags only when it has them.
func tourHasFlag(name string) bool {
	cmd, _, err := NewRootCommand(io.Discard, io.Discard).Find([]string{"tour"})
	return err == nil && cmd.Flags().Lookup(name) != nil
}

// classStateDir is where `class ssh` keeps its host key, the students' progress and the logs
// of failed sessions: $XDG_STATE_HOME/kubewalk/class-ssh, else ~/.local/state/kubewalk/class-ssh;
// "" when neither is known.
func classStateDir() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "kubewalk", "class-ssh")
}

// runClassSSH serves until SIGINT, SIGTERM or SIGHUP, then ends every session and waits for
// their cleanup.
func runClassSSH(ctx context.Context, o *classSSHOptions, stateDir string, stdout, stderr io.Writer) error {
	if stateDir == "" {
		return fmt.Errorf("class ssh: no state directory for the host key and progress: set XDG_STATE_HOME or HOME")
	}
	if o.MaxSessions < 1 {
		return fmt.Errorf("--max-sessions %d: must be at least 1", o.MaxSessions)
	}
	if o.Warm == -1 {
		o.Warm = o.MaxSessions
	}
	if o.Warm < 0 || o.Warm > o.MaxSessions {
		return fmt.Errorf("--warm %d: must be between 0 (start each tour on arrival) and --max-sessions (%d)", o.Warm, o.MaxSessions)
	}
	mode, err := sandbox.ParseMode(o.Sandbox)
	if err != nil {
		return fmt.Errorf("--sandbox %w", err)
	}
	runAs, err := runAsUser(o.RunAs)
	if err != nil {
		return err
	}
	var follow *sshclass.Follow
	if o.Follow != "" || o.Code != "" {
		if o.Follow == "" || o.Code == "" {
			return fmt.Errorf("--follow ADDR and --code CODE go together: both are on the class host's join line")
		}
		if err := classroom.CheckJoinCode(o.Code); err != nil {
			return fmt.Errorf("--code: %w", err)
		}
		follow = &sshclass.Follow{Addr: o.Follow, Code: o.Code}
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// The class log is its output, often piped (`| tee class.log`): Ctrl-C ends the pipe's
	// reader too, and the next log line would kill the class with SIGPIPE halfway through
	// ending the sessions, leaving spares' directories behind. A write that fails is dropped.
	signal.Ignore(syscall.SIGPIPE)
	defer signal.Reset(syscall.SIGPIPE)
	srv, err := sshclass.New(sshclass.Config{
		Listen:         o.Listen,
		HostKey:        o.HostKey,
		AuthorizedKeys: o.AuthorizedKeys,
		PasswordFile:   o.PasswordFile,
		MaxSessions:    o.MaxSessions,
		Warm:           o.Warm,
		LeanSpares:     o.LeanSpares,
		IdleTimeout:    o.IdleTimeout,
		StateDir:       stateDir,
		Follow:         follow,
		Log:            stdout,
		RunAs:          runAs,
		Sandbox:        mode,
		TourHasFlag:    tourHasFlag,
	})
	if err != nil {
		return err
	}
	if info := srv.Sandbox(); info.Missing != "" && !sameFile(stdout, stderr) {
		fmt.Fprintln(stderr, "kubewalk: "+fmt.Sprintf(msgs("").CLISandboxMissing, info.Missing))
	}
	printClassSSH(stdout, o, srv, stateDir)
	served := make(chan error, 1)
	go func() { served <- srv.Serve() }()
	select {
	case <-ctx.Done():
		fmt.Fprintln(stdout, "kubewalk class ssh: stopping; ending every session")
	case err := <-served:
		closeCtx, cancel := context.WithTimeout(context.Background(), classSSHCloseBound)
		defer cancel()
		_ = srv.Close(closeCtx)
		return err
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), classSSHCloseBound)
	defer cancel()
	if err := srv.Close(closeCtx); err != nil {
		return err
	}
	<-served
	fmt.Fprintln(stdout, "kubewalk class ssh: stopped; every session's server and files are gone")
	return nil
}

// classSSHCloseBound bounds the class's stop: every tour's shutdown (sshclass.DefaultStopBound
// before SIGKILL) and its student's goodbye screen (sshclass.GoodbyeWait), with room to spare.
const classSSHCloseBound = sshclass.DefaultStopBound + sshclass.GoodbyeWait + 7*time.Second

// printClassSSH tells the instructor how students connect.
func printClassSSH(w io.Writer, o *classSSHOptions, srv *sshclass.Server, stateDir string) {
	addr := srv.Addr().(*net.TCPAddr)
	auth := "students' keys in " + o.AuthorizedKeys
	if o.PasswordFile != "" {
		auth = "the class password in " + o.PasswordFile
	}
	host := addr.IP.String()
	if addr.IP.IsUnspecified() {
		host = "THIS-MACHINE"
	}
	idle := "never closed for idleness"
	if o.IdleTimeout > 0 {
		idle = fmt.Sprintf("closed after %s without a key press", o.IdleTimeout)
	}
	fmt.Fprintf(w, "kubewalk class ssh: listening on %s; who may connect: %s\n", addr, auth)
	fmt.Fprintf(w, "  students    ssh -p %d NAME@%s   (NAME keeps their progress)\n", addr.Port, host)
	fmt.Fprintf(w, "  host key    %s   (%s)\n", srv.HostKeyFingerprint(), o.HostKey)
	fmt.Fprintf(w, "  sessions    at most %d, %s; progress under %s\n", o.MaxSessions, idle, filepath.Join(stateDir, "users"))
	if o.Warm > 0 {
		lean := ""
		if o.LeanSpares {
			lean = "; lean: each initialises on arrival"
		}
		fmt.Fprintf(w, "  warm        %d tours started ahead of arrivals, one at a time (--warm 0 starts each on arrival)%s\n", o.Warm, lean)
	}
	if o.Follow != "" {
		fmt.Fprintf(w, "  follow      every session joins the class at %s (kubewalk join), named after its SSH user\n", o.Follow)
	}
	if addr.IP.IsLoopback() {
		fmt.Fprintf(w, "  only this machine can connect; open it to the classroom with --listen 0.0.0.0:%d\n", addr.Port)
	}
	for _, line := range sandboxLines(srv.Sandbox(), os.Geteuid() == 0) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "Ctrl-C stops the class: every session is ended and its server and files removed.")
}

// sandboxLines are the banner's lines on how the tours are confined: which layers are on,
// what the kernel lacks in auto mode, --sandbox off, the user the tours run as.
func sandboxLines(info sshclass.SandboxInfo, root bool) []string {
	var on []string
	if info.Layers.AllowList {
		on = append(on, "kubectl guard")
	}
	if info.Seccomp {
		on = append(on, "no programs (seccomp)")
	} else if info.Layers.NoExec {
		on = append(on, "no editor or exec plugin")
	}
	if info.Landlock {
		what := "own files"
		if info.Support.Net() {
			what += " and ports"
		}
		on = append(on, what+fmt.Sprintf(" (Landlock ABI %d)", info.Support.LandlockABI))
	}
	lines := []string{"  sandbox     " + strings.Join(on, ", ")}
	switch {
	case info.Mode == sandbox.Off:
		lines = append(lines, "              --sandbox off: no Landlock, no seccomp; a student's tour is held by the kubectl allow-list and the user it runs as only")
	case info.Missing != "":
		lines = append(lines, "              --sandbox auto: this kernel has no "+info.Missing+"; the tours run without it (--sandbox require refuses to start then)")
	}
	switch {
	case info.RunAs != "":
		lines = append(lines, fmt.Sprintf("  run as      every tour runs as %s (--run-as), with no supplementary group", info.RunAs))
	case root:
		lines = append(lines, "  run as      root: every tour runs as root")
	}
	if info.ModCache != "" {
		lines = append(lines, "  source      the tours read the Go module cache "+info.ModCache+" (u, s)")
	} else {
		lines = append(lines, "  source      no Go module cache found ($GOMODCACHE, go env GOMODCACHE, ~/go/pkg/mod): u names the modules to download")
	}
	return lines
}
