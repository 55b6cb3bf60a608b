package grpcbackoff

import (
	"fmt"
	"math"
	"time"

	"github.com/herdsafe/backoff"
)

// A6Jitter is the spread of gRFC A6's amended schedule: each wait is the
// nominal one times a random factor in [1 − A6Jitter, 1 + A6Jitter].
const A6Jitter = 0.2

// A6BackOff returns the schedule of gRPC's own retries as gRFC A6 was
// amended (grpc/proposal#452, grpc-go#7869): the wait before retry n is
// min(initial × multiplier^(n−1), max) times a random factor in
// [0.8, 1.2], the service config's initialBackoff, maxBackoff and
// backoffMultiplier. It is a *backoff.ExponentialBackOff with a
// RandomizationFactor of A6Jitter: give it to the Policy's retry stage
// with backoff.WithBackOff, so that a client of this package waits as a
// client of gRPC's own retries configured alike would.
//
// The module's default is not this but full jitter (a wait drawn from
// [0, nominal], policy.DefaultBackOff), which a fleet is better served
// by: clients that failed together and wait within ±20% of the same
// nominal wait come back within a span of 40% of it, in waves, where full
// jitter spreads them over the whole of it (the herd simulator's
// "default" strategy, ±50% of the nominal, shows the waves such a narrow
// spread makes beside "full"). Choose A6BackOff to match a fleet of gRPC's
// own retries, or where a wait must never be much shorter than the
// nominal.
//
// initial must be above 0, max at least initial, and multiplier a finite
// number of at least 1; otherwise A6BackOff returns nil and an error
// matching backoff.ErrInvalidConfiguration that names the setting.
func A6BackOff(initial, max time.Duration, multiplier float64) (*backoff.ExponentialBackOff, error) {
	switch {
	case initial <= 0:
		return nil, invalidSetting("A6BackOff: initial backoff %v; it must be above 0", initial)
	case max < initial:
		return nil, invalidSetting("A6BackOff: max backoff %v is below the initial backoff %v", max, initial)
	case !(multiplier >= 1) || math.IsInf(multiplier, 0):
		return nil, invalidSetting("A6BackOff: backoff multiplier %v; it must be a finite number of at least 1", multiplier)
	}
	return &backoff.ExponentialBackOff{
		InitialInterval:     initial,
		MaxInterval:         max,
		Multiplier:          multiplier,
		RandomizationFactor: A6Jitter,
		Jitter:              backoff.RandomizationJitter,
	}, nil
}

// invalidSetting returns an error matching backoff.ErrInvalidConfiguration
// in the module's words.
func invalidSetting(format string, args ...any) error {
	return fmt.Errorf("%w: grpcbackoff."+format, append([]any{backoff.ErrInvalidConfiguration}, args...)...)
}
