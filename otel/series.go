package otelbackoff

import (
	"sync"
	"sync/atomic"

	"github.com/herdsafe/backoff/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// The measurement options of each attribute set are made once, so that a
// measurement builds no attribute.Set; and so are the first attributes of
// the spans of the first attempts, so that BeforeAttempt builds none.

// named is the Instrumenter of one operation name (see Named): the series
// of the name whose other attribute, if any, is fixed (the attempts by
// outcome, and the waits), and the span name and attributes of its first
// attempts. It is made once for each name, and never changed.
type named struct {
	in                        *Instrumenter
	name                      string // retry.name
	spanName                  string
	success, failure, refused []metric.AddOption
	wait                      []metric.RecordOption

	// spans holds the attributes BeforeAttempt gives the span of
	// attempt k at k-1: retry.name and retry.num, sorted by key, so
	// that a span that sorts what it is given in place (as attribute.NewSet
	// does) writes nothing. They are shared by every span of the name and
	// never written.
	spans [spanAttempts][2]attribute.KeyValue
}

// spanAttempts is how many first attempts of a name have their span
// attributes made once: most calls succeed within them.
const spanAttempts = 4

// newNamed makes the Instrumenter of the operation name, or of the
// unnamed operation for "".
func (in *Instrumenter) newNamed(name string) *named {
	spanName := name
	if name == "" {
		name, spanName = Unnamed, SpanName
	}
	n := &named{
		in:       in,
		name:     name,
		spanName: spanName,
		success:  addOptions(NameKey.String(name), OutcomeKey.String(telemetry.Success.String())),
		failure:  addOptions(NameKey.String(name), OutcomeKey.String(telemetry.Failure.String())),
		refused:  addOptions(NameKey.String(name), OutcomeKey.String(telemetry.Refused.String())),
		wait:     []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(NameKey.String(name)))},
	}
	for k := range n.spans {
		n.spans[k] = attemptAttributes(name, k+1)
	}
	return n
}

// attemptAttributes are the first attributes of the span of attempt k of
// name, sorted by key: attempt k is retry k−1.
func attemptAttributes(name string, k int) [2]attribute.KeyValue {
	return [2]attribute.KeyValue{NameKey.String(name), RetryNumKey.Int(k - 1)}
}

// spanAttributes returns the first attributes of the span of attempt k,
// which the caller must not change.
func (n *named) spanAttributes(k int) []attribute.KeyValue {
	if k >= 1 && k <= len(n.spans) {
		return n.spans[k-1][:]
	}
	attrs := attemptAttributes(n.name, k)
	return attrs[:]
}

// outcome returns the options of the attempts that ended with o.
func (n *named) outcome(o telemetry.Outcome) []metric.AddOption {
	switch o {
	case telemetry.Success:
		return n.success
	case telemetry.Refused:
		return n.refused
	}
	return n.failure
}

// seriesKey identifies a series of an operation name and a value of key:
// an error type, a cause.
type seriesKey struct {
	key   attribute.Key
	name  string
	value string
}

// maxSeries bounds the series of seriesKeys kept: past it, each
// measurement of a new set builds its options again, so that an unbounded
// set of names (which the names must not be) costs time rather than
// memory. (The named series are bounded by telemetry.MaxNames.)
const maxSeries = 4096

// seriesCache holds the Instrumenters of the names (see Named), and the
// series measured so far.
type seriesCache struct {
	names  telemetry.Names[*named]
	values sync.Map     // seriesKey -> []metric.AddOption
	n      atomic.Int64 // the entries of values
}

// get returns the options of the series k.
func (c *seriesCache) get(k seriesKey) []metric.AddOption {
	if v, ok := c.values.Load(k); ok {
		return v.([]metric.AddOption)
	}
	opts := addOptions(NameKey.String(k.name), k.key.String(k.value))
	if c.n.Load() >= maxSeries {
		return opts
	}
	if v, loaded := c.values.LoadOrStore(k, opts); loaded {
		return v.([]metric.AddOption)
	}
	c.n.Add(1)
	return opts
}

func addOptions(kvs ...attribute.KeyValue) []metric.AddOption {
	return []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(kvs...))}
}
