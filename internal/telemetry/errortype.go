package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/policy"
	"github.com/herdsafe/backoff/throttle"
)

// ErrorType names the type of err, for the error.type attribute and the
// error_type label: a value of a small, bounded set, never the error's
// message. It returns "" for a nil err.
//
//   - An error in the chain with an ErrorType() string method (the
//     OpenTelemetry convention) names itself.
//   - The wrappers of packages backoff, guard and policy (Permanent's mark,
//     a guard's refusal, a *RetryAfterError, the *Error of an inner retry
//     stage) and those of fmt.Errorf with a single %w are looked through:
//     they say how the error travelled, not what it is. So is an error of
//     fmt.Errorf or errors.Join that wraps one error together with the
//     marks backoff.ErrRefused, backoff.ErrRetriesCanceled or
//     backoff.ErrPermanent, as fmt.Errorf("%w: %w",
//     backoff.ErrRetriesCanceled, err) does.
//   - A well-known sentinel is named after its variable, such as
//     "context.DeadlineExceeded" or "breaker.ErrCircuitOpen", rather than
//     after its type, "*errors.errorString", which every errors.New shares.
//     The refusal of an attempt that Do did not start because its context
//     was done wraps no reason: it is named "backoff.ErrRefused".
//   - Otherwise the name is the Go type's: "*net.OpError" for a pointer,
//     "syscall.Errno" with its full package path for a named type.
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	var named interface{ ErrorType() string }
	if errors.As(err, &named) {
		if s := named.ErrorType(); s != "" {
			return s
		}
	}
	err = unwrapOwn(err)
	for _, s := range sentinels {
		if err == s.err {
			return s.name
		}
	}
	return typeName(reflect.TypeOf(err))
}

// sentinels are the errors named after their variable.
var sentinels = []struct {
	err  error
	name string
}{
	{backoff.ErrRefused, "backoff.ErrRefused"},
	{backoff.ErrRetriesCanceled, "backoff.ErrRetriesCanceled"},
	{backoff.ErrPermanent, "backoff.ErrPermanent"},
	{context.Canceled, "context.Canceled"},
	{context.DeadlineExceeded, "context.DeadlineExceeded"},
	{io.EOF, "io.EOF"},
	{io.ErrUnexpectedEOF, "io.ErrUnexpectedEOF"},
	{breaker.ErrCircuitOpen, "breaker.ErrCircuitOpen"},
	{bulkhead.ErrBulkheadFull, "bulkhead.ErrBulkheadFull"},
	{budget.ErrBudgetExhausted, "budget.ErrBudgetExhausted"},
	{throttle.ErrThrottled, "throttle.ErrThrottled"},
	{limiter.ErrLimitExceeded, "limiter.ErrLimitExceeded"},
}

var (
	// ownPaths are the packages whose wrappers are looked through.
	ownPaths = [...]string{
		reflect.TypeFor[backoff.Error]().PkgPath(),
		reflect.TypeFor[guard.Call]().PkgPath(),
		reflect.TypeFor[policy.Policy]().PkgPath(),
	}
	fmtWrapError  = reflect.TypeOf(fmt.Errorf("%w", io.EOF))
	fmtWrapErrors = reflect.TypeOf(fmt.Errorf("%w%w", io.EOF, io.EOF))
	joinError     = reflect.TypeOf(errors.Join(io.EOF))
)

// own reports whether t is a type of one of ownPaths, or a pointer to one.
func own(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	path := t.PkgPath()
	for _, p := range ownPaths {
		if path == p {
			return true
		}
	}
	return false
}

