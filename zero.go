package backoff

import "time"

// ZeroBackOff is a fixed BackOff whose backoff time is always zero,
// meaning that the operation is retried immediately without waiting,
// indefinitely. Bound it with WithMaxTries, WithMaxElapsedTime or a context.
// The driver neither creates a timer nor parks for a zero wait. It is safe
// for concurrent use.
type ZeroBackOff struct{}

// NextBackOff returns 0.
func (b *ZeroBackOff) NextBackOff() time.Duration { return 0 }

// Reset does nothing.
func (b *ZeroBackOff) Reset() {}

// Clone returns b itself: a ZeroBackOff has no state to copy.
func (b *ZeroBackOff) Clone() BackOff { return b }
