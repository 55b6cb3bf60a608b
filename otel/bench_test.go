package otelbackoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	otelbackoff "github.com/herdsafe/backoff/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The success path's cost: what the SDK costs for a span, and what the
// Instrumenter adds to it. Compare, in one run:
//
//	BenchmarkSpan/P            a bare span start and end with the SDK
//	BenchmarkDoTraced/P        backoff.Do with the Instrumenter, tracing only
//	BenchmarkDoNopInstrumenter backoff.Do with an Instrumenter doing nothing
//
// ours = DoTraced − Span; of it, DoNopInstrumenter − DoBare is the core's
// cost of calling an Instrumenter at all. P is the span pipeline: "batch",
// a batch span processor exporting to a discarding exporter (what a
// service runs, and so the honest cost), or "bare", a provider with no
// processor (a floor). DoTracedAndCounted adds the SDK's metrics, to be
// compared with Span plus CounterAdd.

// discard is a span exporter that drops what it is given.
type discard struct{}

func (discard) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discard) Shutdown(context.Context) error                             { return nil }

// pipelines are the span pipelines measured. Their options are made when
// used: a batcher starts its goroutine when it is made.
var pipelines = []struct {
	name string
	opts func() []sdktrace.TracerProviderOption
}{
	{"batch", func() []sdktrace.TracerProviderOption {
		return []sdktrace.TracerProviderOption{sdktrace.WithBatcher(discard{})}
	}},
	{"bare", func() []sdktrace.TracerProviderOption { return nil }},
}

// benchTracer returns the pipeline's provider and a context holding the
// caller's span.
func benchTracer(b *testing.B, opts func() []sdktrace.TracerProviderOption) (*sdktrace.TracerProvider, context.Context) {
	tp := sdktrace.NewTracerProvider(opts()...)
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("caller").Start(context.Background(), "caller")
	b.Cleanup(func() { span.End() })
	return tp, ctx
}

func BenchmarkSpan(b *testing.B) {
	for _, p := range pipelines {
		b.Run(p.name, func(b *testing.B) {
			tp, ctx := benchTracer(b, p.opts)
			tracer := tp.Tracer("bench")
			b.ReportAllocs()
			for b.Loop() {
				_, span := tracer.Start(ctx, "fetch")
				span.End()
			}
		})
	}
}

func BenchmarkDoTraced(b *testing.B) {
	for _, p := range pipelines {
		b.Run(p.name, func(b *testing.B) {
			tp, ctx := benchTracer(b, p.opts)
			in, err := otelbackoff.New(otelbackoff.WithTracerProvider(tp), otelbackoff.WithMeterProvider(noop.NewMeterProvider()))
			if err != nil {
				b.Fatal(err)
			}
			telemetrytest.BenchmarkDo(b, ctx, in.Named("fetch"))
		})
	}
}

func BenchmarkDoTracedAndCounted(b *testing.B) {
	tp, ctx := benchTracer(b, pipelines[0].opts)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	in, err := otelbackoff.New(otelbackoff.WithTracerProvider(tp), otelbackoff.WithMeterProvider(mp))
	if err != nil {
		b.Fatal(err)
	}
	telemetrytest.BenchmarkDo(b, ctx, in.Named("fetch"))
}

// CounterAdd is the SDK's cost of one counter increment with an attribute
// set made beforehand, as the Instrumenter makes it.
func BenchmarkCounterAdd(b *testing.B) {
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	c, err := mp.Meter("bench").Int64Counter("attempts")
	if err != nil {
		b.Fatal(err)
	}
	opts := []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("retry.name", "fetch"), attribute.String("retry.outcome", "success")))}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c.Add(ctx, 1, opts...)
	}
}

func BenchmarkDoNopInstrumenter(b *testing.B) {
	telemetrytest.BenchmarkDo(b, trace.ContextWithSpan(context.Background(), nil), telemetrytest.Nop{})
}

func BenchmarkDoBare(b *testing.B) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := backoff.Do(ctx, telemetrytest.Succeed); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOverhead measures, in one run, chunks of each of the success
// paths above in turn, and reports the fastest chunk of each, per call:
// on a shared, noisy machine the fastest chunk is the one least disturbed,
// and taking turns exposes each to the same disturbance. It reports
//
//	span-ns   a bare span, started and ended
//	attrs-ns  the span the Instrumenter makes: kind internal, retry.name
//	          and retry.num, from a slice made beforehand, as the
//	          Instrumenter passes them
//	do-ns     backoff.Do with the Instrumenter, tracing only
//	ours-ns   do-ns − span-ns
//	core-ns   backoff.Do with an Instrumenter doing nothing, less a bare
//	          backoff.Do: the core's cost of options and instrumentation
//	own-ns    do-ns − attrs-ns − core-ns: what this package adds to the
//	          span it asks the SDK for, and to the core
//	hooks-ns  BeforeAttempt and AfterAttempt of a successful attempt,
//	          called directly, less attrs-ns: what this package adds to
//	          the SDK, without the core around it
//
// for each span pipeline. Its own ns/op is that of a round, and means
// nothing. Run it with a fixed count of rounds, such as -benchtime=300x.
func BenchmarkOverhead(b *testing.B) {
	for _, p := range pipelines {
		b.Run(p.name, func(b *testing.B) { overhead(b, p.opts) })
	}
}

