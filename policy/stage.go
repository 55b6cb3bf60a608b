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

// call is one call through a Policy's segments, with the typed parts of Do
// erased so that the segments are not generic: fn runs the caller's
// function and keeps its result, fallback runs a typed fallback and keeps
// its result. The closures live on the caller's stack and refer to its
// result there.
//
// Nothing that a call refers to may reach the heap or another goroutine:
// that would force the caller's function, result and what the function
// captured onto the heap, an allocation on every call. The escape
// analysis does not tell one field of a struct from another, nor one
// pointer held deep in it from the next: a value read through a call and
// handed to code it cannot see (an interface method, a function value, a
// function that keeps its argument) would carry the closures with it. So
// a call holds its closures and nothing else, which are only called: the
// Policy, each attempt's facts, contexts and errors travel as arguments.
type call struct {
	fn       func(ctx context.Context, a backoff.Attempt) error
	fallback func(f any, ctx context.Context, err error) error
}
