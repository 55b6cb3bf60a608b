package telemetrytest

import (
	"context"
	"errors"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
)

// Guards is one guard of each kind that the Observe methods report, each
// with figures of its own.
type Guards struct {
	Breaker          *breaker.Breaker           // open: tripped by a failure, then it refused a call
	Bulkhead         *bulkhead.Bulkhead         // its one slot taken, and a queue of one
	PriorityBulkhead *bulkhead.PriorityBulkhead // of 4 slots: two low calls admitted, a third refused
	Budget           *budget.Budget             // a bucket of one token: one retry admitted
	Throttle         *throttle.Throttle         // a failed request, then a rejected one
	Limiter          *limiter.Limiter           // a limit of 1: one call in flight, a second refused
	Shared           *Shared                    // on its local fallback, after 3 turns to it and 2 back
}

// BusyGuards returns the Guards, made on mock clocks, so that their
// figures stay as they are.
func BusyGuards() Guards {
	ctx := context.Background()
	failed := errors.New("failed")
	g := Guards{
		Breaker:          breaker.New(breaker.WithConsecutiveFailures(1), breaker.WithClock(clock.NewMock())),
		Bulkhead:         bulkhead.New(1, bulkhead.WithQueue(1)),
		PriorityBulkhead: bulkhead.NewPriority(4),
		Budget:           budget.NewTokenBucket(budget.WithMaxTokens(1)),
		Throttle:         throttle.New(throttle.WithClock(clock.NewMock()), throttle.WithRandom(func() float64 { return 0 }), throttle.WithMaxRejection(1)),
		Limiter:          limiter.New(limiter.WithInitialLimit(1), limiter.WithClock(clock.NewMock())),
		Shared:           &Shared{Local: true, Fallbacks: 3, Recoveries: 2},
	}
	_ = g.Breaker.Run(ctx, func(context.Context) error { return failed }) // trips it
	_ = g.Breaker.Run(ctx, func(context.Context) error { return nil })    // refused
	_, _ = g.Bulkhead.Allow(ctx, guard.Call{Attempt: 1})
	for range 3 {
		_, _ = g.PriorityBulkhead.Allow(bulkhead.WithPriority(ctx, bulkhead.Low), guard.Call{Attempt: 1})
	}
	_, _ = g.Budget.Allow(ctx, guard.Call{Attempt: 2}) // admitted: the bucket is full
	if p, err := g.Throttle.Allow(ctx, guard.Call{Attempt: 1}); err == nil {
		g.Throttle.Record(p, guard.Outcome{Err: failed}) // 1 request, no accept
	}
	_, _ = g.Throttle.Allow(ctx, guard.Call{Attempt: 1}) // rejected: 2 requests
	_, _ = g.Limiter.Allow(ctx, guard.Call{Attempt: 1})
	_, _ = g.Limiter.Allow(ctx, guard.Call{Attempt: 1}) // refused: over the limit
	return g
}
