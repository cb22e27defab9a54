package server

// This file holds where the kubeconfig goes and how kubewalk keeps from destroying one it did
// not write.
//
// kubewalk writes a kubeconfig of its own and never merges into someone else's: a file at the
// --kubeconfig path is replaced only if it carries kubewalk's marker (the preferences
// extension kubewalk.io/run), that is, if an earlier run left it there. Any other file makes
// New fail, saying why and how to proceed. A lock file beside it (<path>.kubewalk-lock, held
// with flock for the life of the server; not <path>.lock, which kubectl creates and removes
// around each change it makes to a kubeconfig) tells a live run's file from a stale one: a second run
// refuses an explicit --kubeconfig that a live run holds, and for the default path it falls
// back to its work dir and says so (KubeconfigNote). Close first marks the lock file
// "stopping", then removes the file if it still carries this run's marker, and the lock file.
// A run that finds the lock held by a stopping run waits for it (bounded; Options.KubeconfigWait
// is told): after a kill -9 of the visible process, its child is still shutting down when the
// learner starts again.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigLockSuffix names the lock file beside the kubeconfig.
const kubeconfigLockSuffix = ".kubewalk-lock"

// kubeconfigMarker names the preferences extension that marks a kubeconfig kubewalk wrote.
const kubeconfigMarker = "kubewalk.io/run"

// runMarker is the marker's content: which process and run wrote the file.
type runMarker struct {
	PID int    `json:"pid"`
	Run string `json:"run"`
}

// DefaultKubeconfigPath is the default for --kubeconfig: a path that stays the same from run
// to run, so that `export KUBECONFIG=...` survives a restart. It is
// $XDG_RUNTIME_DIR/kubewalk/kubeconfig (a per-user directory of mode 0700 that the system
// empties at logout), else $XDG_STATE_HOME/kubewalk/kubeconfig, else
// ~/.local/state/kubewalk/kubeconfig; "" if there is no home directory either.
func DefaultKubeconfigPath() string {
	if dir := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "kubewalk", "kubeconfig")
	}
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "kubewalk", "kubeconfig")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "kubewalk", "kubeconfig")
}

// errForeignKubeconfig says a file exists at the kubeconfig path that kubewalk did not write.
var errForeignKubeconfig = errors.New("the file exists and kubewalk did not write it")

// checkOverwrite reports whether kubewalk may replace the file at path: it may if there is
// none, or if it carries kubewalk's marker. It returns the marker it found.
func checkOverwrite(path string) (runMarker, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return runMarker{}, nil
	}
	if err != nil {
		return runMarker{}, err
	}
	if !fi.Mode().IsRegular() {
		return runMarker{}, fmt.Errorf("%w (it is not a regular file)", errForeignKubeconfig)
	}
	m, ok := readMarker(path)
	if !ok {
		return runMarker{}, errForeignKubeconfig
	}
	return m, nil
}

// readMarker reads kubewalk's marker from the kubeconfig at path.
func readMarker(path string) (runMarker, bool) {
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil || cfg.Preferences.Extensions == nil {
		return runMarker{}, false
	}
	ext, ok := cfg.Preferences.Extensions[kubeconfigMarker]
	if !ok {
		return runMarker{}, false
	}
	u, ok := ext.(*runtime.Unknown)
	if !ok {
		return runMarker{}, false
	}
	var m runMarker
	if err := json.Unmarshal(u.Raw, &m); err != nil || m.Run == "" {
		return runMarker{}, false
	}
	return m, true
}

// Why RunningKubeconfig finds no live run.
var (
	// ErrNoKubeconfig: there is no file at the path, and no run holds it.
	ErrNoKubeconfig = errors.New("no kubeconfig there")
	// ErrNotWritten: a live run holds the path but has not written its kubeconfig yet (it
	// does when the server serves).
	ErrNotWritten = errors.New("a kubewalk run holds the path but has not written its kubeconfig yet")
	// ErrRunEnded: the file carries kubewalk's marker, but the run that wrote it has ended.
	ErrRunEnded = errors.New("the kubewalk run that wrote it has ended")
	// ErrForeignKubeconfig: the file does not carry kubewalk's marker.
	ErrForeignKubeconfig = errForeignKubeconfig
)

