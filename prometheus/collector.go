package prombackoff

import (
	"fmt"
	"strings"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/httpshed"
	"github.com/herdsafe/backoff/internal/telemetry"
	"github.com/prometheus/client_golang/prometheus"
)

// Observe registers a collector of g, a guard of any kind, under name,
// read from g.ReadMetrics at each scrape: the metrics its Describe names,
// each named with the namespace and the metric's name, its dots made
// underscores (a Counter with _total, and a counter; any other a gauge),
// with the label guard and, for a metric with a Label, the label. Every
// guard of this repository is a guard.Describer, and so is a guard of
// your own that implements it: see Guards in the package documentation.
//
// A nil g, typed or not, an empty name and a Description that cannot be
// reported (no kind, no series, a series with no metric name, a label
// value with no label) are reported as an error matching
// backoff.ErrInvalidConfiguration, and so is a collector the registry
// refuses (a name observed twice for one kind of guard). g.ReadMetrics is
// called on the scraping goroutine; if it panics, the panic goes on to the
// registry's Gather.
func (in *Instrumenter) Observe(name string, g guard.Describer) (*Registration, error) {
	return in.observe(name, telemetry.Guard("Observe", g))
}

// ObserveShedder registers a collector of s, an httpshed middleware,
// under name, read from s.Stats when the registry is scraped: the requests
// it refused before asking its guard (retries under pressure, callers who
// would not wait for its queue) and its queue's time, the
// backoff_shedder metrics. Observe its guard as well, with Observe.
func (in *Instrumenter) ObserveShedder(name string, s *httpshed.Shedder) (*Registration, error) {
	return in.observe(name, telemetry.Shedder(s))
}

// Registration is the observation of a guard that an Observe method
// registered.
type Registration struct{ r telemetry.Registration }

// Unregister unregisters the guard's collector, and frees its name, which
// may then be observed again. It returns an error if the registry no
// longer held the collector; a second call does nothing and returns nil,
// and so does a call on a nil *Registration, what an Observe method
// returns with its error: it registered nothing.
func (r *Registration) Unregister() error {
	if r == nil {
		return nil
	}
	return r.r.Unregister()
}

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
