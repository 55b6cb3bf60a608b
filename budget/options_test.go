package budget

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/guardtest"
)

// TestInvalidConfiguration checks that every bad setting is reported by
// Validate, naming the option, refuses every call, and fails a Policy
// before it runs anything.
func TestInvalidConfiguration(t *testing.T) {
	cases := []struct {
		name string
		b    *Budget
		want string // in the error
	}{
		{"max_tokens_zero", NewTokenBucket(WithMaxTokens(0)), "WithMaxTokens"},
		{"max_tokens_negative", NewTokenBucket(WithMaxTokens(-1)), "WithMaxTokens"},
		{"max_tokens_below_thousandth", NewTokenBucket(WithMaxTokens(0.0009)), "WithMaxTokens"},
		{"max_tokens_nan", NewTokenBucket(WithMaxTokens(math.NaN())), "WithMaxTokens"},
		{"max_tokens_inf", NewTokenBucket(WithMaxTokens(math.Inf(1))), "WithMaxTokens"},
		{"token_ratio_zero", NewTokenBucket(WithTokenRatio(0)), "WithTokenRatio"},
		{"token_ratio_nan", NewTokenBucket(WithTokenRatio(math.NaN())), "WithTokenRatio"},
		{"token_ratio_huge", NewTokenBucket(WithTokenRatio(2e9)), "WithTokenRatio"},
		{"failure_nil", NewTokenBucket(WithIsFailure(nil)), "WithIsFailure"},
		{"clock_nil", NewRatio(WithClock(nil)), "WithClock"},
		{"clock_nil_tokens", NewTokenBucket(WithClock(nil)), "WithClock"},
		{"option_nil", NewTokenBucket(nil), "nil"},
		{"in_flight_ratio_negative", NewInFlight(WithInFlightRatio(-0.1)), "WithInFlightRatio"},
		{"in_flight_ratio_above_1", NewInFlight(WithInFlightRatio(1.5)), "WithInFlightRatio"},
		{"in_flight_ratio_nan", NewInFlight(WithInFlightRatio(math.NaN())), "WithInFlightRatio"},
		{"min_concurrency_negative", NewInFlight(WithMinRetryConcurrency(-1)), "WithMinRetryConcurrency(-1)"},
		{"in_flight_option_to_ratio", NewRatio(WithInFlightRatio(0.2)), "WithInFlightRatio applies to an in-flight budget (NewInFlight), not to a ratio budget"},
		{"tokens_option_to_in_flight", NewInFlight(WithMaxTokens(5)), "WithMaxTokens applies to a token bucket (NewTokenBucket), not to an in-flight budget"},
		{"ratio_option_to_in_flight", NewInFlight(WithWindow(time.Second)), "WithWindow applies to a ratio budget (NewRatio), not to an in-flight budget"},
		{"window_zero", NewRatio(WithWindow(0)), "WithWindow"},
		{"window_negative", NewRatio(WithWindow(-time.Second)), "WithWindow"},
		{"window_too_short", NewRatio(WithWindow(MinWindow - 1)), "WithWindow"},
		{"min_negative", NewRatio(WithMinRetriesPerSecond(-1)), "WithMinRetriesPerSecond"},
		{"min_nan", NewRatio(WithMinRetriesPerSecond(math.NaN())), "WithMinRetriesPerSecond"},
		{"min_inf", NewRatio(WithMinRetriesPerSecond(math.Inf(1))), "WithMinRetriesPerSecond"},
		{"ratio_negative", NewRatio(WithRetryRatio(-0.1)), "WithRetryRatio"},
		{"ratio_nan", NewRatio(WithRetryRatio(math.NaN())), "WithRetryRatio"},
		{"ratio_over_1000", NewRatio(WithRetryRatio(1000.5)), "WithRetryRatio"},
		{"ratio_option_on_tokens", NewTokenBucket(WithRetryRatio(0.1)), "WithRetryRatio applies to a ratio budget"},
		{"window_option_on_tokens", NewTokenBucket(WithWindow(time.Second)), "WithWindow"},
		{"min_option_on_tokens", NewTokenBucket(WithMinRetriesPerSecond(1)), "WithMinRetriesPerSecond"},
		{"tokens_option_on_ratio", NewRatio(WithMaxTokens(5)), "WithMaxTokens applies to a token bucket"},
		{"token_ratio_on_ratio", NewRatio(WithTokenRatio(5)), "WithTokenRatio"},
		{"offset_negative", NewRatio(WithWindowOffset(-time.Nanosecond)), "WithWindowOffset"},
		{"offset_a_window", NewRatio(WithWindowOffset(DefaultWindow)), "WithWindowOffset"},
		{"offset_past_a_set_window", NewRatio(WithWindowOffset(time.Second), WithWindow(time.Second)), "shorter than the window"},
		{"offset_on_tokens", NewTokenBucket(WithWindowOffset(time.Second)), "WithWindowOffset applies to a ratio budget"},
		{"failure_on_ratio", NewRatio(WithIsFailure(func(error) bool { return true })), "WithIsFailure"},
		{"zero_value", &Budget{}, "zero"},
		{"nil", nil, "nil Budget"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			guardtest.Refuses(t, tc.b, guardtest.Invalid(t, tc.b, tc.want))
			tc.b.Record(guard.Permit{}, guard.Outcome{Err: errDown}) // no panic
			if s := tc.b.Stats(); s != (Stats{}) {
				t.Fatalf("Stats = %+v, want zero", s)
			}
		})
	}
}

