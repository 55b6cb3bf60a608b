package herd

import (
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
)

// Strategy is a named BackOff factory, as the command cmd/herd compares
// them.
type Strategy struct {
	// Name is short and stable, fit for a flag or a table column.
	Name string
	// NewBackOff returns a fresh BackOff for one client; see
	// Config.NewBackOff.
	NewBackOff func() backoff.BackOff
	// NewGuards returns the guards of one client, for the Outage
	// scenario; see Config.NewGuards. nil means none.
	NewGuards func(clk clock.Clock, random func() float64) []guard.Guard
}

// Strategies returns the six strategies the command cmd/herd compares,
// each with InitialInterval base and MaxInterval cap: the four of the AWS
// study's comparison (exponential backoff without jitter, with full, equal
// and decorrelated jitter), then the library's default BackOff and
// immediate retry as the control. In this order:
// "no-jitter" ([NoJitter]), "full" ([FullJitter]), "equal"
// ([EqualJitter]), "decorrelated" ([DecorrelatedJitter]), "default"
// ([LibraryDefault]) and "immediate" ([Immediate]).
//
// base and cap are the fields of an ExponentialBackOff, with their rule
// for zero: a base of 0 makes every wait 0, and a cap of 0 means
// backoff.DefaultMaxInterval.
func Strategies(base, cap time.Duration) []Strategy {
	var out []Strategy
	for _, k := range backOffKinds {
		out = append(out, Strategy{Name: k.name, NewBackOff: k.make(base, cap)})
	}
	return out
}

// NoJitter returns exponential backoff without jitter: waits of base,
// 2×base, 4×base, … up to cap, the same for every client. It is the
// backoff.ExponentialBackOff with RandomizationFactor 0 and Multiplier 2.
func NoJitter(base, cap time.Duration) func() backoff.BackOff {
	return exponential(base, cap, backoff.RandomizationJitter, backoff.WithMultiplier(2), backoff.WithRandomizationFactor(0))
}

// FullJitter returns exponential backoff with full jitter, multiplier 2:
// each wait is uniform in [0, min(cap, base×2ⁿ)]. See backoff.FullJitter.
func FullJitter(base, cap time.Duration) func() backoff.BackOff {
	return exponential(base, cap, backoff.FullJitter, backoff.WithMultiplier(2))
}

// EqualJitter returns exponential backoff with equal jitter, multiplier 2:
// half of each nominal wait, plus a uniform draw over the other half. See
// backoff.EqualJitter.
func EqualJitter(base, cap time.Duration) func() backoff.BackOff {
	return exponential(base, cap, backoff.EqualJitter, backoff.WithMultiplier(2))
}

// DecorrelatedJitter returns backoff with decorrelated jitter: each wait is
// uniform in [base, 3 × the previous wait], capped. See
// backoff.DecorrelatedJitter.
func DecorrelatedJitter(base, cap time.Duration) func() backoff.BackOff {
	return exponential(base, cap, backoff.DecorrelatedJitter, backoff.WithMultiplier(2))
}

// LibraryDefault returns the library's default ExponentialBackOff
// (multiplier 1.5, randomization ±50%) with InitialInterval base and
// MaxInterval cap.
func LibraryDefault(base, cap time.Duration) func() backoff.BackOff {
	return exponential(base, cap, backoff.RandomizationJitter)
}

// Immediate returns the control: retry at once, every time (a
// backoff.ZeroBackOff). Only Config.MaxCalls ends a client that keeps
// failing.
func Immediate() func() backoff.BackOff {
	return func() backoff.BackOff { return &backoff.ZeroBackOff{} }
}

// exponential returns a factory of ExponentialBackOffs with the given
// interval bounds, jitter and options.
func exponential(base, cap time.Duration, jitter backoff.Jitter, opts ...backoff.ExponentialBackOffOption) func() backoff.BackOff {
	opts = append([]backoff.ExponentialBackOffOption{
		backoff.WithInitialInterval(base),
		backoff.WithMaxInterval(cap),
	}, opts...)
	return func() backoff.BackOff {
		b := backoff.NewExponentialBackOff(opts...)
		b.Jitter = jitter
		return b
	}
}
