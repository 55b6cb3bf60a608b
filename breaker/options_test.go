package breaker_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

func TestInvalidOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		opt  breaker.Option
		want string // what the error must name
	}{
		{"nil_option", nil, "nil Option"},
		{"consecutive_zero", breaker.WithConsecutiveFailures(0), "WithConsecutiveFailures"},
		{"consecutive_negative", breaker.WithConsecutiveFailures(-1), "WithConsecutiveFailures"},
		{"rate_zero", breaker.WithFailureRate(0, 1, 10), "rate 0"},
		{"rate_above_one", breaker.WithFailureRate(1.5, 1, 10), "rate 1.5"},
		{"rate_nan", breaker.WithFailureRate(math.NaN(), 1, 10), "rate NaN"},
		{"rate_min_calls_zero", breaker.WithFailureRate(0.5, 0, 10), "minCalls 0"},
		{"rate_window_below_min_calls", breaker.WithFailureRate(0.5, 20, 10), "fewer than minCalls"},
		{"rate_window_too_large", breaker.WithFailureRate(0.5, 1, breaker.MaxWindowCalls+1), "at most"},
		{"rate_over_nan", breaker.WithFailureRateOver(math.NaN(), 1, time.Second), "WithFailureRateOver"},
		{"rate_over_inf", breaker.WithFailureRateOver(math.Inf(1), 1, time.Second), "rate +Inf"},
		{"rate_over_min_calls", breaker.WithFailureRateOver(0.5, 0, time.Second), "minCalls 0"},
		{"rate_over_short_period", breaker.WithFailureRateOver(0.5, 1, time.Millisecond), "period 1ms"},
		{"rate_over_negative_period", breaker.WithFailureRateOver(0.5, 1, -time.Second), "period -1s"},
		{"open_negative", breaker.WithOpenDuration(-time.Second), "WithOpenDuration"},
		{"backoff_nil", breaker.WithOpenBackOff(nil), "nil BackOff"},
		{"backoff_typed_nil", breaker.WithOpenBackOff((*backoff.ExponentialBackOff)(nil)), "WithOpenBackOff"},
		{"backoff_invalid", breaker.WithOpenBackOff(backoff.NewConstantBackOff(-time.Second)), "Interval is negative"},
		{"half_open_no_successes", breaker.WithHalfOpen(1, 0), "0 successes"},
		{"half_open_probes_below_successes", breaker.WithHalfOpen(1, 2), "1 probes, fewer than the 2"},
		{"half_open_too_many", breaker.WithHalfOpen(math.MaxInt32+1, 1), "at most"},
		{"classifier_nil", breaker.WithIsFailure(nil), "WithIsFailure"},
		{"hook_nil", breaker.WithStateChange(nil), "WithStateChange"},
		{"clock_nil", breaker.WithClock(nil), "WithClock"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := breaker.New(c.opt)
			wantUnusable(t, b, guardtest.Invalid(t, b, c.want))
		})
	}
}

// wantUnusable checks that b refuses every call with err.
func wantUnusable(t *testing.T, b *breaker.Breaker, err error) {
	t.Helper()
	guardtest.Refuses(t, b, err)
	b.Record(guard.Permit{Token: 1}, guard.Outcome{})
	wantState(t, b, breaker.Open)
	if c := b.Counts(); c.Successes != 0 || c.Rejections != 0 {
		t.Fatalf("counts %+v", c)
	}
}

func TestFirstInvalidOptionIsReported(t *testing.T) {
	b := breaker.New(breaker.WithOpenDuration(-1), breaker.WithClock(nil))
	if err := b.Validate(); !strings.Contains(err.Error(), "WithOpenDuration") {
		t.Fatalf("Validate() = %v, want the first bad option", err)
	}
}

func TestZeroBreaker(t *testing.T) {
	var b breaker.Breaker
	err := b.Validate()
	if !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Fatalf("Validate() = %v", err)
	}
	wantUnusable(t, &b, err)
	var nilBreaker *breaker.Breaker
	if err := nilBreaker.Validate(); !errors.Is(err, backoff.ErrInvalidConfiguration) {
		t.Errorf("a nil *Breaker: Validate() = %v, want ErrInvalidConfiguration", err)
	}
	guardtest.FailsPolicy(t, nilBreaker)
}

func TestValidBreakerValidates(t *testing.T) {
	if err := breaker.New().Validate(); err != nil {
		t.Fatalf("Validate() = %v", err)
	}
}

func TestDefaults(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()))
	calls(t, b, breaker.DefaultConsecutiveFailures-1, errBoom)
	wantState(t, b, breaker.Closed)
	calls(t, b, 1, errBoom)
	if oe := refused(t, b); oe.Duration != breaker.DefaultOpenDuration {
		t.Fatalf("open for %v, want %v", oe.Duration, breaker.DefaultOpenDuration)
	}
}

func TestDefaultHalfOpenAdmitsOneProbe(t *testing.T) {
	clk := newMock()
	b := breaker.New(breaker.WithClock(clk), breaker.WithConsecutiveFailures(1))
	calls(t, b, 1, errBoom)
	clk.Add(breaker.DefaultOpenDuration)
	p := admit(t, b)
	refused(t, b)
	b.Record(p, guard.Outcome{})
	wantState(t, b, breaker.Closed)
}

func TestLastTripRuleWins(t *testing.T) {
	b := breaker.New(breaker.WithClock(newMock()),
		breaker.WithFailureRate(0.5, 2, 2), breaker.WithConsecutiveFailures(3))
	calls(t, b, 2, errBoom) // would trip the rate rule
	wantState(t, b, breaker.Closed)
	calls(t, b, 1, errBoom)
	wantState(t, b, breaker.Open)
}

// cloned is a BackOff that counts the copies made of it.
type cloned struct {
	copies int
}

func (c *cloned) NextBackOff() time.Duration { return time.Second }
func (c *cloned) Reset()                     {}
func (c *cloned) Clone() backoff.BackOff {
	c.copies++
	return &cloned{}
}

func TestOptionReusedGivesEachBreakerACopy(t *testing.T) {
	bo := &cloned{}
	opt := breaker.WithOpenBackOff(bo)
	clk := newMock()
	b1, b2 := tripped(t, clk, 0, opt), tripped(t, clk, 0, opt)
	if bo.copies != 2 {
		t.Fatalf("the BackOff given was copied %d times for two breakers, want 2", bo.copies)
	}
	if oe1, oe2 := refused(t, b1), refused(t, b2); oe1.Duration != time.Second || oe2.Duration != time.Second {
		t.Fatalf("open for %v and %v, want 1s", oe1.Duration, oe2.Duration)
	}
}
