package bench

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
)

// The comparisons are only fair if every library is configured alike:
// these tests check that each row succeeds at once when the operation does,
// takes exactly three attempts in ThreeAttemptsZeroDelay, and gives up after
// exactly five.

func counting(op operation) (operation, *atomic.Int64) {
	var n atomic.Int64
	return func() (int, error) {
		n.Add(1)
		return op()
	}, &n
}

func failing() (int, error) { return 0, errSentinel }

// callsOnce fails t unless each of n calls of l with an operation that
// succeeds returns its result after running it once.
func callsOnce(t *testing.T, l lib, n int) {
	t.Helper()
	for i := range n {
		op, calls := counting(succeed)
		if v, err := l.call(context.Background(), op); err != nil || v != 1 || calls.Load() != 1 {
			t.Errorf("%s: call %d gave (%d, %v) after %d runs of the operation, want (1, nil) after 1", l.name, i+1, v, err, calls.Load())
			return
		}
	}
}

// Each row of the success scenarios calls a succeeding operation once and
// returns its result; the rows of a guard that a success leaves as it was
// do so call after call.
func TestSuccessCallsOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, c := range []struct {
		name  string
		libs  []lib
		calls int
	}{
		{"retry", expoLibs, 1},
		{"retry_budget", newRetryBudgetLibs(), 1},
		{"throttle", newThrottleLibs(), 100},        // a dependency that answers every call: each admitted
		{"limiter", newLimiterLibs(), 100},          // every place comes back
		{"rate_limiter", newRateLimiterLibs(), 100}, // all under the rate
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, l := range c.libs {
				callsOnce(t, l, c.calls)
			}
		})
	}
}

func TestZeroDelayTakesThreeAttempts(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, l := range zeroLibs {
		f := &flaky{}
		op, n := counting(f.op)
		v, err := l.call(context.Background(), op)
		if err != nil || v != 1 {
			t.Errorf("%s: got (%d, %v), want (1, nil)", l.name, v, err)
		}
		if got := n.Load(); got != 3 {
			t.Errorf("%s: %d attempts, want 3", l.name, got)
		}
	}
}

// TestGivesUpAfterFiveAttempts runs the exponential configurations on
// virtual time: their waits add up to seconds.
func TestGivesUpAfterFiveAttempts(t *testing.T) {
	defer goleak.VerifyNone(t)
	check := func(t *testing.T, libs []lib) {
		for _, l := range libs {
			if l.name == "bare-direct" || strings.HasSuffix(l.name, "-nooptions") {
				continue // no retries, or no attempt budget
			}
			op, n := counting(failing)
			if _, err := l.call(context.Background(), op); err == nil {
				t.Errorf("%s: nil error from an operation that always fails", l.name)
			}
			if got := n.Load(); got != maxAttempts {
				t.Errorf("%s: %d attempts, want %d", l.name, got, maxAttempts)
			}
		}
	}
	synctest.Test(t, func(t *testing.T) { check(t, expoLibs) })
	check(t, zeroLibs)
}

// TestExponentialWaitsGrow checks that the exponential configurations
// wait, and longer each time. Each library runs an operation that fails four
// times, then succeeds, on the virtual time of testing/synctest, where an
// attempt takes no time, so the gaps between attempts are the waits
// themselves. With ±50% jitter a single wait may be shorter than the one
// before it, so the test compares the mean of each wait over many runs: it
// must be at least 1.25 times the mean of the wait before (the libraries
// multiply by 1.5 or 2). Constant waits fail it.
func TestExponentialWaitsGrow(t *testing.T) {
	const (
		runs   = 400
		waits  = maxAttempts - 1
		growth = 1.25
	)
	synctest.Test(t, func(t *testing.T) {
		for _, l := range expoLibs {
			if l.name == "bare-direct" {
				continue // it does not retry
			}
			var sum [waits]time.Duration
			for range runs {
				var at []time.Time
				op := func() (int, error) {
					at = append(at, time.Now())
					if len(at) < maxAttempts {
						return 0, errSentinel
					}
					return 1, nil
				}
				if _, err := l.call(context.Background(), op); err != nil || len(at) != maxAttempts {
					t.Fatalf("%s: %d attempts and error %v; want %d and nil", l.name, len(at), err, maxAttempts)
				}
				for i := range waits {
					sum[i] += at[i+1].Sub(at[i])
				}
			}
			var mean [waits]time.Duration
			for i := range waits {
				mean[i] = sum[i] / runs
			}
			if mean[0] <= 0 {
				t.Errorf("%s: mean first wait %v; the retries do not wait", l.name, mean[0])
			}
			for i := 1; i < waits; i++ {
				if float64(mean[i]) < growth*float64(mean[i-1]) {
					t.Errorf("%s: mean waits %v: wait %d is not %.2f times wait %d; the waits are not exponential",
						l.name, mean, i+1, growth, i)
				}
			}
			t.Logf("%s: mean waits %v", l.name, mean)
		}
	})
}

func TestWaitersReturnOnCancel(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, l := range waiterLibs {
		r := runWaiters(t, l, 200)
		if r.leaked != 0 {
			t.Errorf("%s: %v goroutines left after cancel", l.name, r.leaked)
		}
		if r.bytes <= 0 {
			t.Errorf("%s: %v bytes per waiter; the measurement is broken", l.name, r.bytes)
		}
	}
}

func TestNextDelayRows(t *testing.T) {
	for _, r := range nextDelayRows(t) {
		for i := range 20 {
			d := r.next()
			if d <= 0 || d > 2*time.Minute {
				t.Errorf("%s: delay %d is %v, outside (0, 2m]", r.name, i, d)
			}
		}
	}
}

// TestDelayMakersBuildFreshValues checks that each value a delayMaker builds
// starts its own sequence, as BenchmarkParallelNextDelay needs: over many
// fresh values, the second delay is on average at least 1.25 times the first
// (the policies grow by 1.5 or 2). Values sharing one sequence would give
// two consecutive delays from deep in it, both near the cap.
func TestDelayMakersBuildFreshValues(t *testing.T) {
	const values = 1000
	for _, m := range delayMakers {
		var first, second time.Duration
		for range values {
			next, err := m.make()
			if err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			first += next()
			second += next()
		}
		if float64(second) < 1.25*float64(first) {
			t.Errorf("%s: mean first delay %v, second %v; the values do not start afresh",
				m.name, first/values, second/values)
		}
	}
}

func TestTransportRowsSendOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv, n := newServer(t)
	defer srv.Close()
	for _, r := range transportRows {
		base := http.DefaultTransport.(*http.Transport).Clone()
		before := n.Load()
		if err := get(r.client(base), srv.URL); err != nil {
			t.Errorf("%s: %v", r.name, err)
		}
		if got := n.Load() - before; got != 1 {
			t.Errorf("%s: the server saw %d requests, want 1", r.name, got)
		}
		base.CloseIdleConnections()
	}
}
