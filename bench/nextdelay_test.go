package bench

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	retryv4 "github.com/avast/retry-go/v4"
	retryv5 "github.com/avast/retry-go/v5"
	cenkaltiv5 "github.com/cenkalti/backoff/v5"
	cenkaltiv7 "github.com/cenkalti/backoff/v7"
	"github.com/herdsafe/backoff"
	sethretry "github.com/sethvargo/go-retry"
)

// sink keeps the delays alive, so that no computation is optimized away.
var sink time.Duration

// parallelSink is sink for goroutines that run at once: each adds its own
// total once, at its end, so that no shared write sits in the loop.
var parallelSink atomic.Int64

// delayRow is one library's way to ask for its next delay.
type delayRow struct {
	name string
	next func() time.Duration
}

// delayMaker builds, on each call, a new policy value of one library,
// with no state shared with the values it built before, and returns the
// way to ask it for its next delay. Each draws from the library's default
// random source.
type delayMaker struct {
	name string
	make func() (func() time.Duration, error)
}

// delayMakers build each library's exponential policy with jitter, in its
// own form: a method, a middleware chain or a delay function. failsafe-go
// computes its delays inside its executor and exports no way to ask for
// one, so it has no row.
//
// The random sources drawn from: math/rand/v2's top-level functions for
// herdsafe, cenkalti and sethvargo; math/rand's top-level functions for
// avast/retry-go.
var delayMakers = []delayMaker{
	{"herdsafe", func() (func() time.Duration, error) {
		return backoff.NewExponentialBackOff().NextBackOff, nil
	}},
	{"herdsafe-fulljitter", func() (func() time.Duration, error) {
		b := backoff.NewExponentialBackOff()
		b.Jitter = backoff.FullJitter
		return b.NextBackOff, nil
	}},
	{"cenkalti-v5", func() (func() time.Duration, error) {
		return cenkaltiv5.NewExponentialBackOff().NextBackOff, nil
	}},
	{"cenkalti-v7", func() (func() time.Duration, error) {
		return cenkaltiv7.NewExponentialBackOff().NextBackOff, nil
	}},
	{"sethvargo", func() (func() time.Duration, error) {
		seth := sethretry.WithJitterPercent(50,
			sethretry.WithCappedDuration(60*time.Second, sethretry.NewExponential(500*time.Millisecond)))
		return func() time.Duration { d, _ := seth.Next(); return d }, nil
	}},
	{"avast-v4", func() (func() time.Duration, error) {
		delay := retryv4.CombineDelay(retryv4.BackOffDelay, retryv4.RandomDelay)
		config, err := avastV4Config()
		if err != nil {
			return nil, err
		}
		// avast/retry-go takes the attempt number; cycle it as a run of
		// retries would.
		var n uint
		return func() time.Duration { n = n%8 + 1; return delay(n, errSentinel, config) }, nil
	}},
	{"avast-v5", func() (func() time.Duration, error) {
		delay := retryv5.CombineDelay(retryv5.BackOffDelay, retryv5.RandomDelay)
		retrier := retryv5.New(retryv5.Attempts(maxAttempts))
		var n uint
		return func() time.Duration { n = n%8 + 1; return delay(n, errSentinel, retrier) }, nil
	}},
}

// nextDelayRows builds one policy value of each library.
func nextDelayRows(tb testing.TB) []delayRow {
	rows := make([]delayRow, 0, len(delayMakers))
	for _, m := range delayMakers {
		next, err := m.make()
		if err != nil {
			tb.Fatalf("%s: %v", m.name, err)
		}
		rows = append(rows, delayRow{m.name, next})
	}
	return rows
}

// BenchmarkNextDelay is the cost of one next delay from an exponential
// policy with jitter. Every row is called through a func value, so each
// pays the same indirect call.
func BenchmarkNextDelay(b *testing.B) {
	for _, r := range nextDelayRows(b) {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = r.next()
			}
		})
	}
}

// BenchmarkParallelNextDelay is NextDelay from every P at once, each
// goroutine with a policy value of its own, so that the only state the
// goroutines can share is the library's random source. Run it with
// -cpu 1,2: a random source with no global lock costs no more per delay
// at -cpu 2 than at -cpu 1.
func BenchmarkParallelNextDelay(b *testing.B) {
	for _, m := range delayMakers {
		b.Run(m.name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				next, err := m.make()
				if err != nil {
					b.Error(err)
					return
				}
				var total time.Duration
				for pb.Next() {
					total += next()
				}
				parallelSink.Add(int64(total))
			})
		})
	}
}

// avastV4Config returns the *retry.Config that avast/retry-go v4 builds
// for a call with its default delays. Its fields are unexported, so it is
// taken from a delay function during a real call.
func avastV4Config() (*retryv4.Config, error) {
	var config *retryv4.Config
	_ = retryv4.Do(func() error { return errSentinel },
		retryv4.Attempts(2),
		retryv4.DelayType(func(_ uint, _ error, c *retryv4.Config) time.Duration {
			config = c
			return 0
		}))
	if config == nil {
		return nil, errors.New("avast/retry-go v4 never asked for a delay")
	}
	return config, nil
}
