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
// that would force the caller's function and result onto the heap, an
// allocation on every call. So no value read from a call is handed to
// code the escape analysis cannot see (an interface method, a function
// value) or returned, save its closures, which are called; and a call
// keeps no per-attempt value (an Attempt, a context, an error): the
// segments pass those as arguments. (The analysis does not tell one field
// of a struct from another: an error read from a call would carry the
// closures with it.)
type call struct {
	p        *Policy
	fn       func(ctx context.Context, a backoff.Attempt) error
	fallback func(f any, ctx context.Context, err error) error
}
