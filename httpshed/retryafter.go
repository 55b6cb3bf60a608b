package httpshed

import (
	"time"

	"github.com/herdsafe/backoff/pushback"
)

// RetryAfter returns the wait the Shedder tells a request its guard
// refused with err (what the guard's Allow returned, or an error that
// wraps it): a whole number of seconds, one at least, as the Retry-After
// header the Handler writes says it. It is the wait of package pushback's
// Rule, in whole seconds, from the base (WithRetryAfter), the maximum
// (WithMaxRetryAfter) and the random source (WithRandom); read from the
// guard's state:
//
//   - An error with a RetryAfter() time.Duration method that returns more
//     than 0: that wait, the base at least. A breaker's *breaker.OpenError
//     names the time until the breaker admits a probe, a
//     ratelimit.Limiter's refusal the time until its next token.
//   - A *bulkhead.Bulkhead full (bulkhead.ErrBulkheadFull), or a
//     *limiter.Limiter at its limit (limiter.ErrLimitExceeded): the base
//     times the guard's load, (in flight + queued) ÷ capacity (the
//     limiter's current limit), at least 1.
//   - A *throttle.Throttle's rejection (throttle.ErrThrottled): the base
//     divided by 1 − the throttle's rejection probability, the time a
//     client that tries once per base expects to wait for a request to get
//     through.
//   - Anything else: the base.
//
// That wait, d, is spread: drawn uniformly from [d, 2d + 1 s) and cut
// down to whole seconds (never below d rounded up), so that a wait of n
// seconds becomes each of n, n+1, ..., 2n seconds with the same chance,
// and the clients refused together come back spread over as long again.
// The result is at most WithMaxRetryAfter. It is safe for concurrent use;
// it reads the guard's state, draws once from the random source, takes no
// lock of its own and allocates nothing. An invalid Shedder returns
// DefaultRetryAfter.
func (s *Shedder) RetryAfter(err error) time.Duration {
	if s.Validate() != nil {
		return DefaultRetryAfter
	}
	return s.rule.Wait(s.g, err)
}

// newRule returns the pushback rule of the Shedder's settings.
func (s *Shedder) newRule() pushback.Rule {
	return pushback.Rule{Base: s.base, Max: s.max, Unit: time.Second, Random: s.random}
}
