package prombackoff

import (
	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/herdsafe/backoff/ratelimit"
)

// ObserveRateLimiter registers an observation of l under name, read from
// l.Stats at each collection, which reads l's clock: the rate limiter
// metrics (see Guards in the package documentation): its rate and burst,
// the tokens in its bucket, the calls waiting for theirs, and the calls it
// admitted after a wait and refused.
//
// Deprecated: use Observe, which takes a guard of any kind and reports
// the same metrics under the same names.
func (in *Instrumenter) ObserveRateLimiter(name string, l *ratelimit.Limiter) (*Registration, error) {
	return in.observe(name, telemetry.Guard("ObserveRateLimiter", l))
}
