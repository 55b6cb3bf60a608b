package prombackoff_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
)

// The success path's cost: what client_golang costs for the one counter
// increment it makes, and what the Instrumenter adds. Compare, in one run:
//
//	BenchmarkCounterInc        the increment of a counter looked up beforehand
//	BenchmarkDoCounted         backoff.Do with the Instrumenter
//	BenchmarkDoNopInstrumenter backoff.Do with an Instrumenter doing nothing
//
// ours = DoCounted − DoNopInstrumenter − CounterInc.

// The success path with the Instrumenter.
func BenchmarkDoCounted(b *testing.B) {
	in, err := prombackoff.New(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	telemetrytest.BenchmarkDo(b, context.Background(), in.Named("fetch"))
}

func BenchmarkDoNopInstrumenter(b *testing.B) {
	telemetrytest.BenchmarkDo(b, context.Background(), telemetrytest.Nop{})
}

func BenchmarkCounterInc(b *testing.B) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "attempts_total"}, []string{"name", "outcome"}).
		WithLabelValues("fetch", "success")
	b.ReportAllocs()
	for b.Loop() {
		c.Inc()
	}
}
