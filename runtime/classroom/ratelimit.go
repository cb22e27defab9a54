package classroom

import (
	"time"

	"github.com/kubewalk/kubewalk/runtime/ratelimit"
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

// limiter is the class host's ratelimit.Limiter for wrong join codes.
type limiter struct{ *ratelimit.Limiter }

func newLimiter(cfg RateLimit) *limiter {
	return &limiter{ratelimit.New(ratelimit.Config(cfg.withDefaults()))}
}

// check reports whether ip may present a code now, and if not how long to wait.
func (l *limiter) check(ip string, now time.Time) (time.Duration, bool) { return l.Check(ip, now) }

// fail takes a token from ip's bucket and from the global one.
func (l *limiter) fail(ip string, now time.Time) { l.Fail(ip, now) }
