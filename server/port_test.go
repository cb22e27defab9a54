package server

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHeldPort: the port the config phase reserves stays this run's until the serve phase
// listens on it. Before that a client is refused, and no other socket can bind it the way an
// outgoing connection takes its local port (without SO_REUSEADDR); a port released after the
// check — kubewalk's first reservePort — failed the second point, and on a busy class host the
// serve phase then failed with "address already in use".
func TestHeldPort(t *testing.T) {
	for _, host := range []string{"127.0.0.1", "::1"} {
		t.Run(host, func(t *testing.T) {
			if host == "::1" {
				if l, err := net.Listen("tcp", "[::1]:0"); err != nil {
					t.Skipf("no IPv6 loopback here: %v", err) // the IPv4 case still runs
				} else {
					l.Close()
				}
			}
			h, err := reservePort("--secure-port", host, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer h.close()
			addr := net.JoinHostPort(host, strconv.Itoa(h.port))
			if _, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("dial %s while held: %v, want connection refused", addr, err)
			}
			// An outgoing connection's socket bound to the port, as connect() binds one.
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(host), Port: h.port}, Timeout: 5 * time.Second}
			if c, err := d.Dial("tcp", addr); err == nil || !errors.Is(err, syscall.EADDRINUSE) {
				if c != nil {
					c.Close()
				}
				t.Errorf("binding an outgoing socket to the held port: %v, want address already in use", err)
			}
			l, err := h.listen()
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if got := l.Addr().(*net.TCPAddr).Port; got != h.port {
				t.Errorf("listening on port %d, reserved %d", got, h.port)
			}
			go func() {
				if c, err := l.Accept(); err == nil {
					c.Close()
				}
			}()
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatalf("dial %s once listening: %v", addr, err)
			}
			c.Close()
			if _, err := h.listen(); err == nil {
				t.Error("a second listen on the handed-over port succeeded")
			}
		})
	}
}

// TestHeldPortBadInput: a port someone listens on, and an address that is not this machine's,
// are refused with the flag named; a released port is free again.
func TestHeldPortBadInput(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	tests := []struct {
		host string
		port int
		want string
	}{
		{"127.0.0.1", port, "--secure-port " + strconv.Itoa(port) + ": address 127.0.0.1:" + strconv.Itoa(port) + " is already in use"},
		{"192.0.2.1", 0, "--secure-port 0 / --bind-address 192.0.2.1: bind: cannot assign requested address"},
		{"nowhere", 0, `"nowhere" is not an IP address`},
	}
	for _, tt := range tests {
		h, err := reservePort("--secure-port", tt.host, tt.port)
		if err == nil {
			h.close()
			t.Errorf("reservePort(%s, %d) succeeded", tt.host, tt.port)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("reservePort(%s, %d): %v, want %q", tt.host, tt.port, err, tt.want)
		}
	}
	h, err := reservePort("--secure-port", "127.0.0.1", 0)
	if err != nil {
		t.Fatal(err)
	}
	h.close()
	h.close() // twice is fine
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(h.port)))
	if err != nil {
		t.Fatalf("the released port: %v", err)
	}
	l.Close()
}

// TestEtcdOnHeldPorts: embedded etcd binds the ports held for it (the holds are then
// released) and serves.
func TestEtcdOnHeldPorts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	e, err := startEmbeddedEtcd(ctx, t.TempDir(), true, io.Discard, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if len(e.Clients) != 1 {
		t.Fatalf("%d client listeners", len(e.Clients))
	}
	c, err := net.DialTimeout("tcp", e.Clients[0].Addr().String(), 5*time.Second)
	if err != nil {
		t.Fatalf("etcd's client port: %v", err)
	}
	c.Close()
}
