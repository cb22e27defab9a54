package server

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// deadPID returns the ID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// writeMarked writes a kubeconfig at path carrying kubewalk's marker for pid (none when pid
// is 0).
func writeMarked(t *testing.T, path string, pid int) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	if pid != 0 {
		m, _ := json.Marshal(runMarker{PID: pid, Run: "r" + strconv.Itoa(pid)})
		cfg.Preferences.Extensions = map[string]runtime.Object{kubeconfigMarker: &runtime.Unknown{Raw: m, ContentType: runtime.ContentTypeJSON}}
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

func TestRunningKubeconfig(t *testing.T) {
	self, dead := os.Getpid(), deadPID(t)
	tests := []struct {
		name    string
		file    int // 0: no file, -1: a file without the marker, else the marker's pid
		lock    int // 0: no lock file, else the pid in it
		wantPID int
		wantErr error
	}{
		{"a live run that served", self, self, self, nil},
		{"nothing there", 0, 0, 0, ErrNoKubeconfig},
		{"a live run before serve", 0, self, self, ErrNotWritten},
		{"a live run before serve, over an ended run's file", dead, self, self, ErrNotWritten},
		{"a run that crashed", dead, dead, dead, ErrRunEnded},
		{"a marked file and no lock", dead, 0, dead, ErrRunEnded},
		{"someone else's kubeconfig", -1, 0, 0, ErrForeignKubeconfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubeconfig")
			switch {
			case tt.file == -1:
				writeMarked(t, path, 0)
			case tt.file != 0:
				writeMarked(t, path, tt.file)
			}
			if tt.lock != 0 {
				if err := os.WriteFile(path+kubeconfigLockSuffix, []byte(strconv.Itoa(tt.lock)+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			pid, err := RunningKubeconfig(path)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if pid != tt.wantPID {
				t.Errorf("pid = %d, want %d", pid, tt.wantPID)
			}
		})
	}
}
