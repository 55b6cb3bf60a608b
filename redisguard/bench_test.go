package redisguard

import (
	"testing"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

// The benchmarks put a shared guard beside the local guard of the same
// configuration, on the admitted success path (Allow and Record), serial
// and parallel, and report the round trips per call (rt/op). The server
// is on loopback, so the shared figures are the floor of a real network's.

// benchGuards returns the guards to compare, keyed by name.
func benchGuards(b *testing.B) map[string]guard.Guard {
	addr := needRedis(b)
	c := newClient(b, addr)
	opts := []Option{generous}
	return map[string]guard.Guard{
		"budget/local":               budget.NewTokenBucket(),
		"budget/shared":              NewTokenBucket(c, name(b), opts...),
		"breaker/local":              breaker.New(),
		"breaker/shared":             NewBreaker(c, name(b), opts...),
		"breaker/shared-staleness-0": NewBreaker(c, name(b)+"-0", append(opts, WithStaleness(0))...),
		"ratio/local":                budget.NewRatio(),
		"ratio/shared":               NewRatio(c, name(b)+"-ratio", opts...),
		"rate-breaker/local":         breaker.New(rate),
		"rate-breaker/shared":        NewBreaker(c, name(b)+"-rate", append(opts, WithBreaker(rate))...),
	}
}

// rate is the failure-rate rule of the benchmarks' rate breakers.
var rate = breaker.WithFailureRate(0.5, 20, 100)

var benchOrder = []string{
	"budget/local", "budget/shared", "ratio/local", "ratio/shared",
	"breaker/local", "breaker/shared", "breaker/shared-staleness-0", "rate-breaker/local", "rate-breaker/shared",
}

// BenchmarkAdmittedSuccess: one first attempt that succeeds, Allow and
// Record.
func BenchmarkAdmittedSuccess(b *testing.B) {
	guards := benchGuards(b)
	for _, n := range benchOrder {
		g := guards[n]
		b.Run(n, func(b *testing.B) {
			measure(b, g, func() {
				for b.Loop() {
					p, err := g.Allow(bg, first)
					if err != nil {
						b.Fatal(err)
					}
					g.Record(p, guard.Outcome{})
				}
			})
		})
	}
}

// BenchmarkAdmittedSuccessParallel is BenchmarkAdmittedSuccess from
// GOMAXPROCS goroutines, one shared client.
func BenchmarkAdmittedSuccessParallel(b *testing.B) {
	guards := benchGuards(b)
	for _, n := range benchOrder {
		g := guards[n]
		b.Run(n, func(b *testing.B) {
			measure(b, g, func() {
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						p, err := g.Allow(bg, first)
						if err != nil {
							b.Error(err)
							return
						}
						g.Record(p, guard.Outcome{})
					}
				})
			})
		})
	}
}

// BenchmarkRetry: a retry admitted and failed, then a first attempt that
// succeeds and gives its token back (a ratio of 1 keeps the count steady):
// two admitted calls, the budget's costliest path, two round trips.
func BenchmarkRetry(b *testing.B) {
	addr := needRedis(b)
	guards := []struct {
		name string
		g    guard.Guard
	}{
		{"budget/local", budget.NewTokenBucket(budget.WithTokenRatio(1))},
		{"budget/shared", NewTokenBucket(newClient(b, addr), name(b), WithBudget(budget.WithTokenRatio(1)), generous)},
	}
	for _, tt := range guards {
		g := tt.g
		b.Run(tt.name, func(b *testing.B) {
			measure(b, g, func() {
				for b.Loop() {
					p, err := g.Allow(bg, retry)
					if err != nil {
						b.Fatal(err)
					}
					g.Record(p, guard.Outcome{Err: errDown})
					p, _ = g.Allow(bg, first)
					g.Record(p, guard.Outcome{})
				}
			})
		})
	}
}

// measure runs loop, the loop of a benchmark of g, with its allocations
// reported, and reports the round trips per call (rt/op); a shared g must
// not have fallen back.
func measure(b *testing.B, g guard.Guard, loop func()) {
	b.ReportAllocs()
	before := benchTrips(g)
	loop()
	b.ReportMetric(float64(benchTrips(g)-before)/float64(b.N), "rt/op")
	mustShared(b, g)
}

// benchTrips returns a guard's round trips, 0 for a local one.
func benchTrips(g guard.Guard) uint64 {
	switch g.(type) {
	case *Budget, *Breaker:
		return roundTrips(g)
	}
	return 0
}

// BenchmarkRoundTrip is one PING on a client like the guards': the floor
// of any decision on the shared state, to read the others against.
func BenchmarkRoundTrip(b *testing.B) {
	c := newClient(b, needRedis(b))
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Ping(bg).Err(); err != nil {
			b.Fatal(err)
		}
	}
}
