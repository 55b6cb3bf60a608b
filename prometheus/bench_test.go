package prombackoff_test

import (
	"context"
	"testing"

	"github.com/herdsafe/backoff"
	prombackoff "github.com/herdsafe/backoff/prometheus"
	"github.com/prometheus/client_golang/prometheus"
)

func succeed(context.Context) (int, error) { return 1, nil }

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
	ctx := context.Background()
	fetch := in.Named("fetch")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := backoff.Do(ctx, succeed, backoff.WithInstrumenter(fetch)); err != nil {
			b.Fatal(err)
		}
	}
}

// nopInstrumenter does nothing: the core's cost of an Instrumenter.
type nopInstrumenter struct{}

func (nopInstrumenter) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return ctx
}
func (nopInstrumenter) AfterAttempt(context.Context, backoff.State) {}

func BenchmarkDoNopInstrumenter(b *testing.B) {
	ctx := context.Background()
	var in backoff.Instrumenter = nopInstrumenter{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := backoff.Do(ctx, succeed, backoff.WithInstrumenter(in)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCounterInc(b *testing.B) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "attempts_total"}, []string{"name", "outcome"}).
		WithLabelValues("fetch", "success")
	b.ReportAllocs()
	for b.Loop() {
		c.Inc()
	}
}
