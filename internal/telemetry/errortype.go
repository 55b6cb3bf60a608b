package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// ErrorType names the type of err, for the error.type attribute and the
// error_type label: a value of a small, bounded set, never the error's
// message. It returns "" for a nil err.
//
//   - An error in the chain with an ErrorType() string method (the
//     OpenTelemetry convention) names itself, unless it also has a
//     RetryCause() string method: such an error, a guard's sentinel, is
//     named as the well-known sentinels are, below.
//   - The wrappers of packages backoff, guard and policy (Permanent's mark,
//     a guard's refusal, a *RetryAfterError, the *Error of an inner retry
//     stage) and those of fmt.Errorf with a single %w are looked through:
//     they say how the error travelled, not what it is. So is an error of
//     fmt.Errorf or errors.Join that wraps one error together with the
//     marks backoff.ErrRefused, backoff.ErrRetriesCanceled or
//     backoff.ErrPermanent, as fmt.Errorf("%w: %w",
//     backoff.ErrRetriesCanceled, err) does.
//   - The error they lead to, if it is a sentinel that names itself (such
//     as breaker.ErrCircuitOpen, whose ErrorType is
//     "breaker.ErrCircuitOpen"), has that name; a well-known sentinel of
//     the standard library or package backoff is named after its variable,
//     such as "context.DeadlineExceeded", rather than after its type,
//     "*errors.errorString", which every errors.New shares. The refusal of
//     an attempt that Do did not start because its context was done wraps
//     no reason: it is named "backoff.ErrRefused". So the *Error of an
//     inner retry stage that a guard stopped is named after its LastErr,
//     the last real error, not after the guard's sentinel in its Cause.
//   - Otherwise the name is the Go type's: "*net.OpError" for a pointer,
//     "syscall.Errno" with its full package path for a named type.
func ErrorType(err error) string {
	if err == nil {
		return ""
	}
	if s := selfNamed(err); s != "" {
		return s
	}
	err = unwrapOwn(err)
	if g, ok := err.(guardSentinel); ok {
		if s := g.ErrorType(); s != "" {
			return s
		}
	}
	for _, s := range sentinels {
		if err == s.err {
			return s.name
		}
	}
	return typeName(reflect.TypeOf(err))
}

// typeNamer is an error that names its own type: the OpenTelemetry
// convention.
type typeNamer interface{ ErrorType() string }

// causeNamer is an error that names the cause of a give-up it makes:
// "circuit_open" for a breaker's refusal.
type causeNamer interface{ RetryCause() string }

// guardSentinel is an error that names both: a guard's sentinel, such as
// breaker.ErrCircuitOpen (made by package internal/sentinel), or one of a
// user's guard that follows the same convention.
type guardSentinel interface {
	typeNamer
	causeNamer
}

// selfNamed returns the name of the first error in err's chain, depth
// first as errors.As walks it, that names its own type and is no guard's
// sentinel; "" if that error names none, or there is no such error.
func selfNamed(err error) string {
	s, _ := findSelfNamed(err)
	return s
}

// findSelfNamed is selfNamed, and whether it found such an error.
func findSelfNamed(err error) (string, bool) {
	for err != nil {
		if n, ok := err.(typeNamer); ok {
			if _, sentinel := err.(causeNamer); !sentinel {
				return n.ErrorType(), true
			}
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if s, found := findSelfNamed(e); found {
					return s, true
				}
			}
			return "", false
		default:
			return "", false
		}
	}
	return "", false
}

// sentinels are the errors named after their variable: those of the
// standard library and package backoff, which do not name themselves.
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

// Values of the retry.cause attribute and the cause label. A guard's
// refusal names its own (RetryCause), such as "circuit_open".
const (
	causePermanent       = "permanent"
	causeExhausted       = "exhausted"
	causeMaxElapsedTime  = "max_elapsed_time"
	causeRetriesCanceled = "retries_canceled"
	causeInvalidConfig   = "invalid_configuration"
	causeCanceled        = "canceled"
	causeDeadline        = "deadline_exceeded"
	causeRefused         = "refused"
)

// cause is a well-known cause.
type cause struct {
	err  error
	name string
}

// The well-known causes, matched in this order: the core's, then a
// guard's own (RetryCause), then the context's.
var (
	coreCauses = []cause{
		{backoff.ErrInvalidConfiguration, causeInvalidConfig},
		{backoff.ErrPermanent, causePermanent},
		{backoff.ErrExhausted, causeExhausted},
		{backoff.ErrMaxElapsedTime, causeMaxElapsedTime},
		{backoff.ErrRetriesCanceled, causeRetriesCanceled},
	}
	contextCauses = []cause{
		{context.Canceled, causeCanceled},
		{context.DeadlineExceeded, causeDeadline},
	}
)

// wellKnownCause names err when it is a well-known cause: the first of
// coreCauses it matches with errors.Is; else the RetryCause of the first
// error in its chain with one (errors.As), such as "circuit_open" for a
// breaker's refusal, or the cause a user's guard names; else the first of
// contextCauses it matches; else "refused" for a guard's refusal
// (backoff.MarksOf's Refused) that names no cause.
func wellKnownCause(err error) (string, bool) {
	if name, ok := matchCause(err, coreCauses); ok {
		return name, true
	}
	var named causeNamer
	if errors.As(err, &named) {
		if s := named.RetryCause(); s != "" {
			return LabelValue(s), true
		}
	}
	if name, ok := matchCause(err, contextCauses); ok {
		return name, true
	}
	if backoff.MarksOf(err).Refused {
		return causeRefused, true
	}
	return "", false
}

// matchCause returns the name of the first of causes err matches with
// errors.Is.
func matchCause(err error, causes []cause) (string, bool) {
	for _, c := range causes {
		if errors.Is(err, c.err) {
			return c.name, true
		}
	}
	return "", false
}
