package main_test

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/kubewalk/kubewalk/lessons"
)

// TestLessonsCheckCommand runs `kubewalk lessons check` as a learner or CI would, with the real
// binary: the embedded lessons, Chinese included, pass the validator, and a bad --lang is
// refused with an error that names the flag. TestContent checks the same content in process;
// this checks the command wires it up (languages, modules, exit status).
func TestLessonsCheckCommand(t *testing.T) {
	// What the summary says about kube: locations depends on whether k8s.io/kubernetes is in
	// the module cache (the lessons tests download it; a fresh machine may not have it yet).
	kubeSummary := "kube: locations in " + lessons.KubeModule + " " + lessons.KubeVersion
	if _, err := lessons.KubeModuleDir(); err != nil {
		kubeSummary = "kube: locations checked in form only"
	}
	tests := []struct {
		name     string
		args     []string
		wantFail bool
		stdout   []string
		stderr   []string
	}{
		{
			name: "zh-CN",
			args: []string{"lessons", "check", "--lang", "zh-CN"},
			stdout: []string{"lessons ok: ", "covering all", "(languages: en, zh-CN)",
				"upstream symbols in k8s.io/apiserver@v0.37.2", kubeSummary},
		},
		{
			name:   "every language",
			args:   []string{"lessons", "check"},
			stdout: []string{"lessons ok: ", "(languages: en, zh-CN)"},
		},
		{
			name:     "unsupported language",
			args:     []string{"lessons", "check", "--lang", "xx"},
			wantFail: true,
			stderr:   []string{`--lang "xx"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(binary, tt.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatalf("kubewalk %s: %v", strings.Join(tt.args, " "), err)
			}
			if (code != 0) != tt.wantFail {
				t.Fatalf("kubewalk %s: exit %d, want failure %v\nstdout:\n%s\nstderr:\n%s", strings.Join(tt.args, " "), code, tt.wantFail, &stdout, &stderr)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("kubewalk %s: stdout lacks %q:\n%s", strings.Join(tt.args, " "), w, &stdout)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("kubewalk %s: stderr lacks %q:\n%s", strings.Join(tt.args, " "), w, &stderr)
				}
			}
		})
	}
}
