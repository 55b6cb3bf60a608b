package otelbackoff

import (
	"context"

	"github.com/herdsafe/backoff/budget"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ObserveBudget reports b's counts (b.Stats) under the guard.name name when
// the metrics are collected: backoff.budget.retries (the retries it
// admitted) and backoff.budget.refusals (those it refused). A ratio budget
// reads its clock.
//
// A nil b, an empty name, or a name another budget is observed under by
// this Instrumenter is reported as ErrInvalidConfiguration. Unregister the
// result to stop; the name may then be observed again.
func (in *Instrumenter) ObserveBudget(name string, b *budget.Budget) (metric.Registration, error) {
	return in.observe("ObserveBudget", name, b == nil, func(guard attribute.KeyValue) (metric.Callback, []metric.Observable, error) {
		is := instruments{m: in.meter}
		retries := is.counter(budgetRetriesName, "{retry}", "Retries the budget admitted.")
		refusals := is.counter(budgetRefusalsName, "{retry}", "Retries the budget refused.")
		own := set(guard)
		cb := func(_ context.Context, o metric.Observer) error {
			s := b.Stats()
			o.ObserveInt64(retries, count(s.Allowed), own)
			o.ObserveInt64(refusals, count(s.Refused), own)
			return nil
		}
		return cb, is.all, is.err()
	})
}
