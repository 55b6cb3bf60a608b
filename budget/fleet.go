package budget

import (
	"github.com/herdsafe/backoff/internal/fleet"
	"github.com/herdsafe/backoff/internal/window"
)

// NewTokenBucketFallback returns the Budget that NewTokenBucket makes of
// opts, to be the local fallback of a token bucket that a fleet shares
// (module redisguard's NewTokenBucket), and the settings that the shared
// bucket keeps for the whole fleet, read from opts as NewTokenBucket reads
// them, with its defaults and ranges. A bad option is b's Validate error,
// as NewTokenBucket reports it, and s is then the zero value.
//
// The shared bucket classifies the errors itself, so b does not: it
// counts every error it is told of as a failure, and s carries
// WithIsFailure's classifier instead.
//
// The settings' type is internal to this repository's modules: this is
// the hand-over between this package and module redisguard, which calls
// it where it builds a shared budget.
func NewTokenBucketFallback(opts ...Option) (b *Budget, s fleet.TokenBucket) {
	b = NewTokenBucket(opts...)
	t := b.tokens
	if t == nil {
		return b, s
	}
	s = fleet.TokenBucket{MaxTokens: t.max, TokenRatio: t.ratio, IsFailure: t.failure, Clock: t.clock}
	t.failure = nil
	return b, s
}

// NewRatioFallback returns the Budget that NewRatio makes of opts, to be
// the local fallback of a ratio budget that a fleet shares (module
// redisguard's NewRatio), and the settings that the shared budget keeps
// for the whole fleet, read from opts as NewRatio reads them, with its
// defaults and ranges. A bad option is b's Validate error, as NewRatio
// reports it, and s is then the zero value. s.Offset is
// WithWindowOffset's, which a shared budget cannot use. As for
// NewTokenBucketFallback, the settings' type is internal to this
// repository's modules.
func NewRatioFallback(opts ...Option) (b *Budget, s fleet.Ratio) {
	b = NewRatio(opts...)
	r := b.ratio
	if r == nil {
		return b, s
	}
	return b, fleet.Ratio{Window: r.w.Width() * window.Slots, Reserve: r.reserve, Ratio: r.ratio, Clock: r.w.Clock(), Offset: r.offset}
}
