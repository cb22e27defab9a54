package sshclass

import (
	"bytes"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// reaper waits for the orphans this process inherits as the sessions' child subreaper, as soon
// as they exit. Without it an orphan stayed a zombie until the class stopped: a tour that ran
// `go env` left go's telemetry process, which puts itself in a session of its own and outlives
// its parent; it then became this process's child and, once it exited, a `<defunct>` entry nobody
// waited for.
//
// It reaps only what nobody else waits for: a child in a session other than this process's
// (orphans of tours are; what this process starts with os/exec, in its own session, is not) and
// not a tour this process started (each is a session leader, waited for by its exec.Cmd). start
// holds the lock while a tour's process starts, so a tour that exits at once is never taken for
// an orphan.
type reaper struct {
	mu      sync.Mutex
	tracked map[int]bool // tours started here: their exec.Cmd waits for them
	self    int          // this process's pid
	sid     int          // this process's session

	sigs   chan os.Signal
	stop   chan struct{} // nil until run
	done   chan struct{}
	closed bool
}

func newReaper() *reaper {
	sid, _ := unix.Getsid(0)
	return &reaper{tracked: map[int]bool{}, self: os.Getpid(), sid: sid}
}

// run reaps on every SIGCHLD until close; it does nothing after close, or a second time.
func (r *reaper) run() {
	r.mu.Lock()
	if r.closed || r.stop != nil {
		r.mu.Unlock()
		return
	}
	r.sigs = make(chan os.Signal, 1)
	r.stop = make(chan struct{})
	r.done = make(chan struct{})
	signal.Notify(r.sigs, syscall.SIGCHLD)
	r.mu.Unlock()
	go func() {
		defer close(r.done)
		defer signal.Stop(r.sigs)
		r.reap() // whatever exited before
		for {
			select {
			case <-r.stop:
				return
			case <-r.sigs:
				r.reap()
			}
		}
	}()
}

// close stops reaping (once).
func (r *reaper) close() {
	r.mu.Lock()
	stop, done, was := r.stop, r.done, r.closed
	r.closed = true
	r.mu.Unlock()
	if was || stop == nil {
		return
	}
	close(stop)
	<-done
}

// start runs startFn (which starts a tour's process and returns its pid, or an error) with the
// reaper held off, and tracks the pid.
func (r *reaper) start(startFn func() (int, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	pid, err := startFn()
	if err == nil {
		r.tracked[pid] = true
	}
	return err
}

// untrack forgets a tour whose exec.Cmd has waited for it.
func (r *reaper) untrack(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.tracked, pid)
}

// reap waits for every zombie child that is an orphan (see reaper) and returns how many.
func (r *reaper) reap() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || r.tracked[pid] {
			continue
		}
		st, ok := readStat(pid)
		if !ok || st.state != 'Z' || st.ppid != r.self || st.sid == r.sid {
			continue
		}
		var ws unix.WaitStatus
		if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); err == nil && got == pid {
			n++
		}
	}
	return n
}

// procStat is what reap reads of /proc/PID/stat.
type procStat struct {
	state           byte
	ppid, pgrp, sid int
}

// readStat reads /proc/PID/stat: after the command name (in parentheses, which may hold spaces
// and parentheses itself) come state, ppid, pgrp and session.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return procStat{}, false
	}
	var st procStat
	st.state = f[0][0]
	var e1, e2, e3 error
	st.ppid, e1 = strconv.Atoi(string(f[1]))
	st.pgrp, e2 = strconv.Atoi(string(f[2]))
	st.sid, e3 = strconv.Atoi(string(f[3]))
	return st, e1 == nil && e2 == nil && e3 == nil
}
