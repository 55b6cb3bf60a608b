package otelbackoff

import (
	"context"

	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/limiter"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ObserveLimiter reports l's reading (l.Stats) under the guard.name name
// when the metrics are collected: backoff.limiter.limit (its current
// limit), backoff.limiter.in_flight, backoff.limiter.queued,
// backoff.limiter.refusals by limiter.priority (every refusal is
// "standard" for a Limiter that reads no priority) and
// backoff.limiter.cancellations.
//
// A nil l, an empty name, or a name another limiter is observed under by
// this Instrumenter is reported as ErrInvalidConfiguration. Unregister the
// result to stop; the name may then be observed again.
func (in *Instrumenter) ObserveLimiter(name string, l *limiter.Limiter) (metric.Registration, error) {
	return in.observe("ObserveLimiter", name, l == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		limit := is.upDown(limiterLimitName, "{call}", "The most calls the limiter admits at once, as it now stands.")
		inFlight := is.upDown(limiterInFlightName, "{call}", "Calls the limiter admitted that have not ended.")
		queued := is.upDown(limiterQueuedName, "{call}", "Callers waiting in the limiter's queue.")
		refusals := is.counter(limiterRefusalsName, "{call}", "Calls the limiter refused: over the limit, or shed by their priority.")
		cancellations := is.counter(limiterCancellationsName, "{call}", "Callers turned away because their context was done.")
		own := set(guard)
		low := set(guard, LimiterPriorityKey.String(bulkhead.Low.String()))
		standard := set(guard, LimiterPriorityKey.String(bulkhead.Standard.String()))
		critical := set(guard, LimiterPriorityKey.String(bulkhead.Critical.String()))
		cb := func(_ context.Context, o metric.Observer) error {
			s := l.Stats()
			o.ObserveInt64(limit, int64(s.Limit), own)
			o.ObserveInt64(inFlight, int64(s.InFlight), own)
			o.ObserveInt64(queued, int64(s.Queued), own)
			o.ObserveInt64(refusals, count(s.RefusedLow), low)
			o.ObserveInt64(refusals, count(s.RefusedStandard), standard)
			o.ObserveInt64(refusals, count(s.RefusedCritical), critical)
			o.ObserveInt64(cancellations, count(s.Canceled), own)
			return nil
		}
		return cb, is.all, is.err()
	})
}
