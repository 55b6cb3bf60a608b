package breaker_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
)

func TestOpenError(t *testing.T) {
	for _, c := range []struct {
		err  *breaker.OpenError
		msg  string
		wait time.Duration
	}{
		{&breaker.OpenError{State: breaker.Open, Duration: 1500 * time.Millisecond}, "breaker: circuit open for 1.5s", 1500 * time.Millisecond},
		{&breaker.OpenError{State: breaker.HalfOpen}, "breaker: circuit half-open, its probes taken", 0},
	} {
		if got := c.err.Error(); got != c.msg {
			t.Errorf("Error() = %q, want %q", got, c.msg)
		}
		if got := c.err.RetryAfter(); got != c.wait {
			t.Errorf("RetryAfter() = %v, want %v", got, c.wait)
		}
		wrapped := fmt.Errorf("calling the dependency: %w", c.err)
		if !errors.Is(wrapped, breaker.ErrCircuitOpen) {
			t.Errorf("%v does not match ErrCircuitOpen", wrapped)
		}
		if errors.Is(c.err, errBoom) {
			t.Errorf("%v matches an unrelated error", c.err)
		}
	}
}

// The decision documented on OpenError: it names no wait for a retry
// driver, and a driver around Run stops at the refusal at once, without
// waiting for the breaker to half-open.
func TestOpenErrorNamesNoWait(t *testing.T) {
	clk := newMock()
	b := tripped(t, clk, time.Minute)
	ran := false
	err := backoff.DoErr(t.Context(), func(ctx context.Context) error {
		return b.Run(ctx, func(context.Context) error { ran = true; return nil })
	}, backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5), backoff.WithClock(clk))
	var be *backoff.Error
	if !errors.As(err, &be) || !errors.Is(be.Cause, breaker.ErrCircuitOpen) || !errors.Is(be.Cause, backoff.ErrRefused) {
		t.Fatalf("DoErr = %v, want an *Error whose Cause is the breaker's refusal", err)
	}
	if ran || be.Attempts != 0 || b.Counts().Rejections != 1 {
		t.Fatalf("fn ran %v, %d attempts, %d rejections; want the driver stopped at the first refusal",
			ran, be.Attempts, b.Counts().Rejections)
	}
	var ra *backoff.RetryAfterError
	if errors.As(err, &ra) {
		t.Fatalf("the refusal names a wait of %v", ra.Duration)
	}
}
