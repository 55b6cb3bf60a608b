// Package setting holds the rules every constructor, option and entry point
// of this repository follows about what it is given and cannot use: the
// error it reports and its wording, which of several mistakes it reports,
// the words a guard refuses a nil context and a zero value with, and the
// clock it takes when it is given none.
//
// The rules:
//
//   - A setting that cannot be used is reported as an error that matches
//     ErrInvalid (exported as backoff.ErrInvalidConfiguration) and says,
//     after "backoff: invalid configuration: " and the package's name, what
//     is wrong and which setting it is: "backoff: invalid configuration:
//     breaker: WithOpenDuration was given a negative duration (-1s)". A
//     package that exports a sentinel of its own for them makes it with
//     [Package.Sentinel], and its errors with the sentinel's Invalid: they
//     match both, in the same words. A message that quotes such an error
//     quotes its [Reason], the words after the shared ones.
//   - Of a list of options, the first that cannot be used is the one
//     reported ([Package.Fail], [Record], [Apply], which also reports a nil
//     option): a later option may depend on an earlier one, and the first
//     is the one to fix first. The usual mistakes are worded once: a nil
//     function or value, typed or not ([NotNil]), a number outside its
//     range, NaN included ([Between]), a fraction outside (0, 1] or (0, 1)
//     ([Fraction], [ProperFraction]) and a pair of priority thresholds
//     ([Thresholds]), a negative duration ([NotNegative]).
//   - The mistakes of separate arguments (a client and its options, a
//     context, a configuration and a function) are all reported, joined in
//     the order of the parameters ([Join]): none masks another.
//   - What is given no clock runs on [RealClock], the time package's, which
//     is virtual inside a testing/synctest bubble; a nil clock, typed or
//     not, is a setting that cannot be used ([Package.Clock]).
package setting

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff/internal/typednil"
)

// ErrInvalid is matched, with errors.Is, by every error of a setting that
// cannot be used. Package backoff exports it as ErrInvalidConfiguration.
var ErrInvalid = errors.New("backoff: invalid configuration")

// Package is the name a package puts in the errors of its settings, after
// "backoff: invalid configuration: ". The root package and the packages of
// the contract (guard, policy) use "", which names none: their messages
// name the function instead.
type Package string

// Invalid returns an error that matches ErrInvalid and says what is wrong,
// as format and args do for fmt.Errorf: a %w in format wraps its argument
// too, so that errors.Is finds it.
func (p Package) Invalid(format string, args ...any) error {
	prefix := "%w: "
	if p != "" {
		prefix += string(p) + ": "
	}
	return fmt.Errorf(prefix+format, append([]any{ErrInvalid}, args...)...)
}

// Sentinel returns the error a package exports, beside ErrInvalid, for
// the settings of its own that cannot be used, such as a configuration it
// is given as a struct: it matches ErrInvalid and reads "backoff: invalid
// configuration: " and the package's name. Each call returns a new
// sentinel, so a package calls it once.
func (p Package) Sentinel() *Sentinel { return &Sentinel{p: p} }

// Sentinel is an error of Package.Sentinel: the errors its Invalid
// returns match it and ErrInvalid.
type Sentinel struct{ p Package }

// Error returns "backoff: invalid configuration: " and the package's name,
// or, for the package "", the words of ErrInvalid alone.
func (s *Sentinel) Error() string {
	if s.p == "" {
		return ErrInvalid.Error()
	}
	return ErrInvalid.Error() + ": " + string(s.p)
}

// Unwrap returns ErrInvalid.
func (s *Sentinel) Unwrap() error { return ErrInvalid }

// Invalid returns an error that matches s and ErrInvalid, in the words of
// the package's [Package.Invalid].
func (s *Sentinel) Invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{s}, args...)...)
}

// Reason returns the words of err after those every error of a setting
// begins with, "backoff: invalid configuration: ", for a message that
// quotes err: "breaker: WithOpenDuration was given a negative duration
// (-1s)". The message of an error that does not begin with them is
// returned whole.
func Reason(err error) string {
	return strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
}

// Fail records in *first the error p.Invalid(format, args...) unless
// *first holds an error already: it is what an option does with a setting
// it cannot use.
func (p Package) Fail(first *error, format string, args ...any) {
	if *first == nil {
		*first = p.Invalid(format, args...)
	}
}

// Record keeps err in *first unless *first holds an error already.
func Record(first *error, err error) {
	if *first == nil {
		*first = err
	}
}

// Join returns the errors of separate arguments, each nil or an error of
// its own, as one error that matches each of them: nil if all are nil, the
// one error if only one is not nil, otherwise errors.Join of them in the
// order given (their messages on lines of their own).
func Join(errs ...error) error {
	var one error
	n := 0
	for _, err := range errs {
		if err != nil {
			one = err
			n++
		}
	}
	if n <= 1 {
		return one
	}
	return errors.Join(errs...)
}

