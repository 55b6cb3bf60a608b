package prombackoff

import (
	"fmt"
	"strings"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/budget"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/herdsafe/backoff/limiter"
	"github.com/herdsafe/backoff/throttle"
	"github.com/prometheus/client_golang/prometheus"
)

// The Observe methods register a collector that reads a guard when the
// registry is scraped, on the scraping goroutine: no goroutine of their
// own, nothing on the guard's call path. Each reports its guard under the
// name label name, a constant label of each metric, so that the registry
// itself refuses a second guard of the same kind and name in the same
// namespace; that, a nil guard or an empty name is reported as
// ErrInvalidConfiguration. Unregister the Registration to stop; the name
// may then be observed again. They are those of otelbackoff, with the same
// names and the same metrics.

// ObserveBreaker registers a collector of b, read from b.State and
// b.Counts at each scrape: breaker_state (1 for the current state, 0 for
// the others, by state: closed, open, half-open, and the forced-open and
// forced-closed of ForceOpen and ForceClosed), breaker_transitions_total,
// breaker_forced_transitions_total (the changes made by ForceOpen,
// ForceClosed and Reset), breaker_refusals_total, breaker_calls_total by
// how b recorded them (outcome success, failure, neutral or ignored), and
// breaker_slow_calls_total (those slower than WithSlowCalls' duration).
// Reading the state may move an open breaker whose open duration has
// passed to half-open, and so run its WithStateChange hook on the scraping
// goroutine.
func (in *Instrumenter) ObserveBreaker(name string, b *breaker.Breaker) (*Registration, error) {
	return in.observe(name, telemetry.Breaker(b))
}

// ObserveBulkhead registers a collector of b, read from b.Stats at each
// scrape: bulkhead_in_flight, bulkhead_queued, bulkhead_limit (its
// capacity), bulkhead_refusals_total (with an empty priority label: a
// Bulkhead has no priorities) and bulkhead_cancellations_total.
func (in *Instrumenter) ObserveBulkhead(name string, b *bulkhead.Bulkhead) (*Registration, error) {
	return in.observe(name, telemetry.Bulkhead(b))
}

// ObservePriorityBulkhead registers a collector of b, read from b.Stats at
// each scrape: bulkhead_in_flight, bulkhead_limit (its capacity),
// bulkhead_refusals_total by priority (low, standard, critical) and
// bulkhead_cancellations_total. It has no queue, so no bulkhead_queued.
// Its metrics are a Bulkhead's, so that both kinds can be observed on one
// registry, under different names.
func (in *Instrumenter) ObservePriorityBulkhead(name string, b *bulkhead.PriorityBulkhead) (*Registration, error) {
	return in.observe(name, telemetry.PriorityBulkhead(b))
}

// ObserveLimiter registers a collector of l, read from l.Stats at each
// scrape: limiter_limit (its current limit), limiter_in_flight,
// limiter_queued, limiter_refusals_total by priority (low, standard,
// critical; every refusal is standard for a Limiter that reads no
// priority) and limiter_cancellations_total.
func (in *Instrumenter) ObserveLimiter(name string, l *limiter.Limiter) (*Registration, error) {
	return in.observe(name, telemetry.Limiter(l))
}

// ObserveBudget registers a collector of b, read from b.Stats at each
// scrape: budget_retries_total (the retries it admitted) and
// budget_refusals_total (those it refused). A ratio budget reads its
// clock.
func (in *Instrumenter) ObserveBudget(name string, b *budget.Budget) (*Registration, error) {
	return in.observe(name, telemetry.Budget(b))
}

// ObserveThrottle registers a collector of t, read from t.Stats at each
// scrape: throttle_refusals_total (the calls it rejected locally) and
// throttle_rejection_probability (the probability, from 0 to 1, that it
// rejects the next call). It reads t's clock.
func (in *Instrumenter) ObserveThrottle(name string, t *throttle.Throttle) (*Registration, error) {
	return in.observe(name, telemetry.Throttle(t))
}

// Registration is the observation of a guard that an Observe method
// registered.
type Registration struct{ r telemetry.Registration }

// Unregister unregisters the guard's collector, and frees its name, which
// may then be observed again. It returns an error if the registry no
// longer held the collector; a second call does nothing and returns nil.
func (r *Registration) Unregister() error { return r.r.Unregister() }

// guardCollector is a prometheus.Collector of one guard: the description
// and the type of each series.
type guardCollector struct {
	o     telemetry.Observed
	descs []*prometheus.Desc // the series'
	types []prometheus.ValueType
	all   []*prometheus.Desc // each metric's, once
}

// Describe sends the descriptions of the guard's metrics.
func (c *guardCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.all {
		ch <- d
	}
}

// Collect reads the guard and sends its metrics.
func (c *guardCollector) Collect(ch chan<- prometheus.Metric) {
	values := make([]float64, len(c.o.Series))
	c.o.Read(values)
	for i, s := range c.o.Series {
		var labels []string
		if s.Metric.Label != nil {
			labels = []string{s.Value}
		}
		ch <- prometheus.MustNewConstMetric(c.descs[i], c.types[i], values[i], labels...)
	}
}

// observe checks the arguments of an Observe method, and registers the
// collector of o, the guard named name.
func (in *Instrumenter) observe(name string, o telemetry.Observed) (*Registration, error) {
	in.check()
	if err := o.Check(settings, name); err != nil {
		return nil, err
	}
	c := &guardCollector{o: o}
	descs := make(map[*telemetry.Metric]*prometheus.Desc)
	for _, m := range o.Metrics() {
		var labels []string
		if m.Label != nil {
			labels = []string{m.Label.Name}
		}
		sub := strings.ReplaceAll(m.Name, ".", "_")
		if m.Kind == telemetry.Counter {
			sub += "_total"
		}
		descs[m] = prometheus.NewDesc(prometheus.BuildFQName(in.namespace, "", sub), m.Help, labels,
			prometheus.Labels{labelName: name})
		c.all = append(c.all, descs[m])
	}
	for _, s := range o.Series {
		t := prometheus.GaugeValue
		if s.Metric.Kind == telemetry.Counter {
			t = prometheus.CounterValue
		}
		c.descs, c.types = append(c.descs, descs[s.Metric]), append(c.types, t)
	}
	if err := in.reg.Register(c); err != nil {
		return nil, settings.Invalid("%s(%q): %w", o.Method, name, err)
	}
	return &Registration{r: telemetry.NewRegistration(func() error {
		if !in.reg.Unregister(c) {
			return fmt.Errorf("prombackoff: %s(%q): the registry no longer holds its collector", o.Method, name)
		}
		return nil
	})}, nil
}
