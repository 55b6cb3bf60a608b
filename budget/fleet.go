package budget

import (
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
	"github.com/herdsafe/backoff/internal/window"
)

// A fleet-wide budget (module redisguard) takes its settings from a
// budget made by NewTokenBucket or NewRatio, its local fallback.
func init() {
	fleet.TakeTokenBucket = takeFleet
	fleet.TakeRatio = takeRatio
}

// takeFleet is fleet.TakeTokenBucket.
func takeFleet(g guard.Guard) (fleet.TokenBucket, bool) {
	b, ok := g.(*Budget)
	if !ok || b == nil || b.tokens == nil {
		return fleet.TokenBucket{}, false
	}
	t := b.tokens
	s := fleet.TokenBucket{MaxTokens: t.max, TokenRatio: t.ratio, IsFailure: t.failure, Clock: t.clock}
	t.failure = nil
	return s, true
}

// takeRatio is fleet.TakeRatio.
func takeRatio(g guard.Guard) (fleet.Ratio, bool) {
	b, ok := g.(*Budget)
	if !ok || b == nil || b.ratio == nil {
		return fleet.Ratio{}, false
	}
	r := b.ratio
	return fleet.Ratio{Window: r.w.Width() * window.Slots, Reserve: r.reserve, Ratio: r.ratio, Clock: r.w.Clock(), Offset: r.offset}, true
}
