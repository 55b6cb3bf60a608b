package otelbackoff

import (
	"context"

	"github.com/herdsafe/backoff/throttle"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ObserveThrottle reports t's counts (t.Stats) under the guard.name name
// when the metrics are collected: backoff.throttle.refusals (the calls it
// rejected locally) and backoff.throttle.rejection_probability (the
// probability that it rejects the next call). It reads t's clock.
//
// A nil t, an empty name, or a name another throttle is observed under by
// this Instrumenter is reported as ErrInvalidConfiguration. Unregister the
// result to stop; the name may then be observed again.
func (in *Instrumenter) ObserveThrottle(name string, t *throttle.Throttle) (metric.Registration, error) {
	return in.observe("ObserveThrottle", name, t == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		refusals := is.counter(throttleRefusalsName, "{call}", "Calls the throttle rejected locally.")
		probability := is.floatGauge(throttleProbabilityName, "1", "The probability that the throttle rejects the next call.")
		own := set(guard)
		cb := func(_ context.Context, o metric.Observer) error {
			s := t.Stats()
			o.ObserveInt64(refusals, count(s.Rejected), own)
			o.ObserveFloat64(probability, s.Probability, own)
			return nil
		}
		return cb, is.all, is.err()
	})
}
