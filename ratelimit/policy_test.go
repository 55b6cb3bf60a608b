package ratelimit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/ratelimit"
)

// Inside a retry stage the Limiter takes a token per attempt; its refusal
// stops the stage at once, with the refusal as the Cause and the last
// real error as LastErr.
func TestInsideARetryStage(t *testing.T) {
	l, _ := newLimiter(t, 1, 2)
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(5)),
		policy.Guard(l),
	)
	down := errors.New("503")
	calls := 0
	err := p.DoErr(context.Background(), func(context.Context) error { calls++; return down })
	var e *backoff.Error
	if !errors.As(err, &e) || !errors.Is(e.Cause, ratelimit.ErrRateLimited) || !errors.Is(e.Cause, backoff.ErrRefused) {
		t.Fatalf("err = %v, want an *Error whose Cause is the rate limit's refusal", err)
	}
	if e.LastErr != down || e.Attempts != 2 || calls != 2 {
		t.Errorf("LastErr %v after %d attempts (%d calls), want the 503 after the burst, 2", e.LastErr, e.Attempts, calls)
	}
}

// Outside the retry stage one token covers a call and all its retries.
func TestOutsideARetryStage(t *testing.T) {
	l, _ := newLimiter(t, 1, 1)
	p := policy.New(
		policy.Guard(l),
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithMaxTries(3)),
	)
	n := 0
	err := p.DoErr(context.Background(), func(context.Context) error {
		n++
		if n < 3 {
			return errors.New("flaky")
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("err %v after %d attempts, want success on the third under one token", err, n)
	}
	if err := p.DoErr(context.Background(), func(context.Context) error { return nil }); !errors.Is(err, ratelimit.ErrRateLimited) {
		t.Errorf("the second call = %v, want ErrRateLimited", err)
	}
}
