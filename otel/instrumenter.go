package otelbackoff

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/telemetry"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Instrumenter is a backoff.Instrumenter that traces each attempt with a
// span and counts attempts, retries and give-ups with metrics; its Observe
// methods report the state of guards. Make one with New and give it to any
// number of retries with backoff.WithInstrumenter. It is safe for
// concurrent use.
type Instrumenter struct {
	tracer trace.Tracer
	meter  metric.Meter
	names  telemetry.Namer // with the user's WithErrorType, if any

	attempts metric.Int64Counter
	retries  metric.Int64Counter
	giveUps  metric.Int64Counter
	wait     metric.Float64Histogram
	series   seriesCache

	mu       sync.Mutex
	observed map[observedKey]bool // the guards observed, by kind and name
}

var startOptions = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindInternal)}

// New returns an Instrumenter that takes its tracer and meter, scoped
// ScopeName, from the global providers or those of WithTracerProvider and
// WithMeterProvider. An invalid option is reported as an error matching
// backoff.ErrInvalidConfiguration; so is an error of the meter in making
// the instruments.
func New(opts ...Option) (*Instrumenter, error) {
	var c config
	for _, opt := range opts {
		if opt == nil {
			c.fail("an Option is nil")
			continue
		}
		opt(&c)
	}
	if c.err != nil {
		return nil, c.err
	}
	if c.tracers == nil {
		c.tracers = otel.GetTracerProvider()
	}
	if c.meters == nil {
		c.meters = otel.GetMeterProvider()
	}
	in := &Instrumenter{
		tracer:   c.tracers.Tracer(ScopeName),
		meter:    c.meters.Meter(ScopeName),
		names:    telemetry.Namer{ErrorType: c.errorType},
		observed: make(map[observedKey]bool),
	}
	var errs [4]error
	in.attempts, errs[0] = in.meter.Int64Counter(attemptsName, metric.WithUnit("{attempt}"),
		metric.WithDescription("Attempts made by retries, by how they ended."))
	in.retries, errs[1] = in.meter.Int64Counter(retriesName, metric.WithUnit("{retry}"),
		metric.WithDescription("Retries scheduled after a failed attempt, before their wait."))
	in.giveUps, errs[2] = in.meter.Int64Counter(giveUpsName, metric.WithUnit("{call}"),
		metric.WithDescription("Retried calls that failed: the driver gave up, by why."))
	in.wait, errs[3] = in.meter.Float64Histogram(waitName, metric.WithUnit("s"),
		metric.WithDescription("Waits scheduled before a retry."),
		metric.WithExplicitBucketBoundaries(telemetry.WaitBuckets()...))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("otelbackoff: making the instruments: %w: %w", err, backoff.ErrInvalidConfiguration)
	}
	return in, nil
}

// check panics with a clear message for an Instrumenter New did not make,
// which could record nothing.
func (in *Instrumenter) check() {
	if in == nil || in.tracer == nil {
		panic("otelbackoff: the Instrumenter was not made by New")
	}
}

// BeforeAttempt starts the attempt's span, a child of the span in ctx, and
// returns ctx with it, for the operation and its own spans.
func (in *Instrumenter) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	in.check()
	spanName := s.Name
	if spanName == "" {
		spanName = SpanName
	}
	actx, span := in.tracer.Start(ctx, spanName, startOptions...)
	a := &attempt{Context: actx, caller: ctx, span: span, in: in, n: s.Attempt, named: in.series.named(telemetry.Name(s))}
	// The attributes of the first attempts are made once for the name. (A
	// span that does not record ignores them.)
	span.SetAttributes(a.named.spanAttributes(s.Attempt)...)
	return a
}

// AfterAttempt ends the attempt's span with its outcome, and counts it.
// When the driver gives up outside an attempt (the context was done before
// the first, or during a wait), it counts the give-up and records it as an
// event on the caller's span.
func (in *Instrumenter) AfterAttempt(ctx context.Context, s backoff.State) {
	in.check()
	a := in.attemptOf(ctx, s.Attempt)
	outcome := telemetry.OutcomeOf(s)
	if outcome == telemetry.NoAttempt {
		if s.GivingUp {
			in.gaveUpBetween(ctx, a, s)
		}
		return
	}
	// Without an attempt of ours in ctx (an Instrumenter after this one
	// returned a context not derived from the one it was given), the
	// attempt is still counted, and there is no span of ours to end.
	span, n := noSpan, (*named)(nil)
	if a != nil {
		span, n = a.span, a.named
	} else {
		n = in.series.named(telemetry.Name(s))
	}
	in.attempts.Add(ctx, 1, n.outcome(outcome)...)
	if outcome != telemetry.Success {
		in.failed(ctx, span, n, s)
	}
	span.End()
}

// noSpan is the span of an attempt that has none of ours.
var noSpan = trace.SpanFromContext(context.Background())

// failed completes the span of an attempt that failed, and counts the
// retry or the give-up it leads to.
func (in *Instrumenter) failed(ctx context.Context, span trace.Span, n *named, s backoff.State) {
	etype := in.names.Type(s.Err)
	recording := span.IsRecording()
	if s.GivingUp {
		cause := in.names.Cause(s.Cause)
		in.giveUps.Add(ctx, 1, in.series.get(seriesKey{CauseKey, n.name, cause})...)
		if recording {
			span.SetAttributes(ErrorTypeKey.String(etype), GivingUpKey.Bool(true), CauseKey.String(cause))
		}
	} else {
		in.retries.Add(ctx, 1, in.series.get(seriesKey{ErrorTypeKey, n.name, etype})...)
		in.wait.Record(ctx, s.NextDelay.Seconds(), n.wait...)
		if recording {
			span.SetAttributes(ErrorTypeKey.String(etype), GivingUpKey.Bool(false), BackoffDurationKey.Float64(s.NextDelay.Seconds()))
		}
	}
	if recording {
		span.SetStatus(codes.Error, s.Err.Error())
	}
}

// gaveUpBetween counts a give-up outside an attempt, and records it on the
// caller's span. a is the attempt before it, if any.
func (in *Instrumenter) gaveUpBetween(ctx context.Context, a *attempt, s backoff.State) {
	name, cause := telemetry.Name(s), in.names.Cause(s.Cause)
	in.giveUps.Add(ctx, 1, in.series.get(seriesKey{CauseKey, name, cause})...)
	parent := ctx
	if a != nil {
		parent = a.caller
	}
	span := trace.SpanFromContext(parent)
	if !span.IsRecording() {
		return
	}
	// The retry given up on is the one after the last attempt made.
	attrs := []attribute.KeyValue{NameKey.String(name), RetryNumKey.Int(s.Attempt), CauseKey.String(cause)}
	if s.Err != nil {
		attrs = append(attrs, ErrorTypeKey.String(in.names.Type(s.Err)))
	}
	span.AddEvent(giveUpEvent, trace.WithAttributes(attrs...))
}
