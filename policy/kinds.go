package policy

import (
	"sort"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
)

// MaxKinds is the most kinds of error one RetryByKind stage limits.
const MaxKinds = 8

// RetryByKind returns a retry stage, as Retry(opts...) does, that also
// limits the attempts per kind of error: a rule such as "at most 2 tries
// on a timeout, 5 on a connection refused". kind names the kind of a
// failed attempt's error, "" for none; limits[k] is the most attempts of
// one call that may fail with an error of kind k. When an attempt's
// failure is the limits[k]-th of its kind, the stage stops at once, as if
// the stage's classifier rejected the error: the *backoff.Error's Cause is
// backoff.ErrPermanent, and its LastErr a [*KindExhaustedError] that names
// the kind and wraps the attempt's error (errors.Is and errors.As see
// through it). For example
//
//	policy.RetryByKind(kindOf, map[string]int{"timeout": 2, "refused": 5},
//		backoff.WithMaxTries(5))
//
// Each call counts its own attempts; a kind not in limits, and the errors
// kind names "", are limited only by the stage's options. Those still
// bound every attempt: WithMaxTries counts them all, whatever their kind,
// and the stage's default is DefaultMaxTries, so give WithMaxTries at
// least the largest limit (or 0, for none but the kinds'). An attempt the
// stage would stop after anyway is not counted: a refusal of a guard
// inside the stage, an error marked Permanent or that cancels the retries,
// and any error once the context is done.
//
// kind is asked once about each failed attempt that is counted, on the
// goroutine of the call, with no lock held; if it panics, the panic goes
// on to the caller, after the stages inside have released what they hold.
// A nil kind, no limits, more than MaxKinds of them, the kind "" or a
// limit below 1 is reported as backoff.ErrInvalidConfiguration: the
// Policy then fails every call before running anything. The mistakes of
// kind, of limits (the first, in the order of the kinds' names) and of
// opts (the first bad option) are all reported, joined in that order.
//
// A successful call costs what it costs through Retry: kind is not asked,
// nothing is allocated.
func RetryByKind(kind func(error) string, limits map[string]int, opts ...backoff.RetryOption) Stage {
	s := Retry(opts...)
	var kindErr error
	if kind == nil {
		kindErr = settings.Invalid("RetryByKind was given a nil kind function")
	}
	k, limitsErr := newKindLimits(limits)
	if s.err = setting.Join(kindErr, limitsErr, s.err); s.err == nil {
		k.kind = kind
		s.kinds = k
	}
	return s
}

// KindExhaustedError is the LastErr of a RetryByKind stage that stopped
// because an attempt's error was the last its kind was allowed: it names
// the kind and wraps the error. It prints as the error does.
type KindExhaustedError struct {
	// Kind is the kind of the error, as the stage's kind function named it.
	Kind string
	// Tries is the number of attempts of the call that failed with an
	// error of Kind: the limit of Kind.
	Tries int
	// Err is the error of the last attempt.
	Err error
}

// Error returns the message of Err.
func (e *KindExhaustedError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *KindExhaustedError) Unwrap() error { return e.Err }

// kindLimits are a RetryByKind stage's limits: the kinds by their place
// in a call's counts.
type kindLimits struct {
	kind  func(error) string
	place map[string]int // a kind's place in the counts and in max
	max   [MaxKinds]int
}

// kindCounts are the failed attempts by kind of one run of a retry stage.
type kindCounts [MaxKinds]int

// newKindLimits checks and returns the limits of RetryByKind, its kind
// function not set.
func newKindLimits(limits map[string]int) (*kindLimits, error) {
	invalid := func(format string, args ...any) error {
		return settings.Invalid("RetryByKind "+format, args...)
	}
	switch {
	case len(limits) == 0:
		return nil, invalid("was given no limits")
	case len(limits) > MaxKinds:
		return nil, invalid("was given %d limits; at most %d kinds are limited", len(limits), MaxKinds)
	}
	names := make([]string, 0, len(limits))
	for k := range limits {
		names = append(names, k)
	}
	sort.Strings(names) // the first bad limit reported is the same every time
	l := &kindLimits{place: make(map[string]int, len(limits))}
	for i, k := range names {
		switch n := limits[k]; {
		case k == "":
			return nil, invalid("was given a limit for the kind \"\", which means no kind")
		case n < 1:
			return nil, invalid("was given the limit %d for the kind %q; it must be at least 1", n, k)
		default:
			l.place[k], l.max[i] = i, n
		}
	}
	return l, nil
}

// count counts err, the error of a failed attempt, in tries (made at the
// first count) by its kind, and returns it marked Permanent in a
// *KindExhaustedError if it is the last its kind may have; nil otherwise.
func (l *kindLimits) count(err error, tries **kindCounts) error {
	k := l.kind(err)
	i, ok := l.place[k]
	if !ok {
		return nil
	}
	if *tries == nil {
		*tries = new(kindCounts)
	}
	t := *tries
	if t[i]++; t[i] < l.max[i] {
		return nil
	}
	return backoff.Permanent(&KindExhaustedError{Kind: k, Tries: t[i], Err: err})
}
