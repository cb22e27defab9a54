package classroom

import (
	"net"
	"sync"
	"time"
)

// peer is the host's side of one student connection. What the host sends it waits here, never
// in a shared queue: the instructor's checkpoint is coalesced (only the latest is kept, and the
// latest is what matters), messages sit in a bounded queue that drops its oldest entry when
// full, and one goroutine per peer writes them with a deadline. Publish and Broadcast only take
// p.mu for an append, so a student whose link stalls never holds up the others.
type peer struct {
	conn net.Conn

	mu      sync.Mutex
	cp      *Checkpoint
	assign  *Assignment
	msgs    []Message
	queue   int
	dropped int
	final   *envelope // sent last, then the connection closes

	wake      chan struct{} // capacity 1: "there is something to send"
	closed    chan struct{}
	closeOnce sync.Once
}

func newPeer(c net.Conn, queue int) *peer {
	return &peer{conn: c, queue: queue, wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (p *peer) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *peer) setCheckpoint(cp Checkpoint) {
	p.mu.Lock()
	p.cp = &cp
	p.mu.Unlock()
	p.signal()
}

// setAssignment keeps the latest assignment to send (coalesced, like the checkpoint).
func (p *peer) setAssignment(a Assignment) {
	p.mu.Lock()
	p.assign = &a
	p.mu.Unlock()
	p.signal()
}

func (p *peer) addMessage(m Message) {
	p.mu.Lock()
	if len(p.msgs) >= p.queue {
		n := len(p.msgs) - p.queue + 1
		p.dropped += n
		p.msgs = append(p.msgs[:0], p.msgs[n:]...)
	}
	p.msgs = append(p.msgs, m)
	p.mu.Unlock()
	p.signal()
}

// finish queues a last line (bye or error); the writer sends it and closes the connection.
func (p *peer) finish(env envelope) {
	p.mu.Lock()
	if p.final == nil {
		p.final = &env
	}
	p.mu.Unlock()
	p.signal()
}

func (p *peer) droppedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

func (p *peer) close() {
	p.closeOnce.Do(func() {
		close(p.closed)
		p.conn.Close()
	})
}

// writeLoop sends what is pending, and a ping every heartbeat, until the connection ends.
func (p *peer) writeLoop(proto int, heartbeat, timeout time.Duration) {
	defer p.close()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	var buf []byte
	for {
		ping := false
		select {
		case <-p.closed:
			return
		case <-p.wake:
		case <-tick.C:
			ping = true
		}
		p.mu.Lock()
		cp, assign, msgs, final := p.cp, p.assign, p.msgs, p.final
		p.cp, p.assign, p.msgs = nil, nil, nil
		p.mu.Unlock()

		buf = buf[:0]
		var err error
		for _, m := range msgs {
			if buf, err = appendEnvelope(buf, envelope{V: proto, T: tMessage, Message: &m}); err != nil {
				return
			}
		}
		if assign != nil {
			if buf, err = appendEnvelope(buf, envelope{V: proto, T: tAssign, Assign: assign}); err != nil {
				return
			}
		}
		if cp != nil {
			if buf, err = appendEnvelope(buf, envelope{V: proto, T: tCheckpoint, Checkpoint: cp}); err != nil {
				return
			}
		}
		if ping && len(buf) == 0 {
			buf, _ = appendEnvelope(buf, envelope{V: proto, T: tPing})
		}
		if final != nil {
			final.V = proto
			if buf, err = appendEnvelope(buf, *final); err != nil {
				return
			}
			timeout = min(timeout, time.Second)
		}
		if len(buf) > 0 {
			p.conn.SetWriteDeadline(time.Now().Add(timeout))
			if _, err := p.conn.Write(buf); err != nil {
				return
			}
		}
		if final != nil {
			return
		}
	}
}
