package bench

import (
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

// delayRow is one library's way to ask for its next delay.
type delayRow struct {
	name string
	next func() time.Duration
}

// nextDelayRows builds each library's exponential policy with jitter, in
// its own form: a method, a middleware chain or a delay function.
// failsafe-go computes its delays inside its executor and exports no way to
// ask for one, so it has no row.
func nextDelayRows(tb testing.TB) []delayRow {
	ours := backoff.NewExponentialBackOff()
	oursFull := backoff.NewExponentialBackOff(backoff.WithJitter(backoff.FullJitter))
	c5 := cenkaltiv5.NewExponentialBackOff()
	c7 := cenkaltiv7.NewExponentialBackOff()
	seth := sethretry.WithJitterPercent(50,
		sethretry.WithCappedDuration(60*time.Second, sethretry.NewExponential(500*time.Millisecond)))
	v4delay := retryv4.CombineDelay(retryv4.BackOffDelay, retryv4.RandomDelay)
	v4config := avastV4Config(tb)
	v5delay := retryv5.CombineDelay(retryv5.BackOffDelay, retryv5.RandomDelay)
	v5retrier := retryv5.New(retryv5.Attempts(maxAttempts))
	// avast/retry-go takes the attempt number; cycle it as a run of
	// retries would.
	var n4, n5 uint
	return []delayRow{
		{"herdsafe", ours.NextBackOff},
		{"herdsafe-fulljitter", oursFull.NextBackOff},
		{"cenkalti-v5", c5.NextBackOff},
		{"cenkalti-v7", c7.NextBackOff},
		{"sethvargo", func() time.Duration { d, _ := seth.Next(); return d }},
		{"avast-v4", func() time.Duration { n4 = n4%8 + 1; return v4delay(n4, errSentinel, v4config) }},
		{"avast-v5", func() time.Duration { n5 = n5%8 + 1; return v5delay(n5, errSentinel, v5retrier) }},
	}
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

// avastV4Config returns the *retry.Config that avast/retry-go v4 builds
// for a call with its default delays. Its fields are unexported, so it is
// taken from a delay function during a real call.
func avastV4Config(tb testing.TB) *retryv4.Config {
	var config *retryv4.Config
	_ = retryv4.Do(func() error { return errSentinel },
		retryv4.Attempts(2),
		retryv4.DelayType(func(_ uint, _ error, c *retryv4.Config) time.Duration {
			config = c
			return 0
		}))
	if config == nil {
		tb.Fatal("avast/retry-go v4 never asked for a delay")
	}
	return config
}
