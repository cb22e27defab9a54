//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Probe asks the kernel what it offers. It changes nothing.
func Probe() Support {
	return Support{OS: true, LandlockABI: landlockABI(), Seccomp: seccomp.Supported()}
}

// landlockABI is the kernel's Landlock ABI as go-landlock counts it: 0 without Landlock, and
// 5 for an ABI ≥ 6 whose signal-scoping erratum (bit 1) is not fixed.
func landlockABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	if v >= ABIScoped {
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = ABIScoped - 1
		}
	}
	return v
}

// deniedSyscalls are answered EPERM by the seccomp filter: starting a program, and reaching
// into another process's memory (same-user processes otherwise may, without Yama).
var deniedSyscalls = []string{"execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev"}

// Apply confines the whole process — every OS thread, those already running included — as spec
// says, Landlock first, then seccomp. Without Require, what the kernel lacks is left out
// (Applied says what was enforced); with it, Apply fails with ErrUnsupported instead. A failure
// after Landlock was enforced leaves it enforced: the caller must not go on as if unconfined.
func Apply(spec Spec) (Applied, error) {
	var applied Applied
	support := Probe()
	if spec.Require {
		need := Support{OS: true, LandlockABI: support.LandlockABI, Seccomp: support.Seccomp}
		if !spec.Landlock {
			need.LandlockABI = ABINet
		}
		if !spec.Seccomp {
			need.Seccomp = true
		}
		if m := need.Missing(); m != "" {
			return applied, fmt.Errorf("sandbox: %w: no %s", ErrUnsupported, m)
		}
	}
	if spec.Landlock && support.Landlock() {
		abi, err := applyLandlock(spec, support.LandlockABI)
		if err != nil {
			return applied, fmt.Errorf("sandbox: landlock: %w", err)
		}
		applied.LandlockABI = abi
	}
	if spec.Seccomp && support.Seccomp {
		if err := applySeccomp(); err != nil {
			return applied, fmt.Errorf("sandbox: seccomp: %w", err)
		}
		applied.Seccomp = true
	}
	return applied, nil
}

// Landlock access rights. No right is ever given to execute a file, to make a device, a
// socket, a pipe or a symbolic link, or to use a device's ioctls.
const (
	readRights    = ll.AccessFSReadFile | ll.AccessFSReadDir
	writeRights   = ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir | ll.AccessFSMakeReg
	fileOnlyRight = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
	// referRight lets files move between directories of the read-write hierarchies (etcd and
	// kubectl's cache rename files into place); Landlock never lets a move gain rights.
	referRight = ll.AccessFSRefer
)

// landlockConfigs are go-landlock's configurations by ABI, for Require.
var landlockConfigs = map[int]landlock.Config{
	1: landlock.V1, 2: landlock.V2, 3: landlock.V3, 4: landlock.V4, 5: landlock.V5, 6: landlock.V6, 7: landlock.V7,
}

// applyLandlock enforces spec's file, network and scope rules and returns the ABI enforced.
func applyLandlock(spec Spec, abi int) (int, error) {
	abi = min(abi, maxABI)
	cfg := landlock.V7.BestEffort()
	if spec.Require {
		cfg = landlockConfigs[abi]
	}
	// Go ≥ 1.24 listens with Multipath TCP where the kernel has it, and Landlock's TCP rules
	// do not apply to MPTCP sockets: with TCP rules, this process listens and dials plain TCP.
	// The runtime reads a changed GODEBUG at once.
	if abi >= ABINet {
		setGODEBUG("multipathtcp", "0")
	}
	handled := landlock.AccessFSSet(landlockConfigs[abi].HandledAccessFS)
	var rules []landlock.Rule
	add := func(paths []string, rights landlock.AccessFSSet, optional bool) error {
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				return fmt.Errorf("%q: not an absolute path", p)
			}
			fi, err := os.Stat(p)
			if err != nil {
				if optional && errors.Is(err, os.ErrNotExist) {
					continue
				}
				return err
			}
			r := rights
			if !fi.IsDir() {
				r &= fileOnlyRight
			}
			if r &= handled; r == 0 {
				continue
			}
			rules = append(rules, landlock.PathAccess(r, p))
		}
		return nil
	}
	if err := add(spec.ReadOnly, readRights, true); err != nil {
		return 0, err
	}
	rw := landlock.AccessFSSet(readRights | writeRights)
	if abi >= 2 {
		rw |= referRight
	}
	if err := add(spec.ReadWrite, rw, false); err != nil {
		return 0, err
	}
	if abi >= ABINet {
		for _, p := range spec.BindTCP {
			rules = append(rules, landlock.BindTCP(p))
		}
		for _, p := range spec.ConnectTCP {
			rules = append(rules, landlock.ConnectTCP(p))
		}
	}
	if err := cfg.Restrict(rules...); err != nil {
		return 0, err
	}
	return abi, nil
}

// setGODEBUG sets one GODEBUG setting, keeping the others.
func setGODEBUG(key, value string) {
	var kept []string
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if k, _, _ := strings.Cut(kv, "="); kv != "" && k != key {
			kept = append(kept, kv)
		}
	}
	os.Setenv("GODEBUG", strings.Join(append(kept, key+"="+value), ","))
}

// applySeccomp sets no_new_privs and installs the filters on every thread of the process.
func applySeccomp() error {
	// no_new_privs is set on this thread, then TSYNC gives every thread this thread's filters
	// and no_new_privs: the goroutine must not change threads in between.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	filter := seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls:      []seccomp.SyscallGroup{{Action: seccomp.ActionErrno, Names: deniedSyscalls}},
		},
	}
	if err := seccomp.LoadFilter(filter); err != nil {
		return err
	}
	return loadArchGuard()
}

// loadArchGuard installs a filter that answers EPERM to any system call made with another
// architecture's calling convention (go-seccomp-bpf's filter lets those through to its default
// action, allow, since its syscall numbers are the native ones).
func loadArchGuard() error {
	native, err := arch.GetInfo("")
	if err != nil {
		return err
	}
	prog, err := bpf.Assemble([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)},
		bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW},
	})
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		filter[i] = unix.SockFilter{Code: in.Op, Jt: in.Jt, Jf: in.Jf, K: in.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(filter)
	if e != 0 {
		return fmt.Errorf("architecture guard: %w", e)
	}
	return nil
}