// unwrapOwn looks through the wrappers of packages backoff, guard and
// policy and of fmt.Errorf. A *PanicError is kept: the panic is what went
// wrong. An own wrapper that wraps nothing but is marked refused
// (backoff.MarksOf: the refusal of an attempt Do did not start) is
// backoff.ErrRefused. The marks say how an error is handled, not what it
// is, so the walk that names it is its own: it stops at the first error
// that is no wrapper of these packages.
func unwrapOwn(err error) error {
	for {
		switch e := err.(type) {
		case *policy.PanicError:
			return err
		case *backoff.Error:
			switch {
			case e.LastErr != nil:
				err = e.LastErr
			case e.Cause != nil:
				err = e.Cause
			default:
				return err
			}
			continue
		}
		t := reflect.TypeOf(err)
		var inner error
		switch {
		case t == fmtWrapErrors || t == joinError:
			inner = unmarked(err)
		case t == fmtWrapError:
			inner = errors.Unwrap(err)
		case own(t):
			inner = errors.Unwrap(err)
			if inner == nil && backoff.MarksOf(err).Refused {
				return backoff.ErrRefused
			}
		}
		if inner == nil {
			return err
		}
		err = inner
	}
}

// marks are the sentinels that say how an error is to be handled, not what
// it is.
var marks = [...]error{backoff.ErrRefused, backoff.ErrRetriesCanceled, backoff.ErrPermanent}

// unmarked returns the one error that err, which wraps several, wraps
// besides marks; nil if it wraps no mark, or more than one other error.
func unmarked(err error) error {
	x, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	var other error
	marked := false
	for _, e := range x.Unwrap() {
		isMark := false
		for _, m := range marks {
			if e == m {
				isMark = true
			}
		}
		switch {
		case isMark:
			marked = true
		case other != nil:
			return nil
		default:
			other = e
		}
	}
	if !marked {
		return nil
	}
	return other
}

// typeNames caches the names of the types typeName has seen.
var typeNames sync.Map // reflect.Type -> string

// typeName is the name of t as the OpenTelemetry conventions give it for
// Go: the package path and the name of a named type, else its Go syntax.
func typeName(t reflect.Type) string {
	if s, ok := typeNames.Load(t); ok {
		return s.(string)
	}
	s := t.String()
	if t.PkgPath() != "" && t.Name() != "" {
		s = t.PkgPath() + "." + t.Name()
	}
	typeNames.Store(t, s)
	return s
}

// Values of the retry.cause attribute and the cause label.
const (
	causePermanent       = "permanent"
	causeExhausted       = "exhausted"
	causeMaxElapsedTime  = "max_elapsed_time"
	causeRetriesCanceled = "retries_canceled"
	causeInvalidConfig   = "invalid_configuration"
	causeCanceled        = "canceled"
	causeDeadline        = "deadline_exceeded"
	causeCircuitOpen     = "circuit_open"
	causeBulkheadFull    = "bulkhead_full"
	causeBudgetExhausted = "budget_exhausted"
	causeThrottled       = "throttled"
	causeLimitExceeded   = "limit_exceeded"
	causeRefused         = "refused"
)

// causes are the well-known causes, in the order they are matched.
var causes = []struct {
	err  error
	name string
}{
	{backoff.ErrInvalidConfiguration, causeInvalidConfig},
	{backoff.ErrPermanent, causePermanent},
	{backoff.ErrExhausted, causeExhausted},
	{backoff.ErrMaxElapsedTime, causeMaxElapsedTime},
	{backoff.ErrRetriesCanceled, causeRetriesCanceled},
	{breaker.ErrCircuitOpen, causeCircuitOpen},
	{bulkhead.ErrBulkheadFull, causeBulkheadFull},
	{budget.ErrBudgetExhausted, causeBudgetExhausted},
	{throttle.ErrThrottled, causeThrottled},
	{limiter.ErrLimitExceeded, causeLimitExceeded},
	{context.Canceled, causeCanceled},
	{context.DeadlineExceeded, causeDeadline},
}

// wellKnownCause names cause when it matches a well-known cause with
// errors.Is: the first of causes it matches, or else "refused" for a
// guard's refusal (backoff.MarksOf's Refused). (A refusal wraps the guard's own error, such as
// breaker.ErrCircuitOpen, which names it first.)
func wellKnownCause(cause error) (string, bool) {
	for _, c := range causes {
		if errors.Is(cause, c.err) {
			return c.name, true
		}
	}
	if backoff.MarksOf(cause).Refused {
		return causeRefused, true
	}
	return "", false
}
