package policy

import (
	"context"
	"time"

	"github.com/herdsafe/backoff"
)

// Stage is one layer of a Policy: a retry stage (Retry, RetryByKind), a
// timeout (Timeout), panic recovery (Recover), a fallback (Fallback,
// FallbackErr) or a guard (Guard). A Stage is a value: the same one may appear in
// several policies. Its zero value is not a stage; New reports it.
type Stage struct {
	kind    stageKind
	retrier *backoff.Retrier // a retry stage's
	kinds   *kindLimits      // a retry stage's limits by kind of error: RetryByKind's
	after   time.Duration    // a timeout's duration
	v       any              // the guard, or the fallback function
	err     error            // why the stage cannot be used
}

type stageKind uint8

const (
	noStage stageKind = iota
	retryStage
	timeoutStage
	recoverStage
	guardStage
	fallbackStage
)

// call is one call through the stages, with the typed parts of Do erased
// so that the stages are not generic: fn runs the caller's function and
// keeps its result, fallback runs a typed fallback and keeps its result.
// The closures live on the caller's stack and refer to its result there.
//
// Nothing that a call refers to may reach the heap or another goroutine:
// that would force the caller's function and result onto the heap, an
// allocation on every call. That is why no stage hands a continuation to
// code it does not know.
type call struct {
	fn       func(ctx context.Context, a backoff.Attempt) error
	fallback func(f any, ctx context.Context, err error) error
}

// run runs stages, outermost first, around c's function.
func (c *call) run(ctx context.Context, a backoff.Attempt, stages []Stage) error {
	if len(stages) == 0 {
		return c.fn(ctx, a)
	}
	s, rest := &stages[0], stages[1:]
	switch s.kind {
	case retryStage:
		return c.retry(ctx, a, s, rest)
	case timeoutStage:
		return c.timeout(ctx, a, s, rest)
	case recoverStage:
		return c.recover(ctx, a, rest)
	case guardStage:
		return c.guard(ctx, a, s, rest)
	}
	return c.fallBack(ctx, a, s, rest)
}
