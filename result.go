package backoff

import "reflect"

// resultCheck is what CheckResult sets.
type resultCheck[T any] struct {
	check   func(T) error
	discard func(T)
}

// CheckResult makes the driver judge the result of every attempt that
// returned no error: check returns nil to accept it, or an error that makes
// the attempt a failure, handled exactly as if the operation had returned
// it. So check speaks the operation's own vocabulary: a plain error is
// retried, Permanent(err) stops, RetryAfter(d, err) names the wait, and the
// classifier and the limits apply.
//
// When the driver moves on from a rejected result (it retries, or a
// fallback replaces it), it first passes the result to discard, if discard
// is not nil, so that a result holding a resource, such as an HTTP
// response, is released; it does so before the wait, and checks the
// limits again after it, so that a slow discard cannot start a wait that
// overruns them. A discarded result is gone: if the run then ends (the
// context is cancelled during the wait, say), the entry point returns T's
// zero value with the *Error. The result of the last attempt is never
// discarded: on failure the entry point returns it with the *Error.
//
// If check panics, the result is discarded before the panic goes on; so
// is the result the driver holds when another callback (Notify, an
// Instrumenter, the logger) panics.
//
// The check runs on the result of the operation itself, innermost, so in
// a Policy every stage inside the retry stage (a breaker, say) sees a
// rejected result as a failure. T must be the operation's result type:
// another is reported as ErrInvalidConfiguration. Retry, RetryCtx, Do,
// Execute and a retry stage take it; a Loop, which sees no result, reports
// it. A nil check is reported as ErrInvalidConfiguration.
func CheckResult[T any](check func(T) error, discard func(T)) RetryOption {
	return func(o *retryOptions) {
		if check == nil {
			o.fail("CheckResult was given a nil check")
			return
		}
		o.result = &resultCheck[T]{check: check, discard: discard}
	}
}

// resultCheckFor returns the result check r (from CheckResult) for
// results of type T, nil if there is none, or an error if the check is for another
// type.
func resultCheckFor[T any](r any) (*resultCheck[T], error) {
	if r == nil {
		return nil, nil
	}
	rc, ok := r.(*resultCheck[T])
	if !ok {
		return nil, invalidf("CheckResult judges another type of result than the operation's %s", reflect.TypeFor[T]())
	}
	return rc, nil
}
