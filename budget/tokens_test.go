package budget

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/herdsafe/backoff/guard"
)

// TestTokenBucketThresholds checks, for several figures, the exact number
// of failures after which retries stop and of successes after which they
// resume.
func TestTokenBucketThresholds(t *testing.T) {
	cases := []struct {
		name      string
		opts      []Option
		failures  int // from full: retries stop after exactly this many
		successes int // then: retries resume after exactly this many
	}{
		// 10 tokens, threshold 5: 5 failures leave 5, not above it; one
		// success gives 5.1.
		{"defaults", nil, 5, 1},
		// 4 tokens, threshold 2: 2 failures leave 2.
		{"max_4", []Option{WithMaxTokens(4)}, 2, 1},
		// 3 tokens, threshold 1.5: 2 failures leave 1; 0.2 a success: 3
		// successes give 1.6.
		{"max_3_ratio_0.2", []Option{WithMaxTokens(3), WithTokenRatio(0.2)}, 2, 3},
		// 100 tokens, threshold 50: 50 failures; 0.5 a success needs 1.
		{"max_100_ratio_0.5", []Option{WithMaxTokens(100), WithTokenRatio(0.5)}, 50, 1},
		// A ratio of 1 token: as many successes as it takes to pass half.
		{"max_2_ratio_1", []Option{WithMaxTokens(2), WithTokenRatio(1)}, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewTokenBucket(tc.opts...)
			for i := range tc.failures {
				if !admits(t, b, retry) {
					t.Fatalf("retry refused after %d failures, want admitted until %d", i, tc.failures)
				}
				fail(b, 1)
			}
			if admits(t, b, retry) {
				t.Fatalf("retry admitted after %d failures (tokens %v)", tc.failures, b.Stats().Tokens)
			}
			for i := range tc.successes {
				if admits(t, b, retry) {
					t.Fatalf("retry admitted after %d successes, want refused until %d", i, tc.successes)
				}
				succeed(b, 1)
			}
			if !admits(t, b, retry) {
				t.Fatalf("retry refused after %d successes (tokens %v)", tc.successes, b.Stats().Tokens)
			}
		})
	}
}

// TestTokenBucketFirstAttempts checks that an empty bucket still admits
// first attempts, and that they cost nothing.
func TestTokenBucketFirstAttempts(t *testing.T) {
	b := NewTokenBucket()
	fail(b, 100)
	if got := b.Stats().Tokens; got != 0 {
		t.Fatalf("tokens after 100 failures = %v, want 0 (the floor)", got)
	}
	for i := range 10 {
		if !admits(t, b, first) {
			t.Fatalf("first attempt %d refused by an empty bucket", i)
		}
		if !admits(t, b, guard.Call{}) {
			t.Fatalf("attempt 0 (a guard outside any retry stage, misnumbered) refused")
		}
	}
	if admits(t, b, guard.Call{Attempt: 7}) {
		t.Fatal("retry admitted by an empty bucket")
	}
	if s := b.Stats(); s.Allowed != 0 || s.Refused != 1 {
		t.Fatalf("Stats = %+v, want 0 retries allowed and 1 refused", s)
	}
}

// TestTokenBucketFloorAndCap checks that the count stays in [0, max]: from
// the floor, resuming takes the successes that reach the threshold from 0.
func TestTokenBucketFloorAndCap(t *testing.T) {
	b := NewTokenBucket() // 10 tokens, 0.1 a success
	succeed(b, 50)
	if got := b.Stats().Tokens; got != 10 {
		t.Fatalf("tokens after successes on a full bucket = %v, want 10", got)
	}
	fail(b, 20)
	// From 0, 51 successes give 5.1, the first count above 5.
	succeed(b, 50)
	if got := b.Stats().Tokens; got != 5 {
		t.Fatalf("tokens after 50 successes from 0 = %v, want 5", got)
	}
	if admits(t, b, retry) {
		t.Fatal("retry admitted at exactly half the capacity")
	}
	succeed(b, 1)
	if !admits(t, b, retry) {
		t.Fatalf("retry refused at %v tokens", b.Stats().Tokens)
	}
}

// TestTokenBucketDecimals checks that figures keep three decimal places,
// as gRPC's do, exactly.
func TestTokenBucketDecimals(t *testing.T) {
	cases := []struct {
		ratio float64
		n     int
		want  float64
	}{
		{0.3, 10, 3},         // 0.3 is 0.2999... in float64: still 300 thousandths
		{0.0015, 1000, 1},    // 0.0015 counts as 0.001
		{0.001, 1000, 1},     // the smallest ratio
		{1.2345, 1, 1.234},   // the fourth decimal dropped
		{0.07, 100, 7},       // 0.07 is 0.07000000000000001
		{0.29, 30, 8.7},      // 0.29 is 0.28999999999999998
		{2.5, 3, 7.5},        // a ratio above 1
		{0.1, 1_000_000, 10}, // capped
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.ratio), func(t *testing.T) {
			b := NewTokenBucket(WithMaxTokens(10), WithTokenRatio(tc.ratio))
			fail(b, 10)
			succeed(b, tc.n)
			if got := b.Stats().Tokens; got != tc.want {
				t.Fatalf("tokens after %d successes of %v from 0 = %v, want %v", tc.n, tc.ratio, got, tc.want)
			}
		})
	}
}