func overhead(b *testing.B, pipeline func() []sdktrace.TracerProviderOption) {
	tp, ctx := benchTracer(b, pipeline)
	tracer := tp.Tracer("bench")
	in, err := otelbackoff.New(otelbackoff.WithTracerProvider(tp), otelbackoff.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		b.Fatal(err)
	}
	var nopIn backoff.Instrumenter = telemetrytest.Nop{}
	fetch := in.Named("fetch")
	const chunk = 1000
	kind := trace.WithSpanKind(trace.SpanKindInternal)
	attrs := []attribute.KeyValue{otelbackoff.NameKey.String("fetch"), otelbackoff.RetryNumKey.Int(0)}
	first := backoff.State{Attempt: backoff.Attempt{Number: 1}}
	paths := []func(){
		func() {
			_, span := tracer.Start(ctx, "fetch")
			span.End()
		},
		func() {
			_, span := tracer.Start(ctx, "fetch", kind)
			span.SetAttributes(attrs...)
			span.End()
		},
		func() { _, _ = backoff.Do(ctx, telemetrytest.Succeed, backoff.WithInstrumenter(fetch)) },
		func() { _, _ = backoff.Do(ctx, telemetrytest.Succeed, backoff.WithInstrumenter(nopIn)) },
		func() { _, _ = backoff.Do(ctx, telemetrytest.Succeed) },
		func() {
			actx := fetch.BeforeAttempt(ctx, first)
			fetch.AfterAttempt(actx, first)
		},
	}
	best := make([]time.Duration, len(paths))
	for i := range best {
		best[i] = time.Hour
	}
	for b.Loop() {
		for i, path := range paths {
			start := time.Now()
			for range chunk {
				path()
			}
			best[i] = min(best[i], time.Since(start))
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / chunk }
	span, sdk, do, nop, bare, hooks := per(best[0]), per(best[1]), per(best[2]), per(best[3]), per(best[4]), per(best[5])
	b.ReportMetric(span, "span-ns")
	b.ReportMetric(sdk, "attrs-ns")
	b.ReportMetric(do, "do-ns")
	b.ReportMetric(do-span, "ours-ns")
	b.ReportMetric(nop-bare, "core-ns")
	b.ReportMetric(do-sdk-(nop-bare), "own-ns")
	b.ReportMetric(hooks-sdk, "hooks-ns")
}

// BenchmarkHooks is BeforeAttempt and AfterAttempt of a successful first
// attempt, called directly, on the bare pipeline; BenchmarkSpanAlike is the
// span they make, made with the SDK alone. Their difference is this
// package's own cost, without the core around it: count it in
// instructions, which a shared machine does not disturb, for example with
// cachegrind over two runs of different lengths (-benchtime 20000x and
// 120000x, GOGC=off, CGO_ENABLED=0).
func BenchmarkHooks(b *testing.B) {
	tp, ctx := benchTracer(b, pipelines[1].opts)
	in, err := otelbackoff.New(otelbackoff.WithTracerProvider(tp), otelbackoff.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		b.Fatal(err)
	}
	fetch := in.Named("fetch")
	s := backoff.State{Attempt: backoff.Attempt{Number: 1}}
	b.ReportAllocs()
	for b.Loop() {
		actx := fetch.BeforeAttempt(ctx, s)
		fetch.AfterAttempt(actx, s)
	}
}

func BenchmarkSpanAlike(b *testing.B) {
	tp, ctx := benchTracer(b, pipelines[1].opts)
	tracer := tp.Tracer("bench")
	kind := trace.WithSpanKind(trace.SpanKindInternal)
	attrs := []attribute.KeyValue{otelbackoff.NameKey.String("fetch"), otelbackoff.RetryNumKey.Int(0)}
	b.ReportAllocs()
	for b.Loop() {
		_, span := tracer.Start(ctx, "fetch", kind)
		span.SetAttributes(attrs...)
		span.End()
	}
}
