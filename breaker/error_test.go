package breaker_test

import (
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

// The decision documented on OpenError: it is not a Pushback.
func TestOpenErrorIsNoPushback(t *testing.T) {
	var err error = &breaker.OpenError{State: breaker.Open, Duration: time.Second}
	if _, ok := err.(backoff.Pushback); ok {
		t.Fatal("OpenError implements backoff.Pushback")
	}
}