// RunningKubeconfig finds the live run behind the kubeconfig at path, as a second run finds
// the first: the file carries kubewalk's marker (the kubewalk.io/run preferences extension),
// the process the marker names is alive, and the lock file beside it names the same process.
// It returns that process's ID, or an error wrapping one of ErrNoKubeconfig, ErrNotWritten
// (pid is then the run's), ErrRunEnded (pid is the ended run's) or ErrForeignKubeconfig. It
// only reads: it takes no lock.
func RunningKubeconfig(path string) (pid int, err error) {
	holder := 0
	if b, err := os.ReadFile(path + kubeconfigLockSuffix); err == nil {
		if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && processAlive(p) {
			holder = p
		}
	}
	m, err := checkOverwrite(path)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: %w", path, err)
	case m.Run == "" && holder != 0:
		return holder, fmt.Errorf("%s: %w (pid %d)", path, ErrNotWritten, holder)
	case m.Run == "":
		return 0, fmt.Errorf("%s: %w", path, ErrNoKubeconfig)
	case processAlive(m.PID) && m.PID == holder:
		return m.PID, nil
	case holder != 0:
		// A live run holds the path; the file is an earlier run's, not yet replaced.
		return holder, fmt.Errorf("%s: %w (pid %d)", path, ErrNotWritten, holder)
	default:
		return m.PID, fmt.Errorf("%s: %w (pid %d)", path, ErrRunEnded, m.PID)
	}
}

// processAlive reports whether a process with that ID exists (signal 0 checks without
// sending anything; EPERM means it exists but is another user's).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// foreignKubeconfigError is the error for a file kubewalk will not overwrite.
func foreignKubeconfigError(path string, err error) error {
	return fmt.Errorf("--kubeconfig %s: %w; kubewalk does not overwrite it: pass another path, or delete the file if you no longer need it", path, err)
}

// errLocked says another process holds the lock.
var errLocked = errors.New("locked")

// lockHolder is what a held lock file says about the run holding it.
type lockHolder struct {
	pid      int
	stopping bool // its Close has begun
}

// stoppingWord follows the pid in a lock file whose run has begun to shut down.
const stoppingWord = "stopping"

// Bounds on waiting for a --kubeconfig another run holds: a run that is stopping gets
// kubeconfigStopWait to let go; a run that is not gets kubeconfigStopGrace to say it is
// stopping (the child of a visible process killed with -9 learns of it within milliseconds,
// but a restart typed at once can come first).
const (
	kubeconfigStopWait  = 30 * time.Second
	kubeconfigStopGrace = 2 * time.Second
	kubeconfigPoll      = 50 * time.Millisecond
)

// markStopping rewrites a held lock file to say that its run is shutting down.
func markStopping(f *os.File) {
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+stoppingWord+"\n"), 0)
}

// lockFile takes an exclusive flock on path (creating it, mode 0600) without waiting, and
// writes this process's ID into it. If another process holds it, it returns errLocked and
// what the file says about that process. The lock goes with the process, so a crashed run
// leaves none behind.
func lockFile(path string) (*os.File, lockHolder, error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, lockHolder{}, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			b := make([]byte, 32)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				fields := strings.Fields(string(b[:n]))
				var h lockHolder
				if len(fields) > 0 {
					h.pid, _ = strconv.Atoi(fields[0])
				}
				h.stopping = len(fields) > 1 && fields[1] == stoppingWord
				return nil, h, errLocked
			}
			return nil, lockHolder{}, err
		}
		// The holder may have removed the file between our open and our lock: the lock
		// counts only on the file that is at path now.
		held, err1 := f.Stat()
		now, err2 := os.Lstat(path)
		if err1 != nil || err2 != nil || !os.SameFile(held, now) {
			f.Close()
			continue
		}
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, lockHolder{}, err
		}
		if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
			f.Close()
			return nil, lockHolder{}, err
		}
		return f, lockHolder{}, nil
	}
}

