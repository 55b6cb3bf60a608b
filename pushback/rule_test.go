package pushback_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardstate"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/pushback"
	"github.com/herdsafe/backoff/throttle"
)

// fixed returns a random source that always draws u.
func fixed(u float64) func() float64 { return func() float64 { return u } }

// exact is a Rule whose wait is the guard's, unspread, to the nanosecond.
func exact(base time.Duration) pushback.Rule {
	return pushback.Rule{Base: base, Max: time.Hour, Unit: time.Nanosecond, Random: fixed(0)}
}

// named is a refusal of a guard of the test's own that names its wait.
type named time.Duration

func (n named) Error() string             { return "refused for " + time.Duration(n).String() }
func (n named) RetryAfter() time.Duration { return time.Duration(n) }

// An open breaker asks for the time until it admits a probe, the base at
// least; half-open with its probe taken, the base.
func TestBreaker(t *testing.T) {
	cb, clk, err := guardstate.OpenBreaker(t, 30*time.Second, 10500*time.Millisecond)
	if got := exact(time.Second).Wait(cb, guard.Refusal(err)); got != 19500*time.Millisecond {
		t.Errorf("open: Wait = %v, want the 19.5s left of the open duration", got)
	}
	if got := exact(25*time.Second).Wait(cb, err); got != 25*time.Second {
		t.Errorf("open, a base of 25s: Wait = %v, want the base", got)
	}
	clk.Add(time.Minute)
	if _, err := cb.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err) // the probe
	}
	_, err = cb.Allow(context.Background(), guard.Call{Attempt: 1})
	if got := exact(time.Second).Wait(cb, err); !errors.Is(err, breaker.ErrCircuitOpen) || got != time.Second {
		t.Errorf("half-open: %v, Wait = %v; want a refusal and the base", err, got)
	}
}

// A full bulkhead asks for the base times (in flight + queued) ÷
// capacity.
func TestBulkhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := bulkhead.New(2, bulkhead.WithQueue(3))
		release, err := guardstate.Crowd(t, b, 2, 3)
		defer release()
		if !errors.Is(err, bulkhead.ErrBulkheadFull) {
			t.Fatalf("the full bulkhead returned %v", err)
		}
		if got := exact(time.Second).Wait(b, guard.Refusal(err)); got != 2500*time.Millisecond {
			t.Errorf("2 in flight and 3 queued for 2 slots: Wait = %v, want 1s × 5/2", got)
		}
	})
	// Full with nobody queued: a load of 1, the base.
	b := bulkhead.New(1)
	if _, err := b.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := b.Allow(context.Background(), guard.Call{Attempt: 1})
	if got := exact(time.Second).Wait(b, err); got != time.Second {
		t.Errorf("full, nobody queued: Wait = %v, want the base", got)
	}
	// Its slot freed since the refusal: the load is below 1, the base.
	b.Record(guard.Permit{}, guard.Outcome{})
	if got := exact(time.Second).Wait(b, err); got != time.Second {
		t.Errorf("emptied since: Wait = %v, want the base", got)
	}
}

// A limiter at its limit asks for the base times (in flight + queued) ÷
// its current limit.
func TestLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := limiter.New(limiter.WithInitialLimit(4), limiter.WithQueue(2))
		release, err := guardstate.Crowd(t, l, 4, 2)
		defer release()
		if !errors.Is(err, limiter.ErrLimitExceeded) {
			t.Fatalf("the limiter at its limit returned %v", err)
		}
		if got := exact(200*time.Millisecond).Wait(l, guard.Refusal(err)); got != 300*time.Millisecond {
			t.Errorf("4 in flight and 2 queued for a limit of 4: Wait = %v, want 200ms × 6/4", got)
		}
	})
}

