package redisguard

import "github.com/herdsafe/backoff/internal/fleet"

// rated reports whether the breaker trips on a failure rate.
func (b *Breaker) rated() bool { return b.rule.Rule != fleet.Consecutive }

// tally is the calls of a failure-rate rule's window, and the failures and
// slow calls among them.
type tally struct{ calls, fails, slow uint64 }

// trips reports whether t trips a failure-rate rule, as the script and
// package breaker decide.
func (b *Breaker) trips(t tally) bool {
	if t.calls < uint64(b.rule.MinCalls) || t.calls == 0 {
		return false
	}
	n := float64(t.calls)
	return float64(min(t.fails, t.calls))/n >= b.rule.Rate ||
		b.rule.SlowAfter > 0 && float64(min(t.slow, t.calls))/n >= b.rule.SlowRate
}
