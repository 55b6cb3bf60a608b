package httpshed

import (
	"errors"
	"math"
	"time"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/throttle"
)

// RetryAfter returns the wait the Shedder tells a request its guard
// refused with err (what the guard's Allow returned, or an error that
// wraps it): a whole number of seconds, one at least, as the Retry-After
// header the Handler writes says it. It reads the guard's state:
//
//   - An error with a RetryAfter() time.Duration method that returns more
//     than 0, as a breaker's *breaker.OpenError does: that wait, the time
//     until the breaker admits a probe.
//   - A *bulkhead.Bulkhead full (bulkhead.ErrBulkheadFull): the base
//     (WithRetryAfter) times 1 + queued/capacity, so that each
//     capacity's worth of callers queued ahead adds a base to the wait.
//   - A *throttle.Throttle's rejection (throttle.ErrThrottled): the base
//     divided by 1 − the throttle's rejection probability, the time a
//     client that tries once per base expects to wait for a request to get
//     through.
//   - Anything else: the base.
//
// That wait is rounded up to whole seconds, n, and spread: a number of
// seconds drawn uniformly from 0 to ⌈n/2⌉ is added, so that the clients
// refused together come back over half as long again. The result is at
// most WithMaxRetryAfter. It is safe for concurrent use; it reads the
// guard's state and draws once from the random source (WithRandom). An
// invalid Shedder returns the base.
func (s *Shedder) RetryAfter(err error) time.Duration {
	if s.Validate() != nil {
		return DefaultRetryAfter
	}
	secs := math.Ceil(s.hint(err).Seconds())
	maxSecs := math.Floor(s.max.Seconds())
	secs = min(max(secs, 1), maxSecs)
	spread := math.Ceil(secs / 2)
	u := s.random()
	switch {
	case !(u >= 0): // NaN included
		u = 0
	case u >= 1:
		u = math.Nextafter(1, 0)
	}
	secs = min(secs+math.Floor(u*(spread+1)), maxSecs)
	return time.Duration(secs) * time.Second
}

// hint is the wait the guard's state gives for a refusal with err, before
// it is rounded and spread.
func (s *Shedder) hint(err error) time.Duration {
	var named interface{ RetryAfter() time.Duration }
	if errors.As(err, &named) {
		if d := named.RetryAfter(); d > 0 {
			return d
		}
	}
	switch g := s.g.(type) {
	case *bulkhead.Bulkhead:
		if errors.Is(err, bulkhead.ErrBulkheadFull) {
			st := g.Stats()
			return s.scaled(1 + float64(st.Queued)/float64(max(st.Capacity, 1)))
		}
	case *throttle.Throttle:
		if errors.Is(err, throttle.ErrThrottled) {
			return s.scaled(1 / (1 - min(g.Stats().Probability, 1)))
		}
	}
	return s.base
}

// scaled returns the base times f, at most the maximum wait.
func (s *Shedder) scaled(f float64) time.Duration {
	d := float64(s.base) * f
	if !(d < float64(s.max)) { // +Inf and NaN included
		return s.max
	}
	return time.Duration(d)
}
