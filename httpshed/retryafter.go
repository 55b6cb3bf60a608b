package httpshed

import (
	"time"

	"github.com/herdsafe/backoff/pushback"
)

// RetryAfter returns the wait the Shedder tells a request its guard
// refused with err (what the guard's Allow returned, or an error that
// wraps it): a whole number of seconds, one at least, as the Retry-After
// header the Handler writes says it. It is the wait of package pushback's
// Rule in whole seconds, which says how the guard's state lengthens the
// base (WithRetryAfter) and how the wait is spread, with the random source
// (WithRandom), up to the maximum (WithMaxRetryAfter). It is safe for
// concurrent use; it reads the guard's state, draws once from the random
// source, takes no lock of its own and allocates nothing. An invalid
// Shedder returns DefaultRetryAfter.
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