// A throttle asks for the base ÷ (1 − p).
func TestThrottle(t *testing.T) {
	clk := clock.NewMock()
	// It admits while its draw is at least p: 9 failures make p = 9/10.
	th := throttle.New(throttle.WithClock(clk), throttle.WithRandom(fixed(0.99999)), throttle.WithMaxRejection(1)) // the book's rule, uncapped
	for range 9 {
		p, err := th.Allow(context.Background(), guard.Call{Attempt: 1})
		if err != nil {
			t.Fatal(err)
		}
		th.Record(p, guard.Outcome{Err: errors.New("failed")})
	}
	if p := th.Stats().Probability; math.Abs(p-0.9) > 1e-9 {
		t.Fatalf("the rejection probability is %v, want 0.9", p)
	}
	r := exact(100 * time.Millisecond)
	r.Unit = time.Millisecond // 1/(1 − 0.9) is 10 to within a rounding
	if got := r.Wait(th, throttle.ErrThrottled); got != time.Second {
		t.Errorf("p = 0.9: Wait = %v, want 100ms / (1 − 0.9)", got)
	}
	r.Max = 500 * time.Millisecond
	if got := r.Wait(th, throttle.ErrThrottled); got != r.Max {
		t.Errorf("p = 0.9, a maximum of 500ms: Wait = %v, want the maximum", got)
	}
	// An error that is not the throttle's rejection tells nothing more.
	if got := r.Wait(th, errors.New("other")); got != 100*time.Millisecond {
		t.Errorf("another refusal: Wait = %v, want the base", got)
	}
}

// A refusal that names its wait asks for it, the base at least, wherever
// it is in the chain; any other guard asks for the base.
func TestNamedAndOther(t *testing.T) {
	bud := budget.NewTokenBucket()
	for _, c := range []struct {
		name    string
		refusal error
		want    time.Duration
	}{
		{"named", named(7 * time.Second), 7 * time.Second},
		{"named_short", named(time.Millisecond), time.Second},
		{"named_zero", named(0), time.Second},
		{"named_negative", named(-time.Hour), time.Second},
		{"wrapped", fmt.Errorf("shed: %w", named(3*time.Second)), 3 * time.Second},
		{"refusal", guard.Refusal(named(3 * time.Second)), 3 * time.Second},
		{"joined", errors.Join(errors.New("first"), named(4*time.Second)), 4 * time.Second},
		{"retry_after_error", backoff.RetryAfter(time.Minute, errors.New("x")), time.Minute}, // the core's named wait has the method too
		{"budget", budget.ErrBudgetExhausted, time.Second},
		{"nil", nil, time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := exact(time.Second).Wait(bud, c.refusal); got != c.want {
				t.Errorf("Wait = %v, want %v", got, c.want)
			}
		})
	}
	if got := exact(time.Second).Wait(nil, nil); got != time.Second {
		t.Errorf("a nil guard: Wait = %v, want the base", got)
	}
}

