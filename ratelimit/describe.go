package ratelimit

import "github.com/herdsafe/backoff/guard"

var _ guard.Describer = (*Limiter)(nil)

// A rate limiter's metrics.
var (
	rateMetric     = &guard.Metric{Name: "ratelimit.rate", Kind: guard.Gauge, Unit: "{call}/s", Help: "The calls a second the rate limiter admits on average.", Float: true}
	burstMetric    = &guard.Metric{Name: "ratelimit.burst", Kind: guard.Level, Unit: "{call}", Help: "The calls the rate limiter admits at once, its bucket's size."}
	tokensMetric   = &guard.Metric{Name: "ratelimit.tokens", Kind: guard.Gauge, Unit: "{token}", Help: "The tokens in the rate limiter's bucket: below 1 no call is admitted at once, below 0 waiting calls have reserved tokens to come.", Float: true}
	waitingMetric  = &guard.Metric{Name: "ratelimit.waiting", Kind: guard.Level, Unit: "{call}", Help: "Calls waiting for their token."}
	waitedMetric   = &guard.Metric{Name: "ratelimit.waited", Kind: guard.Counter, Unit: "{call}", Help: "Calls the rate limiter admitted after a wait."}
	refusalsMetric = &guard.Metric{Name: "ratelimit.refusals", Kind: guard.Counter, Unit: "{call}", Help: "Calls the rate limiter refused for want of a token in time."}
)

var description = guard.Description{Kind: "rate_limiter", Series: []guard.Series{
	{Metric: rateMetric}, {Metric: burstMetric}, {Metric: tokensMetric},
	{Metric: waitingMetric}, {Metric: waitedMetric}, {Metric: refusalsMetric},
}}

// Describe returns what a rate limiter reports to the telemetry modules,
// of kind "rate_limiter": its rate and burst, the tokens in its bucket,
// the calls waiting for theirs, and the calls it admitted after a wait and
// refused. A Limiter is no Loader: its refusal names its own wait, the
// time until its next token.
func (l *Limiter) Describe() guard.Description { return description }

// ReadMetrics writes the values of Describe's series, read from Stats,
// which reads its clock. It allocates nothing.
func (l *Limiter) ReadMetrics(v []float64) {
	s := l.Stats()
	v[0], v[1], v[2] = float64(s.Rate), float64(s.Burst), s.Tokens
	v[3], v[4], v[5] = float64(s.Waiting), float64(s.Waited), float64(s.Refused)
}
