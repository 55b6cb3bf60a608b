package redisguard

import (
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/guard"
)

var (
	_ guard.Describer = (*Breaker)(nil)
	_ guard.Loader    = (*Breaker)(nil)
	_ guard.Describer = (*Budget)(nil)
)

// The shared guards report the metrics of the local guards they stand for,
// under the same names, so that a dashboard reads either alike; their
// link (local or shared) is reported by the telemetry modules'
// ObserveShared.
var (
	breakerDescription = (*breaker.Breaker)(nil).Describe()
	budgetDescription  = (*budget.Budget)(nil).Describe()
)

// Describe returns what the shared breaker reports to the telemetry
// modules: the metrics of a breaker.Breaker, of kind "breaker", as this
// instance knows them (Stats): the state it last saw, and its own counts.
// It reports no changes of state made by hand.
func (b *Breaker) Describe() guard.Description { return breakerDescription }

// ReadMetrics writes the values of Describe's series, read from Stats. It
// makes no round trip and allocates nothing.
func (b *Breaker) ReadMetrics(v []float64) {
	s := b.Stats()
	breaker.WriteMetrics(v, s.State, breaker.Counts{
		Successes: s.Successes, Failures: s.Failures, Neutral: s.Neutral, Ignored: s.Ignored,
		Rejections: s.Rejections, Transitions: s.Transitions, Slow: s.Slow,
	})
}

// Load returns the shared breaker's load for package pushback: Refusing
// while the state it last saw is not closed, as a breaker.Breaker's. A
// nil *Breaker tells nothing.
func (b *Breaker) Load() guard.Load {
	if b == nil {
		return guard.Load{}
	}
	return breaker.LoadOf(b.State())
}

// Describe returns what the shared budget reports to the telemetry
// modules: the metrics of a budget.Budget, of kind "budget": the retries
// this instance admitted and refused.
func (b *Budget) Describe() guard.Description { return budgetDescription }

// ReadMetrics writes the values of Describe's series, read from Stats. It
// makes no round trip and allocates nothing.
func (b *Budget) ReadMetrics(v []float64) {
	s := b.Stats()
	v[0], v[1] = float64(s.Allowed), float64(s.Refused)
}