// The wait is spread uniformly over [d, 2d + Unit), cut down to whole
// Units, at least d rounded up to one, and at most Max.
func TestSpread(t *testing.T) {
	sec, ms := time.Second, time.Millisecond
	for _, c := range []struct {
		name      string
		base, max time.Duration
		unit      time.Duration
		u         float64
		want      time.Duration
	}{
		{"s_bottom", sec, 2 * time.Minute, sec, 0, sec},
		{"s_low", sec, 2 * time.Minute, sec, 0.49, sec},
		{"s_half", sec, 2 * time.Minute, sec, 0.5, 2 * sec},
		{"s_top", sec, 2 * time.Minute, sec, 0.99, 2 * sec},
		{"s_three", 3 * sec, 2 * time.Minute, sec, 0.5, 5 * sec},       // 3 + 0.5 × 4
		{"s_three_top", 3 * sec, 2 * time.Minute, sec, 0.999, 6 * sec}, // 2 × 3
		{"s_rounded_up", 1500 * ms, 2 * time.Minute, sec, 0, 2 * sec},
		{"s_spread_of_a_fraction", 1500 * ms, 2 * time.Minute, sec, 0.9, 3 * sec},      // 1.5 + 0.9 × 2.5 = 3.75
		{"s_spread_of_a_fraction_top", 1500 * ms, 2 * time.Minute, sec, 0.99, 3 * sec}, // 1.5 + 0.99 × 2.5 = 3.975
		{"s_long", 20 * sec, 2 * time.Minute, sec, 0.99, 40 * sec},                     // 20 + 0.99 × 21
		{"s_long_mid", 20 * sec, 2 * time.Minute, sec, 0.5, 30 * sec},                  // 20 + 0.5 × 21
		{"s_capped", 20 * sec, 22 * sec, sec, 0.99, 22 * sec},
		{"s_max_cut_down", sec, 2500 * ms, sec, 0.99, 2 * sec},
		{"ms_bottom", sec, 30 * sec, ms, 0, sec},
		{"ms_half", sec, 30 * sec, ms, 0.5, 1500 * ms},
		{"ms_top", sec, 30 * sec, ms, 0.9999999, 2 * sec},
		{"ms_capped", 20 * sec, 30 * sec, ms, 0.9, 30 * sec},
		{"draw_above_one", sec, 2 * time.Minute, sec, 5, 2 * sec},
		{"draw_one", sec, 2 * time.Minute, sec, 1, 2 * sec},
		{"draw_negative", sec, 2 * time.Minute, sec, -1, sec},
		{"draw_nan", sec, 2 * time.Minute, sec, math.NaN(), sec},
		{"draw_inf", sec, 2 * time.Minute, sec, math.Inf(1), 2 * sec},
		{"draw_minus_inf", sec, 2 * time.Minute, sec, math.Inf(-1), sec},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := pushback.Rule{Base: c.base, Max: c.max, Unit: c.unit, Random: fixed(c.u)}
			if err := r.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := r.Wait(budget.NewTokenBucket(), budget.ErrBudgetExhausted); got != c.want {
				t.Errorf("Wait = %v, want %v", got, c.want)
			}
		})
	}
}

// For every draw the wait stays within its bounds, and with the default
// random source each whole wait the spread allows is told.
func TestSpreadBounds(t *testing.T) {
	for _, base := range []time.Duration{time.Second, 1500 * time.Millisecond, 7 * time.Second, 40 * time.Second} {
		r := pushback.Rule{Base: base, Max: time.Minute, Unit: time.Second}
		lo := (base + time.Second - 1) / time.Second * time.Second
		hi := min(2*base+time.Second, time.Minute) // exclusive, unless capped
		seen := map[time.Duration]bool{}
		for range 2000 {
			d := r.Wait(nil, nil)
			if d < lo || d > hi || d == hi && hi != time.Minute || d%time.Second != 0 {
				t.Fatalf("base %v: Wait = %v, want whole seconds in [%v, %v)", base, d, lo, hi)
			}
			seen[d] = true
		}
		want := int((hi-lo)/time.Second) + map[bool]int{true: 1}[hi == time.Minute]
		if len(seen) != want {
			t.Errorf("base %v: told %d different waits, want %d", base, len(seen), want)
		}
	}
}

// Validate names the field at fault; a Rule it rejects waits 0.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		r     pushback.Rule
		field string
	}{
		{"zero", pushback.Rule{}, "Rule.Unit"},
		{"negative_unit", pushback.Rule{Base: time.Second, Max: time.Second, Unit: -1}, "Rule.Unit"},
		{"base_below_unit", pushback.Rule{Base: time.Millisecond, Max: time.Second, Unit: time.Second}, "Rule.Base"},
		{"max_below_base", pushback.Rule{Base: time.Second, Max: time.Millisecond, Unit: time.Millisecond}, "Rule.Max"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.r.Validate()
			if !errors.Is(err, backoff.ErrInvalidConfiguration) || !strings.Contains(err.Error(), c.field) {
				t.Errorf("Validate = %v, want an invalid configuration naming %s", err, c.field)
			}
			if got := c.r.Wait(nil, nil); got != 0 {
				t.Errorf("Wait = %v, want 0", got)
			}
		})
	}
	if err := (pushback.Rule{Base: time.Second, Max: time.Second, Unit: time.Second}).Validate(); err != nil {
		t.Errorf("a valid Rule: %v", err)
	}
}

