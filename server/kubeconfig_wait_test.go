package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLockKubeconfigWaits: a --kubeconfig whose lock a stopping run holds is waited for (the
// restart right after a kill -9 of the visible process); one a live run holds is refused after
// the grace, at once for the default path; the wait ends with ctx.
func TestLockKubeconfigWaits(t *testing.T) {
	tests := []struct {
		name      string
		isDefault bool
		stopping  bool // the holder says it is stopping from the start
		later     bool // the holder says it is stopping only once the claim has begun
		release   bool // the holder lets go once the claim has been told to wait
		cancel    bool // the claim's ctx ends once it has been told to wait
		wantErr   error
		wantTold  bool
	}{
		{name: "stopping run lets go", stopping: true, release: true, wantTold: true},
		{name: "run that starts stopping during the grace", later: true, release: true, wantTold: true},
		{name: "stopping run, default path", isDefault: true, stopping: true, release: true, wantTold: true},
		{name: "live run, explicit path", wantErr: errLocked},
		{name: "live run, default path", isDefault: true, wantErr: errLocked},
		{name: "interrupted while waiting", stopping: true, cancel: true, wantErr: context.Canceled, wantTold: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "kubeconfig")
			holder, _, err := lockFile(path + kubeconfigLockSuffix)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if holder != nil {
					unlockFile(holder)
				}
			}()
			if tt.stopping {
				markStopping(holder)
			}
			told := make(chan int, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := &Server{opts: Options{KubeconfigWait: func(p string, pid int) {
				if p != path {
					t.Errorf("told about %s, want %s", p, path)
				}
				told <- pid
			}}}
			type result struct {
				f   *os.File
				h   lockHolder
				err error
			}
			done := make(chan result, 1)
			go func() {
				f, h, err := s.lockKubeconfig(ctx, path, tt.isDefault)
				done <- result{f, h, err}
			}()
			if tt.later {
				markStopping(holder)
			}
			if tt.wantTold {
				select {
				case pid := <-told:
					if pid != os.Getpid() {
						t.Errorf("told pid %d, want %d", pid, os.Getpid())
					}
				case <-time.After(time.Minute):
					t.Fatal("never told that it waits")
				}
				switch {
				case tt.release:
					unlockFile(holder)
					holder = nil
				case tt.cancel:
					cancel()
				}
			}
			var r result
			select {
			case r = <-done:
			case <-time.After(time.Minute):
				t.Fatal("lockKubeconfig did not return")
			}
			if r.f != nil {
				defer unlockFile(r.f)
			}
			switch {
			case tt.wantErr == nil && r.err != nil:
				t.Fatalf("err %v, want the lock", r.err)
			case tt.wantErr != nil && !errors.Is(r.err, tt.wantErr):
				t.Fatalf("err %v, want %v", r.err, tt.wantErr)
			case errors.Is(tt.wantErr, errLocked) && r.h.pid != os.Getpid():
				t.Errorf("holder pid %d, want %d", r.h.pid, os.Getpid())
			}
			if !tt.wantTold {
				select {
				case <-told:
					t.Error("told it waits for a run that is not stopping")
				default:
				}
			}
			if tt.wantErr == nil {
				b, err := os.ReadFile(path + kubeconfigLockSuffix)
				if err != nil || strings.Contains(string(b), stoppingWord) {
					t.Errorf("the new lock file says %q (%v)", b, err)
				}
			}
		})
	}
}
