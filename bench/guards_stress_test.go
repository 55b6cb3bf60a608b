package bench

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// errStress is the failure of the stress tests' calls.
var errStress = errors.New("stress: failed")

// TestStressLimiter holds the adaptive limiter's limit fixed (floor =
// ceiling) and calls it from many goroutines: no more calls than the limit
// are ever in flight, and the limit is used.
func TestStressLimiter(t *testing.T) {
	d := stress(t)
	const limit = 20
	for _, callers := range []int{100, 1500} {
		l := limiter.New(limiter.WithFloor(limit), limiter.WithCeiling(limit), limiter.WithInitialLimit(limit))
		var inFlight, peak atomic.Int64
		adm, _, took := hammer(callers, d, 0, func(ctx context.Context, _ int) bool {
			return l.Run(ctx, func(context.Context) error {
				n := inFlight.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(100 * time.Microsecond)
				inFlight.Add(-1)
				return nil
			}) == nil
		})
		report(t, "limiter, calls in flight at most", callers, limit, float64(peak.Load()), "calls")
		t.Logf("limiter: %d calls admitted, %.0f/s", adm, float64(adm)/took.Seconds())
		if p := peak.Load(); p > limit || p < limit/2 {
			t.Errorf("limiter of %d, %d callers: at most %d calls in flight, want up to %d and at least %d", limit, callers, p, limit, limit/2)
		}
		if s := l.Stats(); s.InFlight != 0 {
			t.Errorf("limiter: %d calls still counted in flight after the run", s.InFlight)
		}
	}
}

// TestStressThrottle calls one Throttle from many goroutines, the backend
// accepting one call in three: the window counts every call and every
// accept (none lost to contention), and the share of calls rejected is
// the rule's, (requests − K·accepts) / (requests + 1).
func TestStressThrottle(t *testing.T) {
	d := stress(t)
	for _, callers := range []int{100, 1500} {
		// The book's rule, uncapped (WithMaxRejection(1)), whose share is
		// known; the window is longer than the run: nothing leaves it.
		th := throttle.New(throttle.WithWindow(time.Hour), throttle.WithMaxRejection(1))
		var made, accepted, rejected atomic.Int64
		hammer(callers, d, 0, func(context.Context, int) bool {
			n := made.Add(1)
			// Not the run's context: a call made as it ends would be
			// refused before the Throttle counts it.
			err := th.Run(context.Background(), func(context.Context) error {
				if n%3 == 0 {
					accepted.Add(1)
					return nil
				}
				return errStress
			})
			if errors.Is(err, throttle.ErrThrottled) {
				rejected.Add(1)
			}
			return err == nil
		})
		s := th.Stats()
		if s.Requests != uint64(made.Load()) || s.Accepts != uint64(accepted.Load()) || s.Rejected != uint64(rejected.Load()) {
			t.Errorf("throttle, %d callers: counted %d requests, %d accepts, %d rejected; made %d, accepted %d, rejected %d",
				callers, s.Requests, s.Accepts, s.Rejected, made.Load(), accepted.Load(), rejected.Load())
		}
		want := (float64(s.Requests) - 2*float64(s.Accepts)) / (float64(s.Requests) + 1)
		got := float64(rejected.Load()) / float64(made.Load())
		report(t, "throttle, share of calls rejected", callers, want, got, "")
		if got < want-0.05 || got > want+0.05 {
			t.Errorf("throttle, %d callers: rejected %.3f of the calls, want about %.3f", callers, got, want)
		}
	}
}

// TestStressRatioBudget asks one ratio budget for first attempts and
// retries from many goroutines: the retries admitted are exactly the
// reserve plus the ratio of the first attempts, none more, none lost.
func TestStressRatioBudget(t *testing.T) {
	d := stress(t)
	for _, callers := range []int{100, 1500} {
		b := budget.NewRatio(budget.WithWindow(time.Hour), budget.WithMinRetriesPerSecond(0.01), budget.WithRetryRatio(0.1))
		var firsts, retries atomic.Int64
		hammer(callers, d, 0, func(ctx context.Context, _ int) bool {
			p, err := b.Allow(ctx, guard.Call{Attempt: 1})
			if err != nil {
				t.Error(err)
				return false
			}
			firsts.Add(1)
			b.Record(p, guard.Outcome{Err: errStress})
			p, err = b.Allow(ctx, guard.Call{Attempt: 2})
			if err != nil {
				return false
			}
			retries.Add(1)
			b.Record(p, guard.Outcome{Err: errStress})
			return true
		})
		want := 36 + firsts.Load()/10 // 0.01/s over an hour, and 10%
		report(t, "ratio budget, retries admitted", callers, float64(want), float64(retries.Load()), "retries")
		if got := retries.Load(); got != want {
			t.Errorf("ratio budget, %d callers: %d retries admitted after %d first attempts, want %d", callers, got, firsts.Load(), want)
		}
	}
}

// TestStressTokenBucket makes many goroutines take tokens from one token
// bucket and give them back, each one failure to ten successes (a success
// gives back a tenth of a token): the count ends where it began, no
// token lost or made by contention.
func TestStressTokenBucket(t *testing.T) {
	d := stress(t)
	const callers = 300
	b := budget.NewTokenBucket(budget.WithMaxTokens(1000), budget.WithTokenRatio(0.1))
	ctx := context.Background()
	for range 500 { // down to 500: the 300 callers can neither empty nor fill it
		p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
		b.Record(p, guard.Outcome{Err: errStress})
	}
	var rounds atomic.Int64
	hammer(callers, d, 0, func(ctx context.Context, _ int) bool {
		p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
		b.Record(p, guard.Outcome{Err: errStress})
		for range 10 {
			p, _ := b.Allow(ctx, guard.Call{Attempt: 1})
			b.Record(p, guard.Outcome{})
		}
		rounds.Add(1)
		return true
	})
	got := b.Stats().Tokens
	report(t, "token bucket, tokens after the run", callers, 500, got, "tokens")
	t.Logf("token bucket: %d rounds of 11 calls", rounds.Load())
	if got != 500 {
		t.Errorf("token bucket: %v tokens after %d rounds that each take one and give one back, want 500", got, rounds.Load())
	}
}

// TestStressBreakerWindows records, from many goroutines, two calls
// failed in five on a breaker with a failure-rate rule of one half (a
// window of calls and a window of time): it never trips; and three in five
// on another: it trips. The share of failures counted is the share made.
func TestStressBreakerWindows(t *testing.T) {
	d := stress(t)
	rules := []struct {
		name string
		opt  breaker.Option
	}{
		{"count window", breaker.WithFailureRate(0.5, 100, 1000)},
		{"time window", breaker.WithFailureRateOver(0.5, 100, time.Hour)},
	}
	for _, r := range rules {
		for _, fails := range []int64{2, 3} {
			const callers = 1500
			b := breaker.New(r.opt, breaker.WithOpenDuration(time.Hour))
			var made atomic.Int64
			hammer(callers, d/2, 0, func(ctx context.Context, _ int) bool {
				n := made.Add(1)
				return b.Run(ctx, func(context.Context) error {
					if n%5 < fails {
						return errStress
					}
					return nil
				}) == nil
			})
			c := b.Counts()
			share := float64(c.Failures) / float64(c.Failures+c.Successes)
			report(t, "breaker "+r.name+", share of failures counted", callers, float64(fails)/5, share, "")
			tripped := b.State() == breaker.Open
			if tripped != (fails == 3) {
				t.Errorf("breaker %s, %d in 5 failing: open = %v, want %v (counts %+v)", r.name, fails, tripped, fails == 3, c)
			}
		}
	}
}
