package etcdview

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Event is one change of one key.
type Event struct {
	// Deleted is true for a deletion.
	Deleted bool
	// Key is the key as written: for a put its new metadata and value size; for a deletion
	// the key, with ModRevision the deletion's revision and Size 0.
	Key Key
}

// Change is what Watch delivers: every change since the previous Change, coalesced — one
// event per key, the last one — in key order.
type Change struct {
	Events []Event
	// Revision is the highest etcd revision the watch had reported when the change was
	// taken.
	Revision int64
	// Err is set on the last Change of a watch that ended on its own: etcd compacted the
	// revisions it needed, or the server closed (then errors.Is(Err, server.ErrClosed)).
	// Events may still hold the changes before the end. List again, and watch from the new
	// tree's Revision.
	Err error
}

// Watch watches every key under the prefix, and compact_rev_key, for changes after revision
// afterRevision (a Tree's Revision). The channel delivers coalesced Changes: the watch keeps
// reading etcd whatever the consumer does, merging what the consumer has not taken yet, so a
// slow consumer never blocks it, and takes all that piled up at its next receive. The channel
// is closed after a Change with Err, or when ctx is done or the explorer is closed; either
// stops the watch and its goroutines.
func (x *Explorer) Watch(ctx context.Context, afterRevision int64) (<-chan Change, error) {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil, fmt.Errorf("etcd watch: %w", ErrClosed)
	}
	x.wg.Add(2)
	x.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(x.ctx, cancel)
	from := clientv3.WithRev(afterRevision + 1)
	root := x.layout.root
	objects := x.etcd.Watch(ctx, root, clientv3.WithPrefix(), from)
	compaction := x.etcd.Watch(ctx, compactRevKey, from)
	m := &mailbox{pending: map[string]Event{}, signal: make(chan struct{}, 1)}
	out := make(chan Change)
	go func() {
		defer x.wg.Done()
		// Why etcd closed a watch: Get says ErrClosed when the server is closed.
		probe := func() error {
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			_, err := x.etcd.Get(pctx, compactRevKey, clientv3.WithCountOnly())
			return err
		}
		pump(ctx, m, afterRevision, objects, compaction, root, probe)
	}()
	go func() {
		defer x.wg.Done()
		defer stop()
		defer cancel() // ends the etcd watches when the watch failed
		defer close(out)
		deliver(ctx, m, out)
	}()
	return out, nil
}

// errWatchEnded is the cause of a watch that etcd closed without an error of its own; the
// etcd client does so when it is closed, i.e. when the server is.
var errWatchEnded = errors.New("etcd closed the watch")

// pump reads the two etcd watches into the mailbox until ctx is done or a watch fails. probe
// tells why etcd closed a watch.
func pump(ctx context.Context, m *mailbox, after int64, objects, compaction clientv3.WatchChan, root string, probe func() error) {
	for {
		var resp clientv3.WatchResponse
		var ok bool
		name := root
		select {
		case <-ctx.Done():
			return
		case resp, ok = <-objects:
		case resp, ok = <-compaction:
			name = compactRevKey
		}
		if ctx.Err() != nil {
			return // a cancelled watch closes its channel: no failure
		}
		err := resp.Err()
		if !ok {
			err = errWatchEnded
		}
		if err != nil && resp.CompactRevision == 0 {
			if perr := probe(); perr != nil {
				err = fmt.Errorf("%w: %w", err, perr)
			}
		}
		if err != nil {
			m.fail(fmt.Errorf("etcd watch %s from revision %d: %w", name, after+1, err))
			return
		}
		evs := make([]Event, 0, len(resp.Events))
		for _, ev := range resp.Events {
			evs = append(evs, Event{Deleted: ev.Type == clientv3.EventTypeDelete, Key: keyOf(ev.Kv, len(ev.Kv.Value))})
		}
		m.add(evs, resp.Header.Revision)
	}
}

// deliver sends what the mailbox holds each time it is signalled, until ctx is done or it has
// sent the change that carries the watch's error.
func deliver(ctx context.Context, m *mailbox, out chan<- Change) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.signal:
		}
		c := m.take()
		if len(c.Events) == 0 && c.Err == nil {
			continue
		}
		select {
		case out <- c:
		case <-ctx.Done():
			return
		}
		if c.Err != nil {
			return
		}
	}
}

// mailbox holds the events the consumer has not taken yet, one per key.
type mailbox struct {
	mu      sync.Mutex
	pending map[string]Event
	rev     int64
	err     error
	signal  chan struct{} // capacity 1: "something to take"
}

func (m *mailbox) add(evs []Event, rev int64) {
	m.mu.Lock()
	for _, ev := range evs {
		m.pending[ev.Key.Key] = ev
	}
	m.rev = max(m.rev, rev)
	m.mu.Unlock()
	m.notify()
}

func (m *mailbox) fail(err error) {
	m.mu.Lock()
	m.err = err
	m.mu.Unlock()
	m.notify()
}

func (m *mailbox) notify() {
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

// take empties the mailbox into a Change.
func (m *mailbox) take() Change {
	m.mu.Lock()
	c := Change{Revision: m.rev, Err: m.err}
	c.Events = make([]Event, 0, len(m.pending))
	for _, ev := range m.pending {
		c.Events = append(c.Events, ev)
	}
	m.pending = make(map[string]Event)
	m.mu.Unlock()
	sortEvents(c.Events)
	return c
}
