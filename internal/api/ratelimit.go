package api

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit configures the per-API-key token bucket: PerSecond requests per
// second sustained, Burst at once. PerSecond <= 0 disables limiting.
type RateLimit struct {
	PerSecond float64
	Burst     int
}

// keyLimiter keeps one token bucket per API key. Buckets idle for longer
// than idleTTL are dropped on the next sweep, so memory follows the number
// of keys in use, not the number ever seen. It is safe for concurrent use.
// Limits are per process: N API replicas allow N times the rate.
type keyLimiter struct {
	limit   rate.Limit
	burst   int
	idleTTL time.Duration

	mu        sync.Mutex
	buckets   map[int64]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newKeyLimiter(cfg RateLimit) *keyLimiter {
	burst := cfg.Burst
	if burst < 1 {
		burst = 1
	}
	return &keyLimiter{
		limit:   rate.Limit(cfg.PerSecond),
		burst:   burst,
		idleTTL: 10 * time.Minute,
		buckets: make(map[int64]*bucket),
	}
}

// allow takes one token from keyID's bucket at now. When the bucket is
// empty it takes nothing and returns how long until a token is available.
func (l *keyLimiter) allow(keyID int64, now time.Time) (bool, time.Duration) {
	if l == nil || l.limit <= 0 {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.lastSweep) > l.idleTTL {
		for id, b := range l.buckets {
			if now.Sub(b.seen) > l.idleTTL {
				delete(l.buckets, id)
			}
		}
		l.lastSweep = now
	}
	b, ok := l.buckets[keyID]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[keyID] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}
