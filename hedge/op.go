package hedge

import "context"

// Op is an operation declared idempotent: safe to run several times at
// once, and to run again after a run that may have taken effect. Hedging
// runs an operation more than once, so [Do] takes only an Op, and the
// only way to make one is [Idempotent]: the declaration is at the call site,
// wrapped around the very function it speaks for, and a call that forgets
// it does not compile.
//
// (A mark carried by the context was considered and rejected: a context
// travels far from where it was marked, and a mark made for one operation
// would reach every call made under it, non-idempotent ones included.)
//
// The zero Op has no function; Do reports it as
// [backoff.ErrInvalidConfiguration].
type Op[T any] struct {
	fn func(context.Context) (T, error)
}

// Idempotent declares that fn may be hedged: running it several times at
// once, or again after a run that timed out or was cancelled, has the
// effect of running it once (a read, a PUT of a whole value, a write with
// an idempotency key the server honours).
func Idempotent[T any](fn func(context.Context) (T, error)) Op[T] {
	return Op[T]{fn: fn}
}
