package backoff

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff/internal/setting"
)

// Cause values reported by Error.Cause. Match them with errors.Is.
var (
	// ErrPermanent is the cause when the operation returned a Permanent
	// error, or an error the WithRetryable classifier rejected.
	ErrPermanent = errors.New("backoff: permanent error")

	// ErrExhausted is the cause when retrying stops because WithMaxTries was
	// reached or the BackOff returned Stop.
	ErrExhausted = errors.New("backoff: retries exhausted")

	// ErrMaxElapsedTime is the cause when retrying stops because
	// WithMaxElapsedTime was reached, or the next wait would overrun it.
	ErrMaxElapsedTime = errors.New("backoff: maximum elapsed time exceeded")

	// ErrRetriesCanceled is the cause when retrying stops because the
	// operation's error matches it (with errors.Is: wrap it, as in
	// fmt.Errorf("%w: %w", backoff.ErrRetriesCanceled, err)): the other end
	// asked for no further attempt (a server's pushback, an exhausted
	// quota). Unlike ErrPermanent it says the refusal came from the other
	// end, not from the error's nature or a classifier. An error that
	// names a wait and whose CancelAllRetries method returns true (see
	// RetryAfterError) stops the run so too. LastErr is the error as the
	// operation returned it.
	ErrRetriesCanceled = errors.New("backoff: retries canceled by the error")

	// ErrRetryAfterTooLong is matched by the Cause when an error named a
	// wait longer than WithMaxRetryAfter allows (30 seconds by default):
	// the run stops at once instead of sleeping it, and LastErr is the
	// error that named it. The Cause says how long a wait was named.
	ErrRetryAfterTooLong = errors.New("backoff: named wait too long")

	// ErrRefused is matched by the error of an attempt that was refused
	// before it reached the dependency: by a circuit breaker, a bulkhead, a
	// retry budget (guard.Run and a guard stage of package policy mark a
	// guard's refusal so), or by Do, which refuses to start its function
	// once the context is done.
	// An operation that returns such an error (one that matches ErrRefused
	// with errors.Is and wraps the reason) stops the driver at once: the
	// error is the Cause, so errors.Is finds the reason in it; the attempt
	// is not counted in Attempts; and LastErr stays the last error of an
	// attempt that ran, the real fault.
	ErrRefused = errors.New("backoff: refused")

	// ErrInvalidConfiguration is the cause when the driver was given
	// something it cannot use: a nil operation or context, a nil BackOff
	// (typed or not), a nil clock or classifier, a negative duration, or a
	// BackOff whose fields make no sense; the driver reports it before
	// calling the operation. A BackOff of your own that returns a negative
	// wait other than Stop is reported the same way when the first retry
	// asks for one. The error in Error.Cause wraps ErrInvalidConfiguration
	// and names the offending setting; match it with errors.Is. Every
	// package of this module, and of the modules beside it, reports the
	// settings it cannot use so.
	ErrInvalidConfiguration = setting.ErrInvalid
)

// Error is the error returned by Retry for every failure. It records the
// last error returned by the operation (LastErr) together with the reason
// retrying stopped (Cause), so callers never lose either piece of
// information.
//
// Inspect it with errors.As, and switch on its Cause:
//
//	result, err := backoff.RetryCtx(ctx, op)
//	var re *backoff.Error
//	if errors.As(err, &re) {
//		switch {
//		case errors.Is(re.Cause, backoff.ErrPermanent):
//			// operation returned a Permanent error
//		case errors.Is(re.Cause, context.Canceled):
//			// caller cancelled ctx
//		case errors.Is(re.Cause, backoff.ErrMaxElapsedTime):
//			// ran out of the WithMaxElapsedTime budget
//		case errors.Is(re.Cause, backoff.ErrExhausted):
//			// hit WithMaxTries or the BackOff stopped
//		}
//		log.Printf("%+v", re) // gave up after 4 attempts in 7.3s (backoff: retries exhausted): connection refused
//	}
//
// errors.Is on the whole error also works for the package's causes, but it
// looks into LastErr too, where an attempt's own timeout matches
// context.DeadlineExceeded although the caller's context is alive: read
// the Cause to learn why retrying stopped.
//
// Because Error implements Unwrap() []error, errors.Unwrap (the single error
// form) returns nil for it; use errors.Is or errors.As.
type Error struct {
	// LastErr is the error returned by the final operation attempt. For a
	// permanent failure it is the error passed to Permanent (with any
	// wrapping the operation put around the Permanent marker); after a
	// RetryAfter it is the cause given to RetryAfter. It is nil when the
	// operation never ran.
	LastErr error
	// Cause reports why retrying stopped: ErrPermanent, ErrExhausted,
	// ErrMaxElapsedTime, ErrRetriesCanceled, ErrRetryAfterTooLong (matched
	// with errors.Is), a context cancellation cause
	// (see context.Cause), a refused attempt's error (see ErrRefused), or
	// an error matching ErrInvalidConfiguration.
	Cause error
	// Attempts is how many times the operation was called.
	Attempts int
	// Elapsed is the time until the driver gave up, as measured by its
	// clock: from the call when WithMaxElapsedTime is set (as it is by
	// default for Retry, RetryCtx, Do and their kin), otherwise from the
	// end of the first failed attempt, because a run without that budget
	// reads no clock before an attempt fails.
	Elapsed time.Duration
}

// Error returns the last operation error's message, undecorated by the
// cause, falling back to the cause when there is no operation error. Read
// Cause, or match it with errors.Is, to learn why retrying stopped.
func (e *Error) Error() string {
	switch {
	case e.LastErr != nil:
		return e.LastErr.Error()
	case e.Cause != nil:
		return e.Cause.Error()
	}
	return "backoff: retrying failed"
}

// Unwrap returns the cause and the last operation error so both can be
// matched with errors.Is and errors.As.
func (e *Error) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	if e.LastErr != nil {
		errs = append(errs, e.LastErr)
	}
	return errs
}

// Format prints the error. The verbs %s and %v print Error(); %+v adds the
// attempts, the elapsed time and the cause, for a log line such as
//
//	gave up after 4 attempts in 7.3s (backoff: retries exhausted): connection refused
func (e *Error) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('+'):
		noun := "attempts"
		if e.Attempts == 1 {
			noun = "attempt"
		}
		fmt.Fprintf(f, "gave up after %d %s in %v", e.Attempts, noun, e.Elapsed.Round(time.Millisecond))
		if e.Cause != nil {
			fmt.Fprintf(f, " (%v)", e.Cause)
		}
		if e.LastErr != nil {
			fmt.Fprintf(f, ": %v", e.LastErr)
		}
	case verb == 'q':
		fmt.Fprintf(f, "%q", e.Error())
	default:
		fmt.Fprint(f, e.Error())
	}
}
