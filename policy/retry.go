package policy

import (
	"context"
	"errors"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// Retry returns a retry stage: it runs the stages inside it again, as the
// options say, until they succeed. It is a backoff.Retrier, the driver of
// package backoff with its options built once, and so the same loop as
// backoff.Do, with defaults chosen for a fleet rather than Retry's:
//
//   - The waits are DefaultBackOff: full jitter, which spreads a fleet that
//     failed together the widest.
//   - At most DefaultMaxTries (3) attempts, so that in an outage the stage
//     multiplies the load on the dependency by 3 at most.
//   - No WithMaxElapsedTime, so that a successful call reads no clock:
//     bound the time with the caller's deadline or a Timeout stage around
//     the retry stage, which no wait is started past.
//
// Options given replace them: WithMaxTries(0) removes the attempt limit,
// WithMaxElapsedTime(d) adds a time budget counted from the stage's start,
// WithBackOff another schedule. A guard inside the stage sees each
// attempt's number (guard.Call.Attempt), and its refusal stops the stage at
// once: the Cause is the refusal, LastErr the last error of an attempt that
// ran.
//
// A guard is asked to admit a retry after the wait before it, unless it can
// answer before the wait (it implements guard.Prechecker, as a
// token-bucket retry budget and a breaker forced open do): then it is asked when the attempt
// before has failed, and its refusal stops the stage without a wait, as
// its refusal after the wait would have, Cause and LastErr alike. The
// waits it cuts short are reported to Notify and to instrumenters as waits
// of zero. Such guards are those of the stages inside this one, up to a
// nested retry stage (whose guards see its own attempts) or a fallback
// (which could serve the refusal); a guard whose answer the wait may
// change (a breaker open for a time, a rate limiter, a bulkhead, a
// throttle, a ratio retry budget) is asked after the wait only. See guard.Prechecker.
func Retry(opts ...backoff.RetryOption) Stage {
	all := append([]backoff.RetryOption{
		backoff.WithBackOff(DefaultBackOff()),
		backoff.WithMaxTries(DefaultMaxTries),
		backoff.WithMaxElapsedTime(0),
	}, opts...)
	r := backoff.NewRetrier(all...)
	return Stage{kind: retryStage, retrier: r, err: r.Validate()}
}

// DefaultMaxTries is the attempt budget of a retry stage that is given
// none.
const DefaultMaxTries = 3

// DefaultBackOff returns the BackOff of a retry stage that is given none:
// full jitter, each wait drawn uniformly from [0, nominal], where the
// nominal interval starts at 100 ms and doubles after each retry, capped at
// 5 s.
func DefaultBackOff() *backoff.ExponentialBackOff {
	return &backoff.ExponentialBackOff{
		InitialInterval:     100 * time.Millisecond,
		RandomizationFactor: backoff.DefaultRandomizationFactor, // for RandomizationJitter, should Jitter be changed
		Multiplier:          2,
		MaxInterval:         5 * time.Second,
		Jitter:              backoff.FullJitter,
	}
}

// retry runs the rest of the stages under the retry stage s. With no
// stage inside it, each attempt is the function itself; otherwise the
// attempt's number is kept for the guards inside.
func (c *call) retry(ctx context.Context, a backoff.Attempt, s *Stage, rest []Stage) error {
	if s.kinds != nil {
		return c.retryByKind(ctx, a, s, rest)
	}
	if len(rest) == 0 {
		return s.retrier.Attempts(ctx, c.fn)
	}
	var refused error // a guard's refusal of the next attempt, before the wait
	err := s.retrier.Attempts(ctx, func(ctx context.Context, a backoff.Attempt) error {
		if refused != nil {
			return refused
		}
		err := c.run(ctx, a, rest)
		if err != nil {
			err, refused = precheck(ctx, err, rest, a.Number+1)
		}
		return err
	})
	return err
}

// precheck asks the guards of the stages inside a retry stage (rest, up
// to a nested retry stage or a fallback) that answer before the wait
// (guard.Prechecker) whether they refuse attempt next, after an attempt
// that returned err. If one does, it returns err with a wait of zero (so
// that the retry stage does not wait for an attempt that cannot be made)
// and the refusal, which the next attempt returns at once without running
// anything: the stage then stops, its Cause the refusal and its LastErr
// err, as if the guard had refused after the wait. It asks nothing about
// an error that stops the stage anyway (a refusal, a Permanent error, a
// cancellation of retries, or a context done), and returns err unchanged
// and nil if no guard refuses.
func precheck(ctx context.Context, err error, rest []Stage, next int) (error, error) {
	if ctx.Err() != nil || errors.Is(err, backoff.ErrRefused) || errors.Is(err, backoff.ErrPermanent) || errors.Is(err, backoff.ErrRetriesCanceled) {
		return err, nil
	}
	for i := range rest {
		s := &rest[i]
		switch s.kind {
		case retryStage, fallbackStage:
			return err, nil
		case guardStage:
			if p, ok := s.v.(guard.Prechecker); ok {
				if r := p.Precheck(guard.Call{Attempt: next}); r != nil {
					// A wait the error named is replaced, not wrapped: what
					// the error says of itself (LastErr, what a Notify hook
					// reads) is what it said before.
					if ra, ok := err.(*backoff.RetryAfterError); ok {
						err = ra.Unwrap()
					}
					return backoff.RetryAfter(0, err), guard.Refusal(r)
				}
			}
		}
	}
	return err, nil
}
