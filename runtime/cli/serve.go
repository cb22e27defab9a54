package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/logs"
	"github.com/kubewalk/kubewalk/server"
)

// serveOptions are the serve flags, named like kube-apiserver's where the meaning is the same.
type serveOptions struct {
	SecurePort  int
	BindAddress string
	EtcdServers []string
	DataDir     string
	Kubeconfig  string
	Verbosity   int
	LogFile     string
	traceOptions

	// EtcdClientPort and EtcdPeerPort (hidden --etcd-client-port, --etcd-peer-port) are the
	// embedded etcd's ports; class ssh chooses them so that a student's sandbox allows exactly
	// the ports its tour listens on.
	EtcdClientPort, EtcdPeerPort int
}

func (o *serveOptions) addFlags(fs *pflag.FlagSet) {
	fs.IntVar(&o.SecurePort, "secure-port", 0, "HTTPS port to serve on; 0 picks a free port")
	fs.StringVar(&o.BindAddress, "bind-address", "127.0.0.1", "IP address to listen on")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", nil, "external etcd client URLs (comma separated); empty starts embedded etcd")
	fs.StringVar(&o.DataDir, "data-dir", "", "keep embedded etcd's data in this directory (default: a temp dir removed on exit)")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", server.DefaultKubeconfigPath(), "where to write the kubeconfig; kubewalk never overwrites a file it did not write and removes its own on exit (if another run holds the default, this run uses its temp dir)")
	fs.IntVarP(&o.Verbosity, "v", "v", 0, "log verbosity; above 0 also shows logs on stderr")
	fs.StringVar(&o.LogFile, "log-file", logs.DefaultPath(), "file that receives klog, etcd and apiserver logs")
	fs.IntVar(&o.EtcdClientPort, "etcd-client-port", 0, "loopback port of the embedded etcd's client listener; 0 picks a free port")
	fs.IntVar(&o.EtcdPeerPort, "etcd-peer-port", 0, "loopback port of the embedded etcd's peer listener; 0 picks a free port")
	_ = fs.MarkHidden("etcd-client-port")
	_ = fs.MarkHidden("etcd-peer-port")
}

func (o *serveOptions) serverOptions(logOut io.Writer) server.Options {
	return server.Options{
		BindAddress: o.BindAddress,
		SecurePort:  o.SecurePort,
		EtcdServers: o.EtcdServers,
		DataDir:     o.DataDir,
		Kubeconfig:  o.Kubeconfig,
		LogOutput:   logOut,

		EtcdClientPort: o.EtcdClientPort,
		EtcdPeerPort:   o.EtcdPeerPort,

		RequestTimeout: o.RequestTimeout,
	}
}

func newServeCommand(stdout, stderr io.Writer, sess *session) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run all seven phases without pausing and serve until Ctrl-C",
		Example: `  kubewalk serve
  kubewalk serve --secure-port 6443 --kubeconfig ./kubeconfig
  kubewalk serve --etcd-servers http://127.0.0.1:2379`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runServe(cmd.Context(), o, stdout, stderr, sess)
		},
	}
	o.addFlags(cmd.Flags())
	o.addServeTraceFlags(cmd.Flags())
	return cmd
}

