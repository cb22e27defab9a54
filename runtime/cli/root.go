// Package cli holds kubewalk's cobra commands; cmd/kubewalk only calls Execute.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// errInterrupted marks a run stopped by SIGINT, SIGTERM, SIGHUP or Ctrl-C in the walkthrough: not
// a failure, but not a success either.
var errInterrupted = errors.New("interrupted")

// Execute runs the kubewalk command line in this process and returns the exit code: 0 on
// success, on q in the walkthrough, or on a clean shutdown of `serve` after the server was
// ready; 130 when interrupted (ctx ended, or Ctrl-C in the walkthrough); 1 on error, reported
// on one line. Main adds the signal handling and crash supervision around it, and then exits
// 128 + the number of the signal that interrupted the run (143 for SIGTERM, 129 for SIGHUP).
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return execute(ctx, args, stdout, stderr, nil)
}

func execute(ctx context.Context, args []string, stdout, stderr io.Writer, sess *session) int {
	stampLibraryVersions()
	root := newRootCommand(stdout, stderr, sess)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "kubewalk: "+msgs(langFlag(cmd)).CLIInterrupted)
		return 130
	default:
		fmt.Fprintf(stderr, "kubewalk: %s\n", oneLine(err))
		return 1
	}
}

// oneLine joins the lines of a multi-line error (errors.Join of several flag problems) with "; ",
// and cuts every over-long word (see cutLongWords).
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return cutLongWords(strings.Join(parts, "; "))
}

// maxWord is the longest word an error message repeats whole.
const maxWord = 80

// cutLongWords shortens every run of more than maxWord non-blank characters to its first 40,
// an ellipsis and its length: an error often quotes what was typed (a flag's value, a join
// code), and a 100 KB value must not be echoed back whole, while the words around it — what
// is wrong, what to do — stay.
func cutLongWords(s string) string {
	if len(s) <= maxWord {
		return s
	}
	var b strings.Builder
	start := -1
	flush := func(end int) {
		w := s[start:end]
		if utf8.RuneCountInString(w) > maxWord {
			r := []rune(w)
			w = fmt.Sprintf("%s… (%d bytes)", string(r[:40]), len(w))
		}
		b.WriteString(w)
		start = -1
	}
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				flush(i)
			}
			b.WriteRune(r)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}

// NewRootCommand builds the command tree. Without a subcommand it runs the tour.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
	return newRootCommand(stdout, stderr, nil)
}

func newRootCommand(stdout, stderr io.Writer, sess *session) *cobra.Command {
	rootTour := &tourOptions{}
	root := &cobra.Command{
		Use:   "kubewalk",
		Short: "Start a real Kubernetes-style API server and walk through its startup chain",
		Long: `kubewalk starts a real API server built on k8s.io/apiserver with embedded etcd, phase by
phase (config, authn, authz, admission, storage, install, serve), then lets you point the
real kubectl at it.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTour(cmd.Context(), rootTour, stdout, stderr, sess)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	rootTour.addFlags(root)
	root.AddCommand(newTourCommand(stdout, stderr, sess), newServeCommand(stdout, stderr, sess),
		newLessonsCommand(stdout, stderr), newGlossaryCommand(stdout), newVersionCommand(stdout), newEnvCommand(stdout),
		newClassCommand(stdout, stderr, sess), newJoinCommand(stdout, stderr, sess))
	for _, c := range root.Commands() {
		if c.Name() == "class" {
			warnRootOnClass(c, stdout, stderr)
		}
	}
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath())
	})
	return root
}
