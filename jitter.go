package backoff

import (
	"fmt"
	"math/rand/v2"
)

// Jitter selects how ExponentialBackOff randomizes each wait around its
// nominal interval d, the exponentially growing interval capped by
// MaxInterval. Choose one with the ExponentialBackOff's Jitter field.
//
// Randomizing waits is what keeps a fleet of clients that failed together
// from retrying together. The kinds trade the spread of the herd against the
// predictability of each wait:
//
//   - RandomizationJitter, the default, waits d × (1 ± RandomizationFactor).
//     With the default factor of 0.5 the wait lies in [d/2, 3d/2], so it may
//     exceed MaxInterval by up to half.
//   - FullJitter waits uniformly in [0, d]. It spreads a herd the widest and,
//     in the AWS study of contended clients, did the least total work; the
//     mean wait is d/2.
//   - EqualJitter waits d/2 plus uniformly [0, d/2]. It guarantees half of
//     each wait, but the herd stays half clustered at every step.
//   - DecorrelatedJitter waits min(MaxInterval, uniform in [InitialInterval,
//     3 × previous wait]), each wait growing from the last one actually
//     waited rather than from the attempt number. It ignores Multiplier.
type Jitter int

// String returns the Go name of the jitter kind.
func (j Jitter) String() string {
	switch j {
	case RandomizationJitter:
		return "RandomizationJitter"
	case FullJitter:
		return "FullJitter"
	case EqualJitter:
		return "EqualJitter"
	case DecorrelatedJitter:
		return "DecorrelatedJitter"
	}
	return fmt.Sprintf("Jitter(%d)", int(j))
}

func (j Jitter) valid() bool { return j >= RandomizationJitter && j <= DecorrelatedJitter }

// defaultRandom is the random source of every ExponentialBackOff whose
// Random field is nil. math/rand/v2's top-level functions draw
// from a per-thread ChaCha8 state: safe for concurrent use, with no lock
// shared between goroutines.
func defaultRandom() float64 { return rand.Float64() }

// unitInterval clamps a random draw into [0, 1], treating NaN as 0, so a
// misbehaving Random source cannot push a wait out of its range.
func unitInterval(r float64) float64 {
	if !(r > 0) { // also catches NaN
		return 0
	}
	if r > 1 {
		return 1
	}
	return r
}
