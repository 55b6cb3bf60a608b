package budget

import (
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/fleet"
)

// A fleet-wide token bucket (module redisguard) takes its settings from a
// token bucket made by NewTokenBucket, its local fallback.
func init() { fleet.TakeTokenBucket = takeFleet }

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
