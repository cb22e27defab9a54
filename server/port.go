package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// heldPort is the secure port from the config phase to the serve phase: a TCP socket bound to
// the address but not listening. Bound, the port is this run's — the kernel gives it to no
// other bind, and never as the local port of an outgoing connection — yet nothing accepts: a
// client that connects while the walkthrough is paused before serve gets "connection refused".
//
// Checking that the port was free and closing it again, as kubewalk did first, left it free to
// anyone until the serve phase listened. On a class host running 30 tours at once that
// happened: the port picked for --secure-port 0 became the local port of one of the many
// connections the other tours' servers and etcds open (outgoing connections take their local
// ports from the same ephemeral range), and the student's serve phase failed with "address
// already in use".
type heldPort struct {
	fd   int // -1 once listening or closed
	port int
}

// reservePort binds host:port for this run without listening (see heldPort); port 0 picks a
// free port. As net.Listen does, it sets SO_REUSEADDR, so that a port a previous run used is
// not refused for its connections left in TIME_WAIT. flag names the port's flag in errors
// ("--secure-port", "--etcd-client-port").
func reservePort(flag, host string, port int) (*heldPort, error) {
	fail := func(err error) (*heldPort, error) {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%s %d: address %s is already in use", flag, port, net.JoinHostPort(host, strconv.Itoa(port)))
		}
		return nil, fmt.Errorf("%s %d / --bind-address %s: %w", flag, port, host, err)
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return fail(fmt.Errorf("%q is not an IP address", host))
	}
	family := unix.AF_INET6
	var sa unix.Sockaddr
	if ip4 := ip.To4(); ip4 != nil {
		family = unix.AF_INET
		a := &unix.SockaddrInet4{Port: port}
		copy(a.Addr[:], ip4)
		sa = a
	} else {
		a := &unix.SockaddrInet6{Port: port}
		copy(a.Addr[:], ip.To16())
		sa = a
	}
	// Under ForkLock, so that no program started meanwhile inherits the socket.
	syscall.ForkLock.RLock()
	fd, err := unix.Socket(family, unix.SOCK_STREAM, unix.IPPROTO_TCP)
	if err == nil {
		unix.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return fail(os.NewSyscallError("socket", err))
	}
	h := &heldPort{fd: fd}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		h.close()
		return fail(os.NewSyscallError("setsockopt", err))
	}
	if family == unix.AF_INET6 && ip.IsUnspecified() {
		// "::" serves IPv4 too, as net.Listen makes it.
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0)
	}
	if err := unix.Bind(fd, sa); err != nil {
		h.close()
		return fail(os.NewSyscallError("bind", err))
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		h.close()
		return fail(os.NewSyscallError("getsockname", err))
	}
	switch a := bound.(type) {
	case *unix.SockaddrInet4:
		h.port = a.Port
	case *unix.SockaddrInet6:
		h.port = a.Port
	}
	return h, nil
}

// listen starts listening on the held port and returns the listener, which owns the socket
// from then on.
func (h *heldPort) listen() (net.Listener, error) {
	if h.fd < 0 {
		return nil, errors.New("the reserved port was released")
	}
	if err := unix.Listen(h.fd, unix.SOMAXCONN); err != nil {
		return nil, os.NewSyscallError("listen", err)
	}
	f := os.NewFile(uintptr(h.fd), "kubewalk-secure-port")
	h.fd = -1
	defer f.Close() // FileListener works on a duplicate
	return net.FileListener(f)
}

// close releases the port if it was never listened on. It is safe to call more than once.
func (h *heldPort) close() {
	if h != nil && h.fd >= 0 {
		unix.Close(h.fd)
		h.fd = -1
	}
}