// runServe starts the server through all phases, prints how to reach it and serves until the
// context ends (Ctrl-C, SIGTERM, SIGHUP) or the server stops on its own. The flags and the log
// file are checked before anything is printed or started.
func runServe(ctx context.Context, o *serveOptions, stdout, stderr io.Writer, sess *session) error {
	opts := o.serverOptions(nil)
	if err := opts.Validate(); err != nil {
		return fmt.Errorf(msgs("").ErrFlags, err)
	}
	tlog, stdout, err := o.openTraceLog(stdout, stderr)
	if err != nil {
		return err
	}
	sink, err := logs.Open(o.LogFile, o.Verbosity, o.Verbosity == 0)
	if err != nil {
		return err
	}
	defer sink.Close()
	sess.logFile(sink.Path)
	if ctx.Err() != nil {
		return errInterrupted
	}
	var logOut io.Writer = sink.File
	if o.Verbosity > 0 {
		logOut = io.MultiWriter(sink.File, stderr)
	}
	sopts := o.serverOptions(logOut)
	sopts.Track = sess.owns
	sopts.KubeconfigWait = kubeconfigWaitNotice(sink.Stderr, msgs(""))
	s, err := server.NewContext(ctx, tlog.apply(sopts))
	if err != nil {
		tlog.stop()
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	defer s.Close()
	tlog.start()
	defer tlog.stop()

	began := time.Now()
	if err := s.Start(ctx); err != nil {
		closeErr := s.Close()
		if ctx.Err() != nil {
			return errInterrupted
		}
		if closeErr != nil {
			return fmt.Errorf(msgs("").ErrAlsoShutdown, err, closeErr)
		}
		return err
	}
	printReady(stdout, s, time.Since(began), sink.Path)

	select {
	case <-ctx.Done():
		// Writes to a closed stdout (kubewalk serve | head) fail with EPIPE and are ignored: see
		// runtime/cli/earlysignal.
		fmt.Fprintln(stdout, "\nkubewalk: "+msgs("").CLIShuttingDown)
		s.Stopping()
		e2eHooks.shutdown()
	case <-s.Exited():
		fmt.Fprintln(stdout, "kubewalk: "+msgs("").CLIStoppedOwn)
	}
	if err := s.Close(); err != nil {
		return fmt.Errorf(msgs("").ErrShutdown, err)
	}
	if err := tlog.stop(); err != nil {
		return err
	}
	if err := s.ExitErr(); err != nil && ctx.Err() == nil {
		return fmt.Errorf(msgs("").ErrServerStop, err)
	}
	fmt.Fprintln(stdout, "kubewalk: "+msgs("").CLIStoppedClean)
	return nil
}

// printReady tells the learner where the server is and what to try.
func printReady(w io.Writer, s *server.Server, took time.Duration, logPath string) {
	kc := s.Kubeconfig()
	tr := msgs("")
	var phases []string
	for _, t := range s.Timings() {
		phases = append(phases, fmt.Sprintf("%s %s", t.Phase, t.Duration.Round(time.Millisecond)))
	}
	// The labels line up in terminal cells: Chinese labels are two cells a character.
	labels := []string{tr.CLIPhases, tr.CLIKubeconfig, tr.CLIContexts, tr.CLILogs}
	labelW := 0
	for _, l := range labels {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	label := func(l string) string { return "  " + i18n.PadRight(l, labelW) + " " }
	fmt.Fprintf(w, "kubewalk: "+tr.CLIReady+"\n", s.Address(), took.Round(time.Millisecond))
	fmt.Fprintln(w, label(tr.CLIPhases)+strings.Join(phases, " → "))
	fmt.Fprintln(w, label(tr.CLIKubeconfig)+kc)
	fmt.Fprintln(w, label(tr.CLIContexts)+tr.CLIContextsValue)
	fmt.Fprintln(w, label(tr.CLILogs)+logPath)
	fmt.Fprintln(w)
	fmt.Fprintln(w, tr.CLITry)
	fmt.Fprintf(w, "  export KUBECONFIG=%s\n", kc)
	fmt.Fprintf(w, "  kubectl get ns\n")
	fmt.Fprintf(w, "  kubectl create configmap demo --from-literal=hello=world\n")
	fmt.Fprintf(w, "  kubectl --context alice auth can-i --list\n")
	fmt.Fprintf(w, "  kubectl --context bob get configmaps   %s\n\n", tr.CLIForbidden)
	fmt.Fprintln(w, tr.CLIStopHint)
	if f, ok := w.(*os.File); ok {
		_ = f.Sync()
	}
}