// NilContext returns the error a guard's Allow refuses a nil context with.
func (p Package) NilContext() error {
	return p.Invalid("Allow was given a nil context")
}

// NotMade returns the error of a value that no constructor made (a zero
// value, or a nil pointer): what, such as "Breaker", and the constructors
// that make one, such as "New".
func (p Package) NotMade(what, constructors string) error {
	return p.Invalid("a zero or nil %s; make one with %s", what, constructors)
}

// RealClock is the clock of everything that is given none: the time
// package's.
var RealClock = clock.New()

// Clock is what a WithClock option does with c: it sets *dst to c, or,
// for a nil c, typed or not (a nil *clock.Mock), leaves *dst as it is and
// records the error in *first, as Fail does.
func (p Package) Clock(dst *clock.Clock, first *error, c clock.Clock) {
	switch {
	case c == nil:
		p.Fail(first, "WithClock was given a nil clock")
	case typednil.Is(c):
		p.Fail(first, "WithClock was given a nil %T", c)
	default:
		*dst = c
	}
}

// NotNil is what an option given a function or an interface value does
// with v: it sets *dst to v, or, for a nil v, typed or not, leaves *dst as
// it is and records, as Fail does, that the option "was given a nil"
// what: NotNil(settings, &c.err, &c.isFailure, fn, "WithIsFailure",
// "classifier").
func NotNil[T any](p Package, first *error, dst *T, v T, option, what string) {
	if any(v) == nil || typednil.Is(v) {
		p.Fail(first, "%s was given a nil %s", option, what)
		return
	}
	*dst = v
}

// Apply applies opts to c, in order, as constructor (such as "New") does:
// a nil option is recorded, as Fail does, and skipped. An option records
// its own mistakes in *first (see Fail): the first is the one reported.
func Apply[C any, O ~func(*C)](p Package, first *error, constructor string, c *C, opts []O) {
	for _, o := range opts {
		if o == nil {
			p.Fail(first, "%s was given a nil %s", constructor, reflect.TypeFor[O]().Name())
			continue
		}
		o(c)
	}
}

// Between is what an option given a number with a range does with v: it
// sets *dst to v if v lies in [lo, hi], and otherwise (NaN included)
// records, as Fail does, that "option(v) is outside [lo, hi]". It reports
// whether it set *dst.
func Between[T cmp.Ordered](p Package, first *error, dst *T, v, lo, hi T, option string) bool {
	if !(v >= lo && v <= hi) {
		p.Fail(first, "%s(%v) is outside [%v, %v]", option, v, lo, hi)
		return false
	}
	*dst = v
	return true
}

// Fraction is what an option given a fraction of a whole, such as a rate
// or a threshold, does with v: it reports whether v lies in (0, 1], and
// otherwise (NaN included) records, as Fail does, that "option was given
// the what v; it must lie in (0, 1]". The option sets its setting itself,
// with the others it is given.
func Fraction(p Package, first *error, v float64, option, what string) bool {
	return fraction(p, first, v, v <= 1, "(0, 1]", option, what)
}

// ProperFraction is Fraction for a fraction that may not be the whole,
// such as a factor that must shrink what it multiplies: it reports whether
// v lies in (0, 1), and otherwise records that "option was given the what
// v; it must lie in (0, 1)".
func ProperFraction(p Package, first *error, v float64, option, what string) bool {
	return fraction(p, first, v, v < 1, "(0, 1)", option, what)
}

func fraction(p Package, first *error, v float64, below bool, interval, option, what string) bool {
	if v > 0 && below { // NaN fails both
		return true
	}
	p.Fail(first, "%s was given the %s %v; it must lie in %s", option, what, v, interval)
	return false
}

// Thresholds is what an option given the thresholds of the low and the
// standard priorities, fractions of a capacity, does with them: it reports
// whether each is a Fraction and low is not above standard, and otherwise
// records the first mistake, as Fail does: "option was given the low
// threshold 0.9, above the standard threshold 0.8".
func Thresholds(p Package, first *error, low, standard float64, option string) bool {
	switch {
	case !Fraction(p, first, low, option, "low threshold"), !Fraction(p, first, standard, option, "standard threshold"):
		return false
	case low > standard:
		p.Fail(first, "%s was given the low threshold %v, above the standard threshold %v", option, low, standard)
		return false
	}
	return true
}

// NotNegative is what an option given a duration that may be 0 does with
// d: it sets *dst to d, or, for a negative d, records, as Fail does, that
// "option was given a negative duration (d)". It reports whether it set
// *dst.
func NotNegative(p Package, first *error, dst *time.Duration, d time.Duration, option string) bool {
	if d < 0 {
		p.Fail(first, "%s was given a negative duration (%v)", option, d)
		return false
	}
	*dst = d
	return true
}
