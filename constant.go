package backoff

import (
	"time"
)

// ConstantBackOff is a BackOff that always returns the same backoff
// delay. This is in contrast to an exponential BackOff, which returns
// a delay that grows longer as you call NextBackOff() over and over again.
//
// A constant wait keeps a fleet of clients that failed together in lockstep;
// prefer ExponentialBackOff with jitter for anything shared.
//
// ConstantBackOff has no state, so it is safe for concurrent use as long as
// Interval is not changed meanwhile.
type ConstantBackOff struct {
	Interval time.Duration
}

// NewConstantBackOff returns a ConstantBackOff that always waits d.
func NewConstantBackOff(d time.Duration) *ConstantBackOff {
	return &ConstantBackOff{Interval: d}
}

// Validate reports a negative Interval as an error matching
// ErrInvalidConfiguration.
func (b *ConstantBackOff) Validate() error {
	if b == nil {
		return invalid("the BackOff is a nil *ConstantBackOff")
	}
	if b.Interval < 0 {
		return invalid("ConstantBackOff.Interval is negative (%v)", b.Interval)
	}
	return nil
}

// NextBackOff returns Interval, or Stop if Interval is negative.
func (b *ConstantBackOff) NextBackOff() time.Duration {
	if b.Interval < 0 {
		return Stop
	}
	return b.Interval
}

// Reset does nothing: a ConstantBackOff has no state.
func (b *ConstantBackOff) Reset() {}

// Clone returns b itself: a ConstantBackOff has no state to copy.
func (b *ConstantBackOff) Clone() BackOff { return b }
