//go:build kubewalk_e2e

package cli

import (
	"os"
	"time"
)

// The end-to-end tests (cmd/kubewalk) build kubewalk with -tags kubewalk_e2e and use these:
//
//   - KUBEWALK_E2E_PANIC_FILE=path: once path exists, panic in a fresh goroutine, as a library
//     goroutine might — nothing in kubewalk can recover it;
//   - KUBEWALK_E2E_HANG_SHUTDOWN=1: after an interrupt, never finish the shutdown;
//   - KUBEWALK_E2E_HOLD_SHUTDOWN=path: after an interrupt, go on with the shutdown only once
//     path exists (at most a minute).
func init() {
	e2eHooks.start = func() {
		path := os.Getenv("KUBEWALK_E2E_PANIC_FILE")
		if path == "" {
			return
		}
		go func() {
			for {
				if _, err := os.Stat(path); err == nil {
					go func() { panic("kubewalk e2e: deliberate panic in a fresh goroutine") }()
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	e2eHooks.shutdown = func() {
		if os.Getenv("KUBEWALK_E2E_HANG_SHUTDOWN") != "" {
			select {}
		}
		if path := os.Getenv("KUBEWALK_E2E_HOLD_SHUTDOWN"); path != "" {
			for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(path); err == nil {
					return
				}
			}
		}
	}
}
