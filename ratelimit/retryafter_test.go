package ratelimit_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/ratelimit"
)

// retryAfter returns the wait err's RetryAfter method names, as a server's
// shedding middleware reads it; it fails the test if err has none.
func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	var ra interface{ RetryAfter() time.Duration }
	if !errors.As(err, &ra) {
		t.Fatalf("%v has no RetryAfter method", err)
	}
	return ra.RetryAfter()
}

// A refusal says how long until the Limiter has a token, from the moment
// it is asked.
func TestRefusalSaysWhenTheNextTokenComes(t *testing.T) {
	l, clk := newLimiter(t, 0.1, 1) // a token every 10 s
	ctx := context.Background()
	admitted(t, l, ctx)
	_, err := l.Allow(ctx, guard.Call{Attempt: 1})
	if !errors.Is(err, ratelimit.ErrRateLimited) {
		t.Fatalf("Allow = %v, want ErrRateLimited", err)
	}
	if got := retryAfter(t, err); got != 10*time.Second {
		t.Errorf("RetryAfter = %v, want 10s", got)
	}
	clk.Add(4 * time.Second)
	if got := retryAfter(t, l.Run(ctx, func(context.Context) error { return nil })); got != 6*time.Second {
		t.Errorf("4 s later, through Run: RetryAfter = %v, want 6s", got)
	}
	clk.Add(6 * time.Second)
	if got := retryAfter(t, err); got != 0 {
		t.Errorf("once the token is there: RetryAfter = %v, want 0", got)
	}
}

// A call refused because its token is further than the longest wait says
// when its token would have come, the tokens the calls waiting reserved
// counted.
func TestRefusalAfterAWaitSaysWhenTheNextTokenComes(t *testing.T) {
	l, _ := newLimiter(t, 0.5, 1, ratelimit.WithMaxWait(time.Second)) // a token every 2 s
	ctx := context.Background()
	admitted(t, l, ctx)
	_, err := l.Allow(ctx, guard.Call{Attempt: 1})
	if !errors.Is(err, ratelimit.ErrRateLimited) {
		t.Fatalf("Allow = %v, want ErrRateLimited: its token is 2 s away", err)
	}
	if got := retryAfter(t, err); got != 2*time.Second {
		t.Errorf("RetryAfter = %v, want 2s", got)
	}
}

// A tiny rate saturates rather than overflows.
func TestRefusalOfATinyRate(t *testing.T) {
	l, _ := newLimiter(t, 1e-300, 1)
	admitted(t, l, context.Background())
	_, err := l.Allow(context.Background(), guard.Call{Attempt: 1})
	if got := retryAfter(t, err); got != math.MaxInt64 {
		t.Errorf("RetryAfter = %v, want the largest Duration", got)
	}
}

// Refusing allocates nothing, nor does reading the refusal's wait.
func TestRefusalAllocatesNothing(t *testing.T) {
	l, _ := newLimiter(t, 1, 1)
	ctx := context.Background()
	admitted(t, l, ctx)
	var ra interface{ RetryAfter() time.Duration }
	if n := testing.AllocsPerRun(1000, func() {
		_, err := l.Allow(ctx, guard.Call{Attempt: 1})
		if err == nil {
			t.Fatal("admitted")
		}
		ra, _ = err.(interface{ RetryAfter() time.Duration })
		_ = ra.RetryAfter()
	}); n != 0 {
		t.Errorf("%v allocations per refusal, want 0", n)
	}
}
