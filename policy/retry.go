package policy

import (
	"context"
	"time"

	"github.com/herdsafe/backoff"
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
func (c *call) retry(ctx context.Context, s *Stage, rest []Stage) error {
	if s.kinds != nil {
		return c.retryByKind(ctx, s, rest)
	}
	if len(rest) == 0 {
		return s.retrier.DoErr(ctx, c.fn)
	}
	outer, n := c.attempt, 0
	err := s.retrier.DoErr(ctx, func(ctx context.Context) error {
		n++
		c.attempt = n
		return c.run(ctx, rest)
	})
	c.attempt = outer
	return err
}
