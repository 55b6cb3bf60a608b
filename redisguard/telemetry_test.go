package redisguard

import (
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/internal/telemetry"
)

// Every shared guard is a SharedGuard of the telemetry modules
// (otelbackoff's and prombackoff's ObserveShared, which this module does
// not import: they share the type and the reading of
// internal/telemetry), and what they read of it follows its link: local
// and a fallback once Redis failed it.
func TestTelemetryObservesEveryGuard(t *testing.T) {
	v := newVirtual()
	c := faultClient("127.0.0.1:1") // nothing listens there: each guard falls back at its first round trip
	defer c.Close()
	opts := []Option{v.option()}
	guards := map[string]telemetry.SharedGuard{
		"token bucket":           NewTokenBucket(c, name(t)+".tokens", opts...),
		"ratio budget":           NewRatio(c, name(t)+".ratio", opts...),
		"breaker, in a row":      NewBreaker(c, name(t)+".row", opts...),
		"breaker, rate of calls": NewBreaker(c, name(t)+".calls", append(opts, WithBreaker(breaker.WithFailureRate(0.5, 5, 10), breaker.WithSlowCalls(breaker.MinSlowCall, 0.5)))...),
		"breaker, rate over time": NewBreaker(c, name(t)+".time",
			append(opts, WithBreaker(breaker.WithFailureRateOver(0.5, 5, breaker.MinWindowPeriod)))...),
	}
	for what, g := range guards {
		o := telemetry.Shared(g)
		if err := o.Check(settings, what); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		values := make([]float64, len(o.Series))
		o.Read(values)
		if values[0] != 0 || values[1] != 0 {
			t.Errorf("%s before any round trip: %v, want shared, no fallback", what, values)
		}
		switch g := g.(type) {
		case *Budget:
			g.Allow(bg, retry) // a budget's round trip
		case *Breaker:
			g.Allow(bg, first) // a breaker's first
		}
		o.Read(values)
		if values[0] != 1 || values[1] != 1 || values[2] != 0 {
			t.Errorf("%s, Redis unreachable: %v, want local (1), one fallback, no recovery", what, values)
		}
	}
}
