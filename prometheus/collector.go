package prombackoff

import (
	"fmt"

	"github.com/herdsafe/backoff"
	"github.com/prometheus/client_golang/prometheus"
)

// The Observe methods register a collector that reads a guard when the
// registry is scraped, on the scraping goroutine: no goroutine of their
// own, nothing on the guard's call path. The guard's name is a constant
// label of each metric, so that the registry itself refuses a second guard
// of the same kind and name.

// guardCollector is a prometheus.Collector of one guard.
type guardCollector struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

// Describe sends the descriptions of the guard's metrics.
func (c *guardCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

// Collect reads the guard and sends its metrics.
func (c *guardCollector) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

// descs makes the descriptions of one guard's metrics.
type descs struct {
	in    *Instrumenter
	guard string
	all   []*prometheus.Desc
}

// desc describes the metric sub (such as "breaker_state") of the guard.
func (d *descs) desc(sub, help string, labels ...string) *prometheus.Desc {
	desc := prometheus.NewDesc(prometheus.BuildFQName(d.in.namespace, "", sub), help, labels,
		prometheus.Labels{labelName: d.guard})
	d.all = append(d.all, desc)
	return desc
}

// observe checks the arguments of an Observe method, and registers the
// collector that build makes.
func (in *Instrumenter) observe(kind, name string, nilGuard bool, build func(d *descs) func(ch chan<- prometheus.Metric)) (func() bool, error) {
	in.check()
	switch {
	case nilGuard:
		return nil, fmt.Errorf("prombackoff: %s was given a nil guard: %w", kind, backoff.ErrInvalidConfiguration)
	case name == "":
		return nil, fmt.Errorf("prombackoff: %s was given an empty name: %w", kind, backoff.ErrInvalidConfiguration)
	}
	d := &descs{in: in, guard: name}
	c := &guardCollector{collect: build(d)}
	c.descs = d.all
	if err := in.reg.Register(c); err != nil {
		return nil, fmt.Errorf("prombackoff: %s(%q): %w: %w", kind, name, err, backoff.ErrInvalidConfiguration)
	}
	return func() bool { return in.reg.Unregister(c) }, nil
}

// counter and gauge make the metrics of a reading.
func counter(d *prometheus.Desc, n uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(n), labels...)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}
