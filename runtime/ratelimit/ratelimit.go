// Package ratelimit bounds how often a failing attempt may be repeated, per source address and
// in total, with token buckets: kubewalk's class host uses it for wrong join codes and
// `class ssh` for wrong passwords. Only failures take tokens, so the people who know the secret
// are never limited while the buckets hold tokens; while either of a source's buckets is empty
// every attempt from it is refused without being checked, with the time to wait.
package ratelimit

import (
	"sync"
	"time"
)

// Config sets the buckets' sizes and refill rates.
type Config struct {
	// PerIP is the burst of failures one address may cause; one more is allowed every
	// PerIPEvery.
	PerIP      int
	PerIPEvery time.Duration
	// Global is the burst of failures from all addresses together; one more every
	// GlobalEvery.
	Global      int
	GlobalEvery time.Duration
}

// bucket is a token bucket refilled one token per every, up to burst.
type bucket struct {
	tokens float64
	last   time.Time
}

func (b *bucket) refill(now time.Time, burst int, every time.Duration) {
	if b.last.IsZero() {
		b.tokens, b.last = float64(burst), now
		return
	}
	if now.After(b.last) {
		b.tokens += float64(now.Sub(b.last)) / float64(every)
		if b.tokens > float64(burst) {
			b.tokens = float64(burst)
		}
		b.last = now
	}
}

// wait is how long until the bucket holds a whole token.
func (b *bucket) wait(every time.Duration) time.Duration {
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(every))
}

// Limiter holds the buckets. Its lock is never held across I/O; its methods may be called from
// any goroutine.
type Limiter struct {
	cfg Config

	mu     sync.Mutex
	perIP  map[string]*bucket
	global bucket
}

// MaxTrackedIPs bounds the per-address map; buckets that have refilled completely (and so
// behave like absent ones) are dropped when it is reached.
const MaxTrackedIPs = 4096

// New returns a Limiter with cfg, whose fields must all be positive.
func New(cfg Config) *Limiter {
	return &Limiter{cfg: cfg, perIP: map[string]*bucket{}}
}

// Check reports whether ip may make an attempt now, and if not how long to wait.
func (l *Limiter) Check(ip string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.global.refill(now, l.cfg.Global, l.cfg.GlobalEvery)
	wait := l.global.wait(l.cfg.GlobalEvery)
	if b := l.perIP[ip]; b != nil {
		b.refill(now, l.cfg.PerIP, l.cfg.PerIPEvery)
		wait = max(wait, b.wait(l.cfg.PerIPEvery))
	}
	return wait, wait == 0
}

// Fail takes a token from ip's bucket and from the global one.
func (l *Limiter) Fail(ip string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.global.refill(now, l.cfg.Global, l.cfg.GlobalEvery)
	l.global.tokens--
	b := l.perIP[ip]
	if b == nil {
		if len(l.perIP) >= MaxTrackedIPs {
			l.prune(now)
		}
		b = &bucket{}
		l.perIP[ip] = b
	}
	b.refill(now, l.cfg.PerIP, l.cfg.PerIPEvery)
	b.tokens--
}

// Tracked is the number of addresses with a bucket of their own.
func (l *Limiter) Tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.perIP)
}

// prune drops buckets that have refilled completely.
func (l *Limiter) prune(now time.Time) {
	for ip, b := range l.perIP {
		b.refill(now, l.cfg.PerIP, l.cfg.PerIPEvery)
		if b.tokens >= float64(l.cfg.PerIP) {
			delete(l.perIP, ip)
		}
	}
}
