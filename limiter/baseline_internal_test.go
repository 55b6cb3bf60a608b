package limiter

import (
	"testing"
	"time"
)

// server is a dependency that serves capacity calls at once in service
// time each, and shares itself among more: n calls in flight take
// service × n/capacity each.
func server(service time.Duration, capacity, n int) float64 {
	return float64(service) * max(1, float64(n)/float64(capacity))
}

// A Limiter that starts above its dependency's capacity (the default
// initial limit of 20 against a server that takes 8 at once) learns the
// true no-load latency by probing at a low limit (WithProbeInterval), rather than taking the
// loaded latency of its first windows as the baseline, and brings the
// limit down to the capacity, for both rules. Run in virtual time: the
// windows' ends are given.
func TestStartAboveCapacityLearnsTheNoLoadLatency(t *testing.T) {
	const service, capacity = 10 * time.Millisecond, 8
	for _, rule := range []Option{WithGradient(DefaultTolerance), WithVegas(DefaultAlpha, DefaultBeta)} {
		c := newConfig([]Option{rule, WithProbeInterval(time.Minute)})
		if c.err != nil {
			t.Fatal(c.err)
		}
		var e estimate
		e.init(&c)
		limit, now := c.initial, int64(0)
		var probes int
		for range 3000 { // five minutes of 100 ms windows
			lat := server(service, capacity, limit)
			now += max(int64(c.window), int64(lat))
			if limit < 4 {
				probes++
			}
			limit = e.update(now, window{latency: lat, peak: float64(limit)})
		}
		if got := time.Duration(e.noLoad()); got > service*11/10 {
			t.Errorf("%d: the no-load latency learned is %v, want the server's %v", c.algorithm, got, service)
		}
		if limit > capacity*3/2 || limit < capacity/2 {
			t.Errorf("%d: the limit is %d after five minutes, want about the capacity, %d", c.algorithm, limit, capacity)
		}
		if probes == 0 || probes > 20 {
			t.Errorf("%d: %d probe windows in five minutes, want a few", c.algorithm, probes)
		}
	}
}
