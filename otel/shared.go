package otelbackoff

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// SharedGuard is a guard whose state a fleet shares, and that decides on a
// local fallback while it cannot reach that state: the budget and the
// breaker of module github.com/herdsafe/backoff/redisguard are
// SharedGuards (this module does not import it).
type SharedGuard interface {
	// Fallback reports whether the guard decides on its local fallback
	// now, and how many times it has turned to the fallback and back
	// since it was made.
	Fallback() (local bool, fallbacks, recoveries uint64)
}

// ObserveShared reports whether g decides on its local fallback, under the
// guard.name name, read from g.Fallback when the metrics are collected:
// backoff.shared_guard.local (1 while on the fallback, 0 while on the
// shared state), backoff.shared_guard.fallbacks and
// backoff.shared_guard.recoveries. g's own counts (a breaker's state, a
// budget's refusals) are read from its Stats, which this package does not
// know.
//
// A nil g, an empty name, or a name another shared guard is observed under
// by this Instrumenter is reported as ErrInvalidConfiguration. Unregister
// the result to stop; the name may then be observed again. g.Fallback is
// called on the collecting goroutine; if it panics, the panic goes on to
// the collector.
func (in *Instrumenter) ObserveShared(name string, g SharedGuard) (metric.Registration, error) {
	return in.observe("ObserveShared", name, g == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		local := is.gauge(sharedLocalName, "1", "1 while the guard decides on its local fallback, 0 while on the shared state.")
		fallbacks := is.counter(sharedFallbacksName, "{fallback}", "Turns of the guard from the shared state to its local fallback.")
		recoveries := is.counter(sharedRecoveriesName, "{recovery}", "Returns of the guard from its local fallback to the shared state.")
		own := set(guard)
		cb := func(_ context.Context, o metric.Observer) error {
			isLocal, f, r := g.Fallback()
			v := int64(0)
			if isLocal {
				v = 1
			}
			o.ObserveInt64(local, v, own)
			o.ObserveInt64(fallbacks, count(f), own)
			o.ObserveInt64(recoveries, count(r), own)
			return nil
		}
		return cb, is.all, is.err()
	})
}
