// Package cli holds kubewalk's cobra commands; cmd/kubewalk only calls Execute.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// errInterrupted marks a run stopped by SIGINT/SIGTERM: not a failure, but not a success either.
var errInterrupted = errors.New("interrupted")

// Execute runs the kubewalk command line and returns the process exit code: 0 on success or a
// clean shutdown after the server was ready, 130 when interrupted during startup, 1 on error.
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := NewRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "kubewalk: interrupted; everything was shut down")
		return 130
	default:
		fmt.Fprintf(stderr, "kubewalk: %v\n", err)
		return 1
	}
}

// NewRootCommand builds the command tree. Without a subcommand it runs the tour.
func NewRootCommand(stdout, stderr io.Writer) *cobra.Command {
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
			return runTour(cmd.Context(), rootTour, stdout, stderr)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	rootTour.addFlags(root)
	root.AddCommand(newTourCommand(stdout, stderr), newServeCommand(stdout, stderr),
		newLessonsCommand(stdout, stderr), newVersionCommand(stdout))
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return fmt.Errorf("%w (see '%s --help')", err, cmd.CommandPath())
	})
	return root
}
