package policy

import (
	"context"
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

// retry runs the retry stage that ends segment k: each of its attempts
// runs segment k+1 in the attempt's own frame (its steps, what ends it,
// its steps in reverse), reading the attempt's facts from the driver. An
// attempt that fails is judged by the stage's limits by kind, and the
// guards that answer before the wait are asked about the next (see judge).
func (c *call) retry(p *Policy, ctx context.Context, k int) error {
	s := &p.segs[k]
	var refused error     // a guard's refusal of the next attempt, before the wait
	var tries *kindCounts // the failed attempts by kind, made at the first counted
	return s.retry.Attempts(ctx, func(actx context.Context, a backoff.Attempt) (err error) {
		if refused != nil {
			return refused
		}
		in, ctx := &p.segs[k+1], actx
		var f frame
		if len(in.steps) > 0 {
			defer func() {
				if f.pos > 0 { // a panic is going through
					in.release(&f)
				}
			}()
			ctx, err = in.enter(ctx, a, &f)
		}
		if err == nil {
			switch in.end {
			case endFn:
				err = c.fn(ctx, a)
			case endRetry:
				err = c.retry(p, ctx, k+1)
			default:
				err = c.run(p, ctx, a, k+2)
			}
		}
		if f.pos > 0 {
			err = c.leave(in, &f, err)
		}
		if err != nil && (s.kinds != nil || len(s.prechecks) > 0) {
			err, refused = s.judge(actx, err, a.Number+1, &tries)
		}
		return err
	})
}

// judge returns the error of an attempt of s's retry stage that failed
// with err, and the refusal of the next attempt, next, by a guard that
// answers before the wait. It asks nothing about an error that stops the
// stage anyway (a refusal, a Permanent error, a cancellation of retries,
// or any error once ctx is done).
//
// With limits by kind (RetryByKind), err is counted in tries: if it is the
// last its kind may have, it comes back marked Permanent in a
// *KindExhaustedError, and the stage stops. Otherwise the stage's
// prechecks are asked, in order: if one refuses the next attempt, err
// comes back with a wait of zero (so that the stage does not wait for an
// attempt that cannot be made), and the refusal, which the next attempt
// returns at once without running anything: the stage then stops, its
// Cause the refusal and its LastErr err, as if the guard had refused after
// the wait.
func (s *segment) judge(ctx context.Context, err error, next int, tries **kindCounts) (error, error) {
	if ctx.Err() != nil {
		return err, nil
	}
	if m := backoff.MarksOf(err); m.Refused || m.Permanent || m.CancelAll {
		return err, nil
	}
	if s.kinds != nil {
		if last := s.kinds.count(err, tries); last != nil {
			return last, nil
		}
	}
	for _, p := range s.prechecks {
		if r := p.Precheck(guard.Call{Attempt: next}); r != nil {
			// A wait the error named is replaced, not wrapped: what the
			// error says of itself (LastErr, what a Notify hook reads) is
			// what it said before.
			if ra, ok := err.(*backoff.RetryAfterError); ok {
				err = ra.Unwrap()
			}
			return backoff.RetryAfter(0, err), guard.Refusal(r)
		}
	}
	return err, nil
}
