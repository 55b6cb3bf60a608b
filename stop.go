package backoff

import "time"

// StopBackOff is a fixed BackOff that always returns backoff.Stop for
// NextBackOff(), meaning that the operation should never be retried.
// It is safe for concurrent use.
type StopBackOff struct{}

// NextBackOff returns Stop.
func (b *StopBackOff) NextBackOff() time.Duration { return Stop }

// Reset does nothing.
func (b *StopBackOff) Reset() {}

// Clone returns b itself: a StopBackOff has no state to copy.
func (b *StopBackOff) Clone() BackOff { return b }
