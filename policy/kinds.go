package policy

import (
	"context"
	"errors"
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

// kindCounts are one call's failed attempts by kind, on its stack.
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

// judge returns the error of an attempt that failed with err, counted in
// tries: err itself, or, if it is the last its kind may have, err
// marked Permanent in a *KindExhaustedError.
func (l *kindLimits) judge(ctx context.Context, err error, tries *kindCounts) error {
	if ctx.Err() != nil || errors.Is(err, backoff.ErrRefused) || errors.Is(err, backoff.ErrPermanent) ||
		errors.Is(err, backoff.ErrRetriesCanceled) {
		return err // the stage stops after it anyway
	}
	k := l.kind(err)
	i, ok := l.place[k]
	if !ok {
		return err
	}
	tries[i]++
	if tries[i] < l.max[i] {
		return err
	}
	return backoff.Permanent(&KindExhaustedError{Kind: k, Tries: tries[i], Err: err})
}

// retryByKind is retry for a stage with limits by kind: each failed
// attempt is judged by the limits of its kind, counted on the call's
// stack (a frame of its own, so that a retry stage without limits keeps
// its frame small).
func (c *call) retryByKind(ctx context.Context, a backoff.Attempt, s *Stage, rest []Stage) error {
	var tries kindCounts
	var refused error // a guard's refusal of the next attempt, before the wait (see precheck)
	err := s.retrier.Attempts(ctx, func(ctx context.Context, a backoff.Attempt) error {
		if refused != nil {
			return refused
		}
		if err := c.run(ctx, a, rest); err != nil {
			err, refused = precheck(ctx, s.kinds.judge(ctx, err, &tries), rest, a.Number+1)
			return err
		}
		return nil
	})
	return err
}
