package classroom

import (
	"sync"
	"time"
)

// RateLimit bounds wrong join codes. Each wrong code takes a token from the source address's
// bucket and from the global bucket; a hello arriving while either bucket is empty is refused
// without looking at its code (a right code included), with the time to wait. Right codes take
// nothing, so a class joining at once is never limited.
type RateLimit struct {
	// PerIP is the burst of wrong codes one address may send; one more is allowed every
	// PerIPEvery. Defaults: 5, every 12 s (5 a minute).
	PerIP      int
	PerIPEvery time.Duration
	// Global is the burst of wrong codes from all addresses together; one more every
	// GlobalEvery. Defaults: 30, every 2 s (30 a minute).
	Global      int
	GlobalEvery time.Duration
}

func (r RateLimit) withDefaults() RateLimit {
	if r.PerIP <= 0 {
		r.PerIP = 5
	}
	if r.PerIPEvery <= 0 {
		r.PerIPEvery = 12 * time.Second
	}
	if r.Global <= 0 {
		r.Global = 30
	}
	if r.GlobalEvery <= 0 {
		r.GlobalEvery = 2 * time.Second
	}
	return r
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

// limiter holds the buckets. Its lock is never held across I/O.
type limiter struct {
	cfg RateLimit

	mu     sync.Mutex
	perIP  map[string]*bucket
	global bucket
}

// maxTrackedIPs bounds the per-address map; full buckets are dropped when it is reached.
const maxTrackedIPs = 4096

func newLimiter(cfg RateLimit) *limiter {
	return &limiter{cfg: cfg.withDefaults(), perIP: map[string]*bucket{}}
}

// check reports whether ip may present a code now, and if not how long to wait.
func (l *limiter) check(ip string, now time.Time) (time.Duration, bool) {
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

// fail takes a token from ip's bucket and from the global one.
func (l *limiter) fail(ip string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.global.refill(now, l.cfg.Global, l.cfg.GlobalEvery)
	l.global.tokens--
	b := l.perIP[ip]
	if b == nil {
		if len(l.perIP) >= maxTrackedIPs {
			l.prune(now)
		}
		b = &bucket{}
		l.perIP[ip] = b
	}
	b.refill(now, l.cfg.PerIP, l.cfg.PerIPEvery)
	b.tokens--
}

// prune drops buckets that have refilled completely (they behave like absent ones).
func (l *limiter) prune(now time.Time) {
	for ip, b := range l.perIP {
		b.refill(now, l.cfg.PerIP, l.cfg.PerIPEvery)
		if b.tokens >= float64(l.cfg.PerIP) {
			delete(l.perIP, ip)
		}
	}
}