// lockKubeconfig takes the lock beside the kubeconfig at path. Held by a run that is
// stopping, it waits for that run to let go (up to kubeconfigStopWait, telling
// Options.KubeconfigWait once); held by a run that is not, it waits up to kubeconfigStopGrace
// for it to say it is stopping (only for an explicit path: the default one falls back at
// once). It returns errLocked and the holder when the lock stays held, or ctx's error.
func (s *Server) lockKubeconfig(ctx context.Context, path string, isDefault bool) (*os.File, lockHolder, error) {
	start := time.Now()
	var waitStart time.Time // when the holder was first seen stopping
	for {
		f, h, err := lockFile(path + kubeconfigLockSuffix)
		if errors.Is(err, os.ErrNotExist) && !waitStart.IsZero() {
			// The run we waited for removed the directory it had made: it is ours to make now.
			dir := filepath.Dir(path)
			s.track(dir, false)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, h, err
			}
			s.kubeconfigDir = dir
			continue
		}
		if !errors.Is(err, errLocked) {
			return f, h, err
		}
		switch {
		case h.stopping && waitStart.IsZero():
			waitStart = time.Now()
			if s.opts.KubeconfigWait != nil {
				s.opts.KubeconfigWait(path, h.pid)
			}
		case h.stopping && time.Since(waitStart) > kubeconfigStopWait:
			return nil, h, err
		case !h.stopping && (isDefault || time.Since(start) > kubeconfigStopGrace):
			return nil, h, err
		}
		select {
		case <-ctx.Done():
			return nil, h, fmt.Errorf("--kubeconfig %s: waiting for kubewalk run (pid %d) to let go of it: %w", path, h.pid, ctx.Err())
		case <-time.After(kubeconfigPoll):
		}
	}
}

// claimKubeconfig takes the --kubeconfig path for this run: it locks it and checks that the
// file there, if any, is one kubewalk may replace. For the default path, a live run holding it
// or a file kubewalk did not write makes this run use its work dir instead, and
// KubeconfigNote says so; for an explicit path they are errors naming the flag. A run that
// holds it while shutting down is waited for (see lockKubeconfig).
func (s *Server) claimKubeconfig(ctx context.Context) error {
	path := s.opts.Kubeconfig
	if path == "" {
		return nil
	}
	isDefault := path == DefaultKubeconfigPath()
	fallBack := func(why string) {
		s.kubeconfigNote = fmt.Sprintf("the default kubeconfig %s %s, so this run writes its kubeconfig in its work dir", path, why)
		s.opts.Kubeconfig = ""
	}
	dir := filepath.Dir(path)
	_, statErr := os.Stat(dir)
	if errors.Is(statErr, os.ErrNotExist) {
		s.track(dir, false)
	}
	s.track(path+kubeconfigLockSuffix, false)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		if isDefault {
			fallBack(fmt.Sprintf("cannot be used (%v)", err))
			return nil
		}
		return fmt.Errorf("--kubeconfig %s: %w", path, err)
	}
	lock, holder, err := s.lockKubeconfig(ctx, path, isDefault)
	switch {
	case errors.Is(err, errLocked) && holder.stopping:
		return fmt.Errorf("--kubeconfig %s: kubewalk run (pid %d) has been shutting down for %s and still holds it; wait for it to end, or pass another path", path, holder.pid, kubeconfigStopWait)
	case errors.Is(err, errLocked) && isDefault:
		fallBack(fmt.Sprintf("is in use by another kubewalk run (pid %d)", holder.pid))
		return nil
	case errors.Is(err, errLocked):
		return fmt.Errorf("--kubeconfig %s: another kubewalk run (pid %d) is using it; stop that run, or pass another path", path, holder.pid)
	case err != nil && ctx.Err() != nil:
		return err
	case err != nil && isDefault:
		fallBack(fmt.Sprintf("cannot be locked (%v)", err))
		return nil
	case err != nil:
		return fmt.Errorf("--kubeconfig %s: lock: %w", path, err)
	}
	if _, err := checkOverwrite(path); err != nil {
		unlockFile(lock)
		if isDefault && errors.Is(err, errForeignKubeconfig) {
			fallBack("holds a file kubewalk did not write")
			return nil
		}
		return foreignKubeconfigError(path, err)
	}
	s.kubeconfigLock = lock
	if errors.Is(statErr, os.ErrNotExist) || s.kubeconfigDir != "" {
		s.kubeconfigDir = dir // made by this run (or remade): removed on Close if it is empty then
	}
	return nil
}

// unlockFile removes a lock file this process holds and releases it.
func unlockFile(f *os.File) {
	os.Remove(f.Name())
	f.Close()
}

// releaseKubeconfig removes the kubeconfig this run wrote, if the file still carries its
// marker (a file someone put there since is left alone), then the lock.
func (s *Server) releaseKubeconfig() error {
	var err error
	if s.sv != nil && s.sv.kubeconfig != "" {
		if m, ok := readMarker(s.sv.kubeconfig); ok && m.Run == s.runID {
			if rmErr := os.Remove(s.sv.kubeconfig); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				err = fmt.Errorf("remove kubeconfig: %w", rmErr)
			}
		}
	}
	if s.kubeconfigLock != nil {
		unlockFile(s.kubeconfigLock)
		s.kubeconfigLock = nil
	}
	if s.kubeconfigDir != "" {
		_ = os.Remove(s.kubeconfigDir) // only succeeds when empty: another run's files stay
		s.kubeconfigDir = ""
	}
	return err
}

