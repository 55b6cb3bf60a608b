package breaker_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
	"github.com/herdsafe/backoff/policy"
)

// timed makes one call through b that takes d on clk and ends with err,
// and reports whether b admitted it.
func timed(b *breaker.Breaker, clk *clock.Mock, d time.Duration, err error) bool {
	p, aerr := b.Allow(context.Background(), guard.Call{Attempt: 1})
	if aerr != nil {
		return false
	}
	clk.Add(d)
	b.Record(p, guard.Outcome{Err: err})
	return true
}

// slowBreaker trips when half of the last 10 calls failed or when half
// of them took longer than a second, once there are 4.
func slowBreaker(t *testing.T, clk *clock.Mock, opts ...breaker.Option) *breaker.Breaker {
	t.Helper()
	b := breaker.New(append([]breaker.Option{
		breaker.WithClock(clk),
		breaker.WithFailureRate(0.5, 4, 10),
		breaker.WithSlowCalls(time.Second, 0.5),
	}, opts...)...)
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	return b
}

// Slow successes trip the breaker at the slow-call rate, under the
// failure-rate rule's minimum of calls; a call exactly as long as the
// threshold is not slow.
func TestSlowSuccessesTrip(t *testing.T) {
	clk := newMock()
	var ch changes
	b := slowBreaker(t, clk, breaker.WithStateChange(ch.hook))
	for _, d := range []time.Duration{time.Second, 0, 2 * time.Second} { // exactly 1 s is not slow
		if !timed(b, clk, d, nil) {
			t.Fatal("refused")
		}
	}
	wantState(t, b, breaker.Closed) // 3 calls: under the minimum of 4
	timed(b, clk, time.Second+time.Microsecond, nil)
	wantState(t, b, breaker.Open) // 2 slow of 4
	ch.want(t, "closed>open")
	if c := b.Counts(); c.Successes != 4 || c.Failures != 0 || c.Slow != 2 {
		t.Errorf("Counts = %+v, want 4 successes, 2 of them slow", c)
	}
}

// Fast calls keep the slow-call rate down: slow calls under the rate
// never trip the breaker, and leave the window as new calls come.
func TestSlowCallsUnderTheRateDoNotTrip(t *testing.T) {
	clk := newMock()
	b := slowBreaker(t, clk)
	for i := range 40 {
		d := time.Duration(0)
		if i%3 == 1 {
			d = 5 * time.Second // a third of the calls, at most 4 of any 10: slow
		}
		if !timed(b, clk, d, nil) {
			t.Fatalf("call %d refused", i+1)
		}
	}
	wantState(t, b, breaker.Closed)
	if c := b.Counts(); c.Slow != 13 {
		t.Errorf("Slow = %d, want 13", c.Slow)
	}
}

// A slow failure counts once in the window: as a failure and as slow.
// The rule is checked when a call that counts against the dependency is
// recorded, a failure or a slow call, as for the failure rate alone: a
// fast success that brings the window to its minimum does not trip it.
func TestSlowFailureCountsOnce(t *testing.T) {
	clk := newMock()
	b := slowBreaker(t, clk, breaker.WithFailureRate(0.75, 4, 10)) // replaces the rule, keeps the slow calls
	timed(b, clk, 2*time.Second, errBoom)
	timed(b, clk, 2*time.Second, nil)
	timed(b, clk, 0, nil)
	timed(b, clk, 0, nil)
	wantState(t, b, breaker.Closed) // 2 slow of 4, but the 4th was fast
	timed(b, clk, 2*time.Second, nil)
	wantState(t, b, breaker.Open) // 3 slow of 5; 1 failure of 5 is under 0.75
	if c := b.Counts(); c.Failures != 1 || c.Successes != 4 || c.Slow != 3 {
		t.Errorf("Counts = %+v, want 1 failure, 4 successes, 3 slow", c)
	}
}

// The time-based window counts slow calls too.
func TestSlowCallsOverAPeriod(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithFailureRateOver(0.5, 2, time.Minute), breaker.WithSlowCalls(time.Second, 1))
	timed(b, clk, 3*time.Second, nil)
	clk.Add(time.Minute) // the slow call leaves the window
	timed(b, clk, 3*time.Second, nil)
	wantState(t, b, breaker.Closed) // 1 call in the window
	timed(b, clk, 3*time.Second, nil)
	wantState(t, b, breaker.Open) // 2 of 2 slow
}

// Half-open, a slow probe reopens the breaker; a fast one closes it.
func TestSlowProbeReopens(t *testing.T) {
	clk := newMock()
	var ch changes
	b := slowBreaker(t, clk, breaker.WithOpenDuration(time.Minute), breaker.WithStateChange(ch.hook))
	for range 4 {
		timed(b, clk, 0, errBoom)
	}
	wantState(t, b, breaker.Open)
	clk.Add(time.Minute)
	if !timed(b, clk, 2*time.Second, nil) { // the probe succeeds, slowly
		t.Fatal("the probe was refused")
	}
	wantState(t, b, breaker.Open)
	clk.Add(time.Minute)
	timed(b, clk, time.Millisecond, nil)
	wantState(t, b, breaker.Closed)
	ch.want(t, "closed>open", "open>half-open", "half-open>open", "open>half-open", "half-open>closed")
}

