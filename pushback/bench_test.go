package pushback_test

import (
	"context"
	"testing"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/pushback"
	"github.com/herdsafe/backoff/throttle"
)

// BenchmarkWait is the cost of the wait told on a refusal, for each kind
// of state read: a load (a full bulkhead), a rejection probability (a
// throttle, which reads its clock), a named wait (an open breaker), and
// nothing (the base).
func BenchmarkWait(b *testing.B) {
	ctx := context.Background()
	call := guard.Call{Attempt: 1}
	full := bulkhead.New(1)
	if _, err := full.Allow(ctx, call); err != nil {
		b.Fatal(err)
	}
	_, fullErr := full.Allow(ctx, call)
	cb := breaker.New(breaker.WithConsecutiveFailures(1))
	p, _ := cb.Allow(ctx, call)
	cb.Record(p, guard.Outcome{Err: context.DeadlineExceeded})
	_, openErr := cb.Allow(ctx, call)
	r := pushback.Rule{Base: time.Second, Max: time.Minute, Unit: time.Millisecond}
	for _, bc := range []struct {
		name    string
		g       guard.Guard
		refusal error
	}{
		{"bulkhead", full, guard.Refusal(fullErr)},
		{"throttle", throttle.New(), guard.Refusal(throttle.ErrThrottled)},
		{"breaker", cb, guard.Refusal(openErr)},
		{"other", budget.NewTokenBucket(), guard.Refusal(budget.ErrBudgetExhausted)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = r.Wait(bc.g, bc.refusal)
			}
		})
	}
}

// BenchmarkPressure is the cost of a guard's pressure, read for each
// retry a server is asked to admit: a bulkhead's, a limiter's, a
// throttle's (which reads its clock), a breaker's, and a guard that tells
// nothing.
func BenchmarkPressure(b *testing.B) {
	for _, bc := range []struct {
		name string
		g    guard.Guard
	}{
		{"bulkhead", bulkhead.New(10)},
		{"limiter", limiter.New()},
		{"throttle", throttle.New()},
		{"breaker", breaker.New()},
		{"other", budget.NewTokenBucket()},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = pushback.Pressure(bc.g)
			}
		})
	}
}
