package sshclass

import (
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Limits on connections that have not authenticated yet. An SSH connection costs a descriptor
// and a goroutine from accept on; before these limits, 3,000 connections that each sent a byte
// now and then (which kept wish's idle timeout from firing) held 3,000 descriptors for as long
// as they liked. Now a connection has authDeadline from accept to open its session — a
// deadline set on the socket that no traffic moves — and at most maxPendingPerIP connections
// from one address and maxPending in all may be on their way in at once; one more is closed at
// accept. A class behind one NAT address connecting at once stays well under the per-address
// bound (key authentication takes well under a second), and a student typing the class
// password has a minute.
const (
	defaultMaxPending      = 128
	defaultMaxPendingPerIP = 32
	keyAuthDeadline        = 20 * time.Second
	passwordAuthDeadline   = time.Minute
)

// gate counts the connections that have not opened a session yet.
type gate struct {
	perIP, total int
	deadline     time.Duration
	refused      func(ip string, total bool) // told of each connection closed at accept

	mu      sync.Mutex
	pending int
	byIP    map[string]int
}

func newGate(perIP, total int, deadline time.Duration, refused func(string, bool)) *gate {
	return &gate{perIP: perIP, total: total, deadline: deadline, refused: refused, byIP: map[string]int{}}
}

// admit counts conn in and gives it its deadline, or returns nil when the address or the class
// has too many connections on their way in already.
func (g *gate) admit(conn net.Conn) *gatedConn {
	ip := hostOf(conn.RemoteAddr())
	g.mu.Lock()
	if g.pending >= g.total || g.byIP[ip] >= g.perIP {
		total := g.pending >= g.total
		g.mu.Unlock()
		g.refused(ip, total)
		return nil
	}
	g.pending++
	g.byIP[ip]++
	g.mu.Unlock()
	c := &gatedConn{Conn: conn, g: g, ip: ip, deadline: time.Now().Add(g.deadline)}
	_ = conn.SetDeadline(c.deadline)
	return c
}

// release counts a connection out.
func (g *gate) release(ip string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending--
	if g.byIP[ip]--; g.byIP[ip] <= 0 {
		delete(g.byIP, ip)
	}
}

// counts returns the connections on their way in, in all and from ip.
func (g *gate) counts(ip string) (total, fromIP int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending, g.byIP[ip]
}

// gatedConn is a connection on its way in: until authenticated is called every deadline set on
// it is cut to the one it got at accept, so the ssh package's idle timeout, which moves the
// deadline on every read and write, cannot keep a trickling connection open.
type gatedConn struct {
	net.Conn
	g        *gate
	ip       string
	deadline time.Time

	mu       sync.Mutex
	through  bool // authenticated, or closed: the slot is given back
	released bool
}

// cut returns t, or the accept deadline if t is later (or none) and the connection has not
// authenticated yet.
func (c *gatedConn) cut(t time.Time) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.through && (t.IsZero() || t.After(c.deadline)) {
		return c.deadline
	}
	return t
}

// SetDeadline implements net.Conn.
func (c *gatedConn) SetDeadline(t time.Time) error { return c.Conn.SetDeadline(c.cut(t)) }

// SetReadDeadline implements net.Conn.
func (c *gatedConn) SetReadDeadline(t time.Time) error { return c.Conn.SetReadDeadline(c.cut(t)) }

// SetWriteDeadline implements net.Conn.
func (c *gatedConn) SetWriteDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(c.cut(t)) }

// authenticated lifts the accept deadline and gives the slot back: the connection opened a
// session, which SSH allows only after authentication.
func (c *gatedConn) authenticated() {
	c.mu.Lock()
	first := !c.through
	c.through = true
	c.mu.Unlock()
	if first {
		c.releaseOnce()
		_ = c.Conn.SetDeadline(time.Time{}) // the ssh package sets its idle deadline next
	}
}

// Close implements net.Conn.
func (c *gatedConn) Close() error {
	c.releaseOnce()
	return c.Conn.Close()
}

func (c *gatedConn) releaseOnce() {
	c.mu.Lock()
	rel := !c.released
	c.released = true
	c.mu.Unlock()
	if rel {
		c.g.release(c.ip)
	}
}

// gateKey is where a connection's *gatedConn is kept in its ssh.Context.
type gateKey struct{}

// gateOption makes every accepted connection pass the gate.
func (s *Server) gateOption(srv *ssh.Server) error {
	srv.ConnCallback = func(ctx ssh.Context, conn net.Conn) net.Conn {
		gc := s.gate.admit(conn)
		if gc == nil {
			return nil // the ssh package closes it
		}
		ctx.SetValue(gateKey{}, gc)
		return gc
	}
	return nil
}

// sessionChannelsOnly leaves a connection nothing but "session" channels, whatever the ssh
// package's defaults: no direct-tcpip, so a student cannot reach the loopback servers of the
// others; no global requests (tcpip-forward); no subsystems (sftp). wish has no option for it.
// Opening a session is what lets a connection through the gate.
func (s *Server) sessionChannelsOnly(srv *ssh.Server) error {
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": func(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
		if gc, ok := ctx.Value(gateKey{}).(*gatedConn); ok {
			gc.authenticated()
		}
		ssh.DefaultSessionHandler(srv, conn, ch, ctx)
	}}
	srv.RequestHandlers = map[string]ssh.RequestHandler{}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	return nil
}

// hostOf is the IP of a remote address, without its port.
func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	h, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return h
}
