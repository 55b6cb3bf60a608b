package otelbackoff

import (
	"context"

	"github.com/herdsafe/backoff/bulkhead"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ObserveBulkhead reports b's reading (b.Stats) under the guard.name name
// when the metrics are collected: backoff.bulkhead.in_flight,
// backoff.bulkhead.queued, backoff.bulkhead.limit (its capacity),
// backoff.bulkhead.refusals and backoff.bulkhead.cancellations.
//
// A nil b, an empty name, or a name another bulkhead is observed under by
// this Instrumenter is reported as ErrInvalidConfiguration. Unregister the
// result to stop; the name may then be observed again.
func (in *Instrumenter) ObserveBulkhead(name string, b *bulkhead.Bulkhead) (metric.Registration, error) {
	return in.observe("ObserveBulkhead", name, b == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		inFlight, limit := bulkheadLevels(&is)
		queued := is.upDown(bulkheadQueuedName, "{call}", "Callers waiting in the bulkhead's queue for a slot.")
		refusals, cancellations := bulkheadCounters(&is)
		own := set(guard)
		cb := func(_ context.Context, o metric.Observer) error {
			s := b.Stats()
			o.ObserveInt64(inFlight, int64(s.InFlight), own)
			o.ObserveInt64(queued, int64(s.Queued), own)
			o.ObserveInt64(limit, int64(s.Capacity), own)
			o.ObserveInt64(refusals, count(s.Refused), own)
			o.ObserveInt64(cancellations, count(s.Canceled), own)
			return nil
		}
		return cb, is.all, is.err()
	})
}

// ObservePriorityBulkhead reports b's reading (b.Stats) under the
// guard.name name when the metrics are collected:
// backoff.bulkhead.in_flight, backoff.bulkhead.limit (its capacity),
// backoff.bulkhead.refusals by bulkhead.priority, and
// backoff.bulkhead.cancellations. It has no queue, so no
// backoff.bulkhead.queued.
//
// A nil b, an empty name, or a name another priority bulkhead is observed
// under by this Instrumenter is reported as ErrInvalidConfiguration.
// Unregister the result to stop; the name may then be observed again.
func (in *Instrumenter) ObservePriorityBulkhead(name string, b *bulkhead.PriorityBulkhead) (metric.Registration, error) {
	return in.observe("ObservePriorityBulkhead", name, b == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		inFlight, limit := bulkheadLevels(&is)
		refusals, cancellations := bulkheadCounters(&is)
		own := set(guard)
		low := set(guard, PriorityKey.String(bulkhead.Low.String()))
		standard := set(guard, PriorityKey.String(bulkhead.Standard.String()))
		critical := set(guard, PriorityKey.String(bulkhead.Critical.String()))
		cb := func(_ context.Context, o metric.Observer) error {
			s := b.Stats()
			o.ObserveInt64(inFlight, int64(s.InFlight), own)
			o.ObserveInt64(limit, int64(s.Capacity), own)
			o.ObserveInt64(refusals, count(s.RefusedLow), low)
			o.ObserveInt64(refusals, count(s.RefusedStandard), standard)
			o.ObserveInt64(refusals, count(s.RefusedCritical), critical)
			o.ObserveInt64(cancellations, count(s.Canceled), own)
			return nil
		}
		return cb, is.all, is.err()
	})
}

// bulkheadLevels makes the instruments of the levels both kinds of
// bulkhead have.
func bulkheadLevels(is *instruments) (inFlight, limit metric.Int64ObservableUpDownCounter) {
	inFlight = is.upDown(bulkheadInFlightName, "{call}", "Calls the bulkhead admitted that have not ended.")
	limit = is.upDown(bulkheadLimitName, "{call}", "The most calls the bulkhead admits at once.")
	return inFlight, limit
}

// bulkheadCounters makes the instruments of a bulkhead's counts.
func bulkheadCounters(is *instruments) (refusals, cancellations metric.Int64ObservableCounter) {
	refusals = is.counter(bulkheadRefusalsName, "{call}", "Calls the bulkhead refused as full.")
	cancellations = is.counter(bulkheadCancellationsName, "{call}", "Callers turned away because their context was done.")
	return refusals, cancellations
}
