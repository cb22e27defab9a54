package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// FetchModule downloads modPath at version into the Go module cache with the go command
// (`go mod download -json modPath@version`, run in an empty temporary directory so that no
// go.mod is touched) and returns the module's source directory. While it runs, progress (if not
// nil) is called about every pollEvery with the bytes the go command has written so far (the
// zip it fetches, then the files it extracts). A machine without the go command, or offline,
// gets an error that says so and names the command to run by hand.
func FetchModule(ctx context.Context, modPath, version string, progress func(bytes int64)) (string, error) {
	if dir, err := cachedModuleDir(modPath, version); err == nil {
		return dir, nil
	}
	manual := fmt.Sprintf("`go mod download %s@%s`", modPath, version)
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("fetch %s %s: the go command is not installed, so kubewalk cannot download the source; install Go and run %s: %w", modPath, version, manual, err)
	}
	tmp, err := os.MkdirTemp("", "kubewalk-fetch-")
	if err != nil {
		return "", fmt.Errorf("fetch %s %s: %w", modPath, version, err)
	}
	defer os.RemoveAll(tmp)

	cache := moduleCache(goEnvGOMODCACHE, os.Getenv, os.UserHomeDir)
	cmd := exec.CommandContext(ctx, goBin, "mod", "download", "-json", modPath+"@"+version)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("fetch %s %s: start the go command: %w", modPath, version, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-tick.C:
			if progress != nil && cache != "" {
				progress(fetchedBytes(cache, modPath, version))
			}
		}
	}
	// go mod download -json prints the module's JSON, with an Error field, even when it fails.
	var res struct{ Dir, Error string }
	_ = json.Unmarshal(stdout.Bytes(), &res)
	if err != nil || res.Error != "" {
		reason := strings.TrimSpace(res.Error)
		if reason == "" {
			reason = strings.TrimSpace(stderr.String())
		}
		if reason == "" && err != nil {
			reason = err.Error()
		}
		if ctx.Err() != nil {
			reason = ctx.Err().Error()
		}
		return "", fmt.Errorf("fetch %s %s: %s (offline? run %s when you are online): %w", modPath, version, reason, manual, errFetch)
	}
	if res.Dir == "" {
		return "", fmt.Errorf("fetch %s %s: the go command named no directory: %w", modPath, version, errFetch)
	}
	return res.Dir, nil
}

// errFetch marks a download that the go command could not complete.
var errFetch = errors.New("module not downloaded")

// pollEvery is how often FetchModule reports progress.
const pollEvery = 250 * time.Millisecond

// fetchedBytes sums what the go command has written for modPath@version so far: the files in
// the download cache for that version (the zip grows in a temporary file beside it) and the
// extracted source directory, which the go command fills in a temporary directory beside the
// final one.
func fetchedBytes(cache, modPath, version string) int64 {
	dl := filepath.Join(cache, "cache", "download", filepath.FromSlash(escapePath(modPath)), "@v")
	var total int64
	if entries, err := os.ReadDir(dl); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), version) {
				if fi, err := e.Info(); err == nil {
					total += fi.Size()
				}
			}
		}
	}
	final := moduleDir(cache, modPath, version)
	parent, base := filepath.Dir(final), filepath.Base(final)
	if entries, err := os.ReadDir(parent); err == nil {
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), base) {
				total += dirSize(filepath.Join(parent, e.Name()))
			}
		}
	}
	return total
}

// dirSize sums the sizes of the regular files under dir.
func dirSize(dir string) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
		return nil
	})
	return total
}

// escapePath is the module cache's case escaping ("!" before a lower-cased upper-case letter).
func escapePath(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'A' && c <= 'Z' {
			b.WriteByte('!')
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}
