package otelbackoff

import (
	"context"
	"errors"
	"sync"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/internal/telemetry"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Instrumenter is a backoff.Instrumenter that traces each attempt with a
// span and counts attempts, retries and give-ups with metrics; its Observe
// methods report the state of guards. Make one with New, and give it, or
// the Instrumenter of an operation that its Named method returns, to any
// number of retries with backoff.WithInstrumenter. Used itself, it reports
// an unnamed operation: spans named SpanName, retry.name Unnamed. It is
// safe for concurrent use.
type Instrumenter struct {
	tracer  trace.Tracer
	meter   metric.Meter
	names   telemetry.Namer // with the user's WithErrorType, if any
	unnamed *named          // the Instrumenter's own operation

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
	setting.Apply(settings, &c.err, "New", &c, opts)
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
	in.unnamed = in.newNamed("")
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
		return nil, settings.Invalid("making the instruments: %w", err)
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

// Named returns the Instrumenter of the operation name: its attempts'
// spans are named name, and its spans and measurements have the attribute
// retry.name=name, so that spans and series of different operations group
// apart. Give it to a retry with backoff.WithInstrumenter(in.Named(name)).
// It reports to in's tracer and meter, and is safe for concurrent use.
//
// The Instrumenters of up to 1024 names are made once and kept, with the
// attribute sets of their series, so that a call of Named for a name seen
// before allocates nothing; past that, each call makes one anew. Names must
// be a bounded set: name operations, not requests. Named("") returns the
// unnamed operation's Instrumenter, which reports as in itself does.
func (in *Instrumenter) Named(name string) backoff.Instrumenter {
	in.check()
	if name == "" {
		return in.unnamed
	}
	return in.series.names.Get(name, in.newNamed)
}

// BeforeAttempt starts the attempt's span, a child of the span in ctx, and
// returns ctx with it, for the operation and its own spans. The span is
// named SpanName, and its retry.name is Unnamed: see Named.
func (in *Instrumenter) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	in.check()
	return in.unnamed.BeforeAttempt(ctx, s)
}

// AfterAttempt ends the attempt's span with its outcome, and counts it.
// When the driver gives up after the wait that followed an attempt (the
// context was cancelled during it), it counts the give-up and records it as
// an event on the caller's span.
func (in *Instrumenter) AfterAttempt(ctx context.Context, s backoff.State) {
	in.check()
	in.unnamed.AfterAttempt(ctx, s)
}

// BeforeAttempt starts the attempt's span: see Instrumenter.BeforeAttempt.
func (n *named) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	actx, span := n.in.tracer.Start(ctx, n.spanName, startOptions...)
	a := &attempt{Context: actx, caller: ctx, span: span, named: n, n: s.Number}
	// The attributes of the first attempts are made once for the name. (A
	// span that does not record ignores them.)
	span.SetAttributes(n.spanAttributes(s.Number)...)
	return a
}

// AfterAttempt ends the attempt's span and counts it: see
// Instrumenter.AfterAttempt.
func (n *named) AfterAttempt(ctx context.Context, s backoff.State) {
	a := n.attemptOf(ctx, s.Number)
	outcome := telemetry.OutcomeOf(s)
	if outcome == telemetry.NoAttempt {
		if s.GivingUp {
			n.gaveUpBetween(ctx, a, s)
		}
		return
	}
	// Without an attempt of ours in ctx (an Instrumenter after this one
	// returned a context not derived from the one it was given), the
	// attempt is still counted, and there is no span of ours to end.
	span := noSpan
	if a != nil {
		span = a.span
	}
	n.in.attempts.Add(ctx, 1, n.outcome(outcome)...)
	if outcome != telemetry.Success {
		n.failed(ctx, span, s)
	}
	span.End()
}

// noSpan is the span of an attempt that has none of ours.
var noSpan = trace.SpanFromContext(context.Background())

// failed completes the span of an attempt that failed, and counts the
// retry or the give-up it leads to.
func (n *named) failed(ctx context.Context, span trace.Span, s backoff.State) {
	in := n.in
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

// gaveUpBetween counts a give-up after an attempt's wait, and records it
// on the caller's span. a is the attempt before it, if it is in ctx.
func (n *named) gaveUpBetween(ctx context.Context, a *attempt, s backoff.State) {
	in := n.in
	name, cause := n.name, in.names.Cause(s.Cause)
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
	attrs := []attribute.KeyValue{NameKey.String(name), RetryNumKey.Int(s.Number), CauseKey.String(cause)}
	if s.Err != nil {
		attrs = append(attrs, ErrorTypeKey.String(in.names.Type(s.Err)))
	}
	span.AddEvent(giveUpEvent, trace.WithAttributes(attrs...))
}