// A call that counts neither way is not measured: an abandoned slow call
// is not slow.
func TestAbandonedSlowCallIsNeutral(t *testing.T) {
	clk := newMock()
	b := slowBreaker(t, clk)
	for range 4 {
		p := admit(t, b)
		clk.Add(time.Hour)
		b.Record(p, guard.Outcome{Err: context.Canceled, Abandoned: true})
	}
	wantState(t, b, breaker.Closed)
	if c := b.Counts(); c.Neutral != 4 || c.Slow != 0 {
		t.Errorf("Counts = %+v, want 4 neutral, none slow", c)
	}
}

// With the slow-call rule a Permit still names its period: a record of a
// call admitted before a change of state, or a Permit the breaker did not
// issue, counts for nothing.
func TestSlowRuleKeepsStaleRecordsOut(t *testing.T) {
	clk := newMock()
	b := slowBreaker(t, clk, breaker.WithOpenDuration(0))
	late := admit(t, b)
	for range 4 {
		timed(b, clk, 0, errBoom)
	}
	probe := admit(t, b) // open for 0: half-open, and this is the probe
	b.Record(late, guard.Outcome{})
	b.Record(guard.Permit{}, guard.Outcome{})
	if c := b.Counts(); c.Ignored != 2 {
		t.Fatalf("Counts = %+v, want the late record and the zero Permit ignored", c)
	}
	wantState(t, b, breaker.HalfOpen)
	b.Record(probe, guard.Outcome{})
	wantState(t, b, breaker.Closed)
}

// A slow call through a policy: the function's own time, measured on the
// breaker's clock, trips it.
func TestSlowCallsThroughAPolicy(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithFailureRate(1, 3, 3), breaker.WithSlowCalls(500*time.Millisecond, 1))
	p := policy.New(policy.Guard(b))
	slow := func(context.Context) error { clk.Add(time.Second); return nil }
	for range 3 {
		if err := p.DoErr(context.Background(), slow); err != nil {
			t.Fatal(err)
		}
	}
	err := p.DoErr(context.Background(), slow)
	if !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("the fourth call = %v, want ErrCircuitOpen after three slow successes", err)
	}
}

// The slow-call rule's settings are checked: a duration below a
// microsecond, a rate out of (0, 1], and the rule without a failure-rate
// rule's window are invalid, whatever the order of the options.
func TestSlowCallsInvalid(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []breaker.Option
		want string
	}{
		{"zero_duration", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(0, 0.5)}, "WithSlowCalls was given the duration 0s"},
		{"negative_duration", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(-time.Second, 0.5)}, "duration -1s"},
		{"nanoseconds", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(999, 0.5)}, "at least 1µs"},
		{"rate_zero", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(time.Second, 0)}, "rate 0"},
		{"rate_nan", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(time.Second, math.NaN())}, "rate NaN"},
		{"rate_above_one", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(time.Second, 1.01)}, "rate 1.01"},
		{"rate_inf", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(time.Second, math.Inf(1))}, "rate +Inf"},
		{"no_window", []breaker.Option{breaker.WithSlowCalls(time.Second, 0.5)}, "needs a failure-rate rule"},
		{"consecutive_last", []breaker.Option{breaker.WithFailureRate(0.5, 1, 10), breaker.WithSlowCalls(time.Second, 0.5), breaker.WithConsecutiveFailures(3)}, "needs a failure-rate rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := breaker.New(c.opts...)
			wantUnusable(t, b, guardtest.Invalid(t, b, c.want))
		})
	}
	for _, opts := range [][]breaker.Option{
		{breaker.WithSlowCalls(time.Second, 0.5), breaker.WithFailureRate(0.5, 1, 10)},
		{breaker.WithSlowCalls(breaker.MinSlowCall, 1), breaker.WithFailureRateOver(0.5, 1, time.Second)},
	} {
		if err := breaker.New(opts...).Validate(); err != nil {
			t.Errorf("Validate() = %v, want a valid breaker", err)
		}
	}
}

// With the slow-call rule the success path still allocates nothing.
func TestSlowRuleSuccessAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	for _, rule := range []breaker.Option{breaker.WithFailureRate(0.5, 10, 100), breaker.WithFailureRateOver(0.5, 10, time.Minute)} {
		b := breaker.New(rule, breaker.WithSlowCalls(time.Second, 0.5))
		if allocs := guardtest.AdmittedAllocs(t, 1000, b, ctx); allocs != 0 {
			t.Errorf("an admitted success allocates %v times, want 0", allocs)
		}
	}
}
