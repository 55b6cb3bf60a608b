package otelbackoff

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/herdsafe/backoff/internal/telemetry"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// named returns the Instrumenter of name, as Named does (without the
// check of an Instrumenter made by New).
func (in *Instrumenter) named(name string) *named {
	return in.series.names.Get(name, in.newNamed)
}

// attributesOf returns the attribute set that opts measure with.
func attributesOf(opts []metric.AddOption) attribute.Set {
	return metric.NewAddConfig(opts).Attributes()
}

func TestSeriesAreMadeOnce(t *testing.T) {
	in := &Instrumenter{}
	c := &in.series
	n := in.named("fetch")
	if in.named("fetch") != n {
		t.Error("a second lookup of a name made its series again")
	}
	if n.in != in || n.name != "fetch" || n.spanName != "fetch" {
		t.Errorf("the Instrumenter of fetch reports to %p as %q, spans %q; want %p, fetch, fetch", n.in, n.name, n.spanName, in)
	}
	if u := in.newNamed(""); u.name != Unnamed || u.spanName != SpanName {
		t.Errorf("the unnamed operation reports as %q, spans %q; want %q, %q", u.name, u.spanName, Unnamed, SpanName)
	}
	for outcome, opts := range map[string][]metric.AddOption{"success": n.success, "failure": n.failure, "refused": n.refused} {
		want := attribute.NewSet(NameKey.String("fetch"), OutcomeKey.String(outcome))
		if got := attributesOf(opts); !got.Equals(&want) {
			t.Errorf("%s: attributes %v, want %v", outcome, got.ToSlice(), want.ToSlice())
		}
	}
	want := attribute.NewSet(NameKey.String("fetch"))
	if got := metric.NewRecordConfig(n.wait).Attributes(); !got.Equals(&want) {
		t.Errorf("wait: attributes %v, want %v", got.ToSlice(), want.ToSlice())
	}
	k := seriesKey{CauseKey, "fetch", "exhausted"}
	opts := c.get(k)
	if got := c.get(k); &got[0] != &opts[0] {
		t.Error("a second get made the series again")
	}
	want = attribute.NewSet(NameKey.String("fetch"), CauseKey.String("exhausted"))
	if got := attributesOf(opts); !got.Equals(&want) {
		t.Errorf("cause: attributes %v, want %v", got.ToSlice(), want.ToSlice())
	}
}

func TestSeriesCacheIsBounded(t *testing.T) {
	in := &Instrumenter{}
	c := &in.series
	for i := range telemetry.MaxNames {
		in.named(fmt.Sprint("op-", i))
	}
	n := in.named("request-1234")
	if len(n.success) != 1 || n.name != "request-1234" || in.named("request-1234") == n {
		t.Errorf("past the bound of names, named returned %+v, and kept it", n)
	}
	if c.names.Len() != telemetry.MaxNames {
		t.Errorf("%d names kept, want %d", c.names.Len(), telemetry.MaxNames)
	}
	c.n.Store(maxSeries)
	k := seriesKey{CauseKey, "op-1", "exhausted"}
	if opts := c.get(k); len(opts) != 1 {
		t.Fatal("past the bound of series, get returned options that cannot be used")
	}
	if _, ok := c.values.Load(k); ok || c.n.Load() != maxSeries {
		t.Errorf("past the bound the cache grew to %d", c.n.Load())
	}
}

// The span attributes of the first attempts are made once, sorted by key;
// those of later attempts are made on each call.
func TestSpanAttributesAreMadeOnce(t *testing.T) {
	n := (&Instrumenter{}).named("fetch")
	for _, k := range []int{1, spanAttempts, spanAttempts + 1, 1000} {
		want := []attribute.KeyValue{NameKey.String("fetch"), RetryNumKey.Int(k - 1)}
		got := n.spanAttributes(k)
		if !slices.Equal(got, want) {
			t.Errorf("attempt %d: span attributes %v, want %v", k, got, want)
		}
		if !slices.IsSortedFunc(got, func(a, b attribute.KeyValue) int { return cmp.Compare(a.Key, b.Key) }) {
			t.Errorf("attempt %d: span attributes %v are not sorted by key", k, got)
		}
		shared := &n.spanAttributes(k)[0] == &got[0]
		if made := k <= spanAttempts; shared != made {
			t.Errorf("attempt %d: span attributes shared %v, want %v", k, shared, made)
		}
	}
}