// TestTokenBucketOutcomes checks what each kind of outcome does to the
// count.
func TestTokenBucketOutcomes(t *testing.T) {
	errBadRequest := errors.New("bad request")
	onlyDown := WithIsFailure(func(err error) bool { return errors.Is(err, errDown) })
	refusal := refusalOutcome(t)
	cases := []struct {
		name string
		opts []Option
		o    guard.Outcome
		want float64 // tokens after the outcome, from 6
	}{
		{"success", nil, guard.Outcome{}, 6.1},
		{"failure", nil, guard.Outcome{Err: errDown}, 5},
		{"any_error_by_default", nil, guard.Outcome{Err: errBadRequest}, 5},
		{"abandoned_failure", nil, guard.Outcome{Err: errDown, Abandoned: true}, 6},
		{"abandoned_success", nil, guard.Outcome{Abandoned: true}, 6},
		{"inner_refusal", nil, refusal, 6},
		{"classified_failure", []Option{onlyDown}, guard.Outcome{Err: fmt.Errorf("wrapped: %w", errDown)}, 5},
		{"classified_not_failure", []Option{onlyDown}, guard.Outcome{Err: errBadRequest}, 6},
		{"classifier_not_asked_for_refusal", []Option{WithIsFailure(func(error) bool { return true })}, refusal, 6},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewTokenBucket(tc.opts...)
			fail(b, 4)
			b.Record(guard.Permit{}, tc.o)
			if got := b.Stats().Tokens; got != tc.want {
				t.Fatalf("tokens = %v, want %v", got, tc.want)
			}
		})
	}
}

// refusalOutcome returns the Outcome a guard sees when a guard inside it
// refused the call, as guard.Run (and so a policy) makes it.
func refusalOutcome(t *testing.T) guard.Outcome {
	t.Helper()
	var got guard.Outcome
	spy := &spyGuard{record: func(o guard.Outcome) { got = o }}
	inner := NewTokenBucket(WithMaxTokens(1))
	fail(inner, 1)
	_ = guard.Run(t.Context(), spy, first, func(ctx context.Context) error {
		return guard.Run(ctx, retryOnly{inner}, first, func(context.Context) error { return nil })
	})
	if !guard.IsRefusal(got.Err) {
		t.Fatalf("the spy recorded %v, want a refusal", got.Err)
	}
	return got
}

// TestTokenBucketClassifierPanics checks that a classifier that panics
// leaves the count as it was and the panic goes on.
func TestTokenBucketClassifierPanics(t *testing.T) {
	b := NewTokenBucket(WithIsFailure(func(error) bool { panic("classifier") }))
	func() {
		defer func() {
			if r := recover(); r != "classifier" {
				t.Fatalf("recovered %v, want the classifier's panic", r)
			}
		}()
		fail(b, 1)
	}()
	if got := b.Stats().Tokens; got != 10 {
		t.Fatalf("tokens = %v, want 10", got)
	}
	succeed(b, 1) // still usable
}

// TestTokenBucketConcurrent checks exact counts under concurrent records
// and admissions.
func TestTokenBucketConcurrent(t *testing.T) {
	const n = 64
	b := NewTokenBucket(WithMaxTokens(1000), WithTokenRatio(0.5))
	concurrently(n, 10, func() { b.Record(guard.Permit{}, guard.Outcome{Err: errDown}) })
	if got := b.Stats().Tokens; got != 1000-10*n {
		t.Fatalf("tokens after %d failures = %v, want %v", 10*n, got, 1000-10*n)
	}
	// 360 tokens, under the threshold of 500: every retry refused.
	admitAll := func() { concurrently(n, 10, func() { _, _ = b.Allow(t.Context(), retry) }) }
	admitAll()
	if s := b.Stats(); s.Allowed != 0 || s.Refused != 10*n {
		t.Fatalf("Stats = %+v, want 0 allowed, %d refused", s, 10*n)
	}
	concurrently(n, 10, func() { b.Record(guard.Permit{}, guard.Outcome{}) })
	// 360 + 640*0.5 = 680, over 500: every retry admitted.
	admitAll()
	if s := b.Stats(); s.Tokens != 680 || s.Allowed != 10*n || s.Refused != 10*n {
		t.Fatalf("Stats = %+v, want 680 tokens, %d allowed, %d refused", s, 10*n, 10*n)
	}
}