// KubeconfigNote explains why the kubeconfig is not at the path asked for (the default path
// was taken), or is "".
func (s *Server) KubeconfigNote() string { return s.kubeconfigNote }

// clusterName is the kubeconfig cluster entry's name.
const clusterName = "kubewalk"

// Two contexts of the kubeconfig name no user: they reach the server the way a client that
// has no credentials, or a wrong one, does — from kubectl in another terminal and from the
// tour's own kubectl alike (a student of class ssh may not pass --token or skip the
// kubeconfig).
const (
	// ContextAnonymous carries no certificate and no token: the anonymous authenticator
	// answers, as system:anonymous, on /healthz, /livez, /readyz and /version (401 on any
	// other path). Its user entry holds only a user name, anonymousUsername, with no password:
	// an entry with nothing at all would make kubectl (which still offers the deprecated
	// basic-auth prompt) ask for a user name and password on its stdin — the terminal, or the
	// tour's own screen. kubectl sends the name as HTTP basic auth, which kube-apiserver has
	// not read since 1.19 and no authenticator of this server reads either.
	ContextAnonymous = "anonymous"
	// ContextBadToken carries a bearer token that no authenticator knows (random per run,
	// never in the token map): authentication fails and the answer is 401, on every path.
	ContextBadToken = "badtoken"
)

// anonymousUsername is the anonymous context's user name, which no authenticator reads.
const anonymousUsername = "anonymous"

// Contexts returns the kubeconfig's context names in order: one per identity, then anonymous
// and badtoken; nil before the authn phase has run.
func (s *Server) Contexts() []string {
	if s.an == nil {
		return nil
	}
	var out []string
	for _, id := range s.an.identities {
		out = append(out, id.Context)
	}
	return append(out, ContextAnonymous, ContextBadToken)
}

// kubeconfig builds the client configuration for every identity, one context each.
func (s *Server) kubeconfig() *clientcmdapi.Config {
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = s.c.loopback.Host
	cluster.CertificateAuthorityData = s.c.ca.CertPEM
	cfg.Clusters[clusterName] = cluster
	for _, id := range s.an.identities {
		auth := clientcmdapi.NewAuthInfo()
		auth.Token = id.Token
		auth.ClientCertificateData = id.ClientCertPEM
		auth.ClientKeyData = id.ClientKeyPEM
		cfg.AuthInfos[id.Context] = auth
		kctx := clientcmdapi.NewContext()
		kctx.Cluster = clusterName
		kctx.AuthInfo = id.Context
		kctx.Namespace = "default"
		cfg.Contexts[id.Context] = kctx
	}
	// anonymous: a user name only (see ContextAnonymous); badtoken: only the unknown token.
	anon := clientcmdapi.NewAuthInfo()
	anon.Username = anonymousUsername
	bad := clientcmdapi.NewAuthInfo()
	bad.Token = s.an.badToken
	for name, auth := range map[string]*clientcmdapi.AuthInfo{ContextAnonymous: anon, ContextBadToken: bad} {
		cfg.AuthInfos[name] = auth
		kctx := clientcmdapi.NewContext()
		kctx.Cluster = clusterName
		kctx.AuthInfo = name
		kctx.Namespace = "default"
		cfg.Contexts[name] = kctx
	}
	cfg.CurrentContext = "admin"
	marker, _ := json.Marshal(runMarker{PID: os.Getpid(), Run: s.runID})
	cfg.Preferences.Extensions = map[string]runtime.Object{
		kubeconfigMarker: &runtime.Unknown{Raw: marker, ContentType: runtime.ContentTypeJSON},
	}
	return cfg
}

// writeKubeconfig writes the kubeconfig with mode 0600 in a directory of mode 0700 (when it
// creates the directory), replacing the file atomically — unless a file kubewalk did not
// write has appeared there since New checked.
func (s *Server) writeKubeconfig(path string) error {
	data, err := clientcmd.Write(*s.kubeconfig())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kubeconfig-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if _, err := checkOverwrite(path); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
