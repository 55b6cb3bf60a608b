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
	"github.com/herdsafe/backoff/throttle"
)

// ErrorType names the type of err, for the error.type attribute and the
// error_type label: a value of a small, bounded set, never the error's
// message. It returns "" for a nil err.
//
//   - An error in the chain with an ErrorType() string method (the
//     OpenTelemetry convention) names itself.
//   - The wrappers of package backoff (Permanent's mark, a guard's refusal,
//     a *RetryAfterError, the *Error of an inner retry stage) and those of
//     fmt.Errorf with a single %w are looked through: they say how the error
//     travelled, not what it is.
//   - A well-known sentinel is named after its variable, such as
//     "context.DeadlineExceeded" or "breaker.ErrCircuitOpen", rather than
//     after its type, "*errors.errorString", which every errors.New shares.
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
	{context.Canceled, "context.Canceled"},
	{context.DeadlineExceeded, "context.DeadlineExceeded"},
	{io.EOF, "io.EOF"},
	{io.ErrUnexpectedEOF, "io.ErrUnexpectedEOF"},
	{breaker.ErrCircuitOpen, "breaker.ErrCircuitOpen"},
	{bulkhead.ErrBulkheadFull, "bulkhead.ErrBulkheadFull"},
	{budget.ErrBudgetExhausted, "budget.ErrBudgetExhausted"},
	{throttle.ErrThrottled, "throttle.ErrThrottled"},
}

var (
	backoffPath  = reflect.TypeFor[backoff.Error]().PkgPath()
	fmtWrapError = reflect.TypeOf(fmt.Errorf("%w", io.EOF))
)

// unwrapOwn looks through the wrappers of package backoff and of
// fmt.Errorf. A *PanicError is kept: the panic is what went wrong.
func unwrapOwn(err error) error {
	for {
		switch e := err.(type) {
		case *backoff.PanicError:
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
		own := t.Kind() == reflect.Pointer && t.Elem().PkgPath() == backoffPath
		if !own && t != fmtWrapError {
			return err
		}
		inner := errors.Unwrap(err)
		if inner == nil {
			return err
		}
		err = inner
	}
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
	{context.Canceled, causeCanceled},
	{context.DeadlineExceeded, causeDeadline},
}

// wellKnownCause names cause when it matches a well-known cause with
// errors.Is: the first of causes it matches.
func wellKnownCause(cause error) (string, bool) {
	for _, c := range causes {
		if errors.Is(cause, c.err) {
			return c.name, true
		}
	}
	return "", false
}