// Huge waits saturate at Max; nothing overflows or panics.
func TestHugeWaits(t *testing.T) {
	top := math.Nextafter(1, 0)
	for _, c := range []struct {
		name string
		r    pushback.Rule
		err  error
		u    float64
		want time.Duration
	}{
		{"named_max_duration", pushback.Rule{Base: time.Second, Max: time.Minute, Unit: time.Second}, named(math.MaxInt64), 0, time.Minute},
		{"max_duration_everywhere", pushback.Rule{Base: math.MaxInt64, Max: math.MaxInt64, Unit: time.Nanosecond}, nil, top, math.MaxInt64},
		{"spread_past_the_top", pushback.Rule{Base: math.MaxInt64 / 3 * 2, Max: math.MaxInt64, Unit: time.Nanosecond}, nil, top, math.MaxInt64},
		{"spread_to_the_top", pushback.Rule{Base: math.MaxInt64 / 2, Max: math.MaxInt64, Unit: time.Nanosecond}, nil, top, math.MaxInt64 - 1}, // 2d, the last below 2d + Unit
		{"unspread_near_the_top", pushback.Rule{Base: math.MaxInt64 / 3 * 2, Max: math.MaxInt64, Unit: time.Nanosecond}, nil, 0, math.MaxInt64 / 3 * 2},
		{"huge_unit", pushback.Rule{Base: math.MaxInt64, Max: math.MaxInt64, Unit: math.MaxInt64}, nil, top, math.MaxInt64},
		{"whole_units_below_max", pushback.Rule{Base: time.Hour, Max: math.MaxInt64, Unit: time.Second}, named(math.MaxInt64), 0.5, math.MaxInt64 / time.Second * time.Second},
		{"huge_named_wait_in_ms", pushback.Rule{Base: time.Second, Max: math.MaxInt64, Unit: time.Millisecond}, named(math.MaxInt64 - 1), top, math.MaxInt64 / time.Millisecond * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.r.Random = fixed(c.u)
			if err := c.r.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := c.r.Wait(nil, c.err); got != c.want {
				t.Errorf("Wait = %v, want %v", got, c.want)
			}
		})
	}
}

// Wait allocates nothing, whatever it reads.
func TestWaitAllocatesNothing(t *testing.T) {
	b := bulkhead.New(1)
	if _, err := b.Allow(context.Background(), guard.Call{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	_, full := b.Allow(context.Background(), guard.Call{Attempt: 1})
	refusal := guard.Refusal(full)
	wrapped := guard.Refusal(fmt.Errorf("x: %w", named(time.Second)))
	r := pushback.Rule{Base: time.Second, Max: time.Minute, Unit: time.Millisecond}
	if n := testing.AllocsPerRun(1000, func() {
		_ = r.Wait(b, refusal)
		_ = r.Wait(b, wrapped)
	}); n != 0 {
		t.Errorf("%v allocations per Wait, want 0", n)
	}
}

// A nil guard, typed or not, of every kind whose state Wait reads, tells
// nothing: the wait is Base, with no panic.
func TestWaitOfANilGuard(t *testing.T) {
	r := exact(time.Second)
	for _, tc := range []struct {
		g       guard.Guard
		refusal error
	}{
		{nil, bulkhead.ErrBulkheadFull},
		{(*bulkhead.Bulkhead)(nil), bulkhead.ErrBulkheadFull},
		{(*limiter.Limiter)(nil), limiter.ErrLimitExceeded},
		{(*throttle.Throttle)(nil), throttle.ErrThrottled},
	} {
		if got := r.Wait(tc.g, tc.refusal); got != time.Second {
			t.Errorf("Wait(%T(nil), %v) = %v, want the base, 1s", tc.g, tc.refusal, got)
		}
	}
}