// TestFirstBadOptionReported checks that the first bad setting is the one
// reported.
func TestFirstBadOptionReported(t *testing.T) {
	err := NewTokenBucket(WithTokenRatio(-1), WithMaxTokens(-1)).Validate()
	if err == nil || !strings.Contains(err.Error(), "WithTokenRatio") {
		t.Fatalf("Validate() = %v, want the WithTokenRatio error", err)
	}
}

// TestValidConfigurations checks settings at the edges of their ranges.
func TestValidConfigurations(t *testing.T) {
	cases := []struct {
		name string
		b    *Budget
	}{
		{"tokens_defaults", NewTokenBucket()},
		{"tokens_smallest", NewTokenBucket(WithMaxTokens(0.001), WithTokenRatio(0.001))},
		{"tokens_largest", NewTokenBucket(WithMaxTokens(1e9), WithTokenRatio(1e9))},
		{"tokens_with_clock", NewTokenBucket(WithClock(clock.NewMock()))},
		{"ratio_defaults", NewRatio()},
		{"ratio_min_window", NewRatio(WithWindow(MinWindow))},
		{"ratio_zeros", NewRatio(WithMinRetriesPerSecond(0), WithRetryRatio(0))},
		{"ratio_offset_largest", NewRatio(WithWindowOffset(DefaultWindow - 1))},
		{"ratio_largest", NewRatio(WithWindow(time.Hour), WithMinRetriesPerSecond(1e9), WithRetryRatio(1000))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.b.Validate(); err != nil {
				t.Fatalf("Validate() = %v", err)
			}
			if !admits(t, tc.b, first) {
				t.Fatal("first attempt refused")
			}
		})
	}
}

// TestLargestRatio checks that the largest figures do not overflow.
func TestLargestRatio(t *testing.T) {
	b, _ := newRatio(t, WithMinRetriesPerSecond(0), WithRetryRatio(1000))
	r := b.ratio
	if got := r.allowance(1 << 36); got != 1000<<36 {
		t.Fatalf("allowance(2^36) = %d, want %d", got, uint64(1000)<<36)
	}
	r.reserve = math.MaxUint64
	if got := r.allowance(1 << 36); got != math.MaxUint64 {
		t.Fatalf("allowance with a huge reserve = %d, want it saturated", got)
	}
}
