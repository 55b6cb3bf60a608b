package otelbackoff_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	otelbackoff "github.com/herdsafe/backoff/otel"
	"github.com/herdsafe/backoff/policy"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric/noop"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// unavailable is an error type of the test's, to be named by error.type.
type unavailable struct{ code int }

func (e *unavailable) Error() string { return "unavailable: " + string(rune('0'+e.code%10)) }

var errUnavailable = &unavailable{code: 3}

const typeUnavailable = "*otelbackoff_test.unavailable"

func TestSpansNestUnderTheCallerAndOverTheOperation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		ctx, caller := h.tracer.Start(context.Background(), "caller")
		n, err := backoff.Do(ctx, h.op(2, errUnavailable), telemetrytest.Every1s(h.in)...)
		caller.End()
		if err != nil || n != 3 {
			t.Fatalf("Do = %d, %v; want 3, nil", n, err)
		}
		attempts, ops := h.ended("fetch"), h.ended("op")
		if len(attempts) != 3 || len(ops) != 3 {
			t.Fatalf("%d attempt spans and %d operation spans; want 3 and 3", len(attempts), len(ops))
		}
		for i, a := range attempts {
			if a.Parent().SpanID() != caller.SpanContext().SpanID() || a.SpanContext().TraceID() != caller.SpanContext().TraceID() {
				t.Errorf("attempt %d: parent %v, want the caller's span %v", i+1, a.Parent().SpanID(), caller.SpanContext().SpanID())
			}
			if ops[i].Parent().SpanID() != a.SpanContext().SpanID() {
				t.Errorf("operation %d: parent %v, want its attempt's span %v", i+1, ops[i].Parent().SpanID(), a.SpanContext().SpanID())
			}
			if a.SpanKind() != trace.SpanKindInternal {
				t.Errorf("attempt %d: kind %v, want internal", i+1, a.SpanKind())
			}
		}
	})
}

func TestAttemptSpanAttributes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		if _, err := backoff.Do(context.Background(), h.op(1, errUnavailable), telemetrytest.Every1s(h.in)...); err != nil {
			t.Fatal(err)
		}
		spans := h.ended("fetch")
		if len(spans) != 2 {
			t.Fatalf("%d attempt spans, want 2", len(spans))
		}
		failed, won := spans[0], spans[1]
		want := []string{"error.type=" + typeUnavailable, "retry.backoff_duration=1", "retry.giving_up=false", "retry.name=fetch", "retry.num=0"}
		if got := attrs(failed.Attributes()); !slices.Equal(got, want) {
			t.Errorf("failed attempt: attributes %v, want %v", got, want)
		}
		if st := failed.Status(); st.Code != codes.Error || st.Description != errUnavailable.Error() {
			t.Errorf("failed attempt: status %v, want Error %q", st, errUnavailable.Error())
		}
		want = []string{"retry.name=fetch", "retry.num=1"}
		if got := attrs(won.Attributes()); !slices.Equal(got, want) {
			t.Errorf("successful attempt: attributes %v, want %v", got, want)
		}
		if st := won.Status(); st.Code != codes.Unset {
			t.Errorf("successful attempt: status %v, want Unset", st)
		}
	})
}

// The Instrumenter itself, and its Named(""), report an unnamed
// operation.
func TestUnnamedOperation(t *testing.T) {
	h := newHarness(t)
	for _, in := range []backoff.Instrumenter{h.in, h.in.Named("")} {
		if _, err := backoff.Do(context.Background(), h.op(0, nil), backoff.WithInstrumenter(in)); err != nil {
			t.Fatal(err)
		}
	}
	spans := h.ended(otelbackoff.SpanName)
	if len(spans) != 2 {
		t.Fatalf("%d spans named %q, want 2", len(spans), otelbackoff.SpanName)
	}
	for _, s := range spans {
		if got, want := attrs(s.Attributes()), []string{"retry.name=unnamed", "retry.num=0"}; !slices.Equal(got, want) {
			t.Errorf("attributes %v, want %v", got, want)
		}
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=unnamed,retry.outcome=success": 2,
	})
}

// Named makes the Instrumenter of a name once: a later call for the name
// returns it, allocating nothing, from any goroutine.
func TestNamedIsMadeOncePerName(t *testing.T) {
	h := newHarness(t)
	fetch := h.in.Named("fetch")
	if h.in.Named("fetch") != fetch {
		t.Error("a second Named(\"fetch\") made another Instrumenter")
	}
	if h.in.Named("store") == fetch || h.in.Named("") == fetch {
		t.Error("another name shares fetch's Instrumenter")
	}
	if h.in.Named("") != h.in.Named("") {
		t.Error("Named(\"\") made another Instrumenter")
	}
	if n := testing.AllocsPerRun(100, func() { _ = h.in.Named("fetch") }); n != 0 {
		t.Errorf("Named of a name seen before allocates %v times, want 0", n)
	}
	telemetrytest.NamedOnce(t, h.in, "concurrent")
}

func TestScriptedRunCounts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		start := time.Now()
		if _, err := backoff.Do(context.Background(), h.op(2, errUnavailable), telemetrytest.Every1s(h.in)...); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("the run took %v of virtual time, want 2s", d)
		}
		// One run that gives up: two failures, then WithMaxTries.
		_, err := backoff.Do(context.Background(), h.op(5, errTransient), telemetrytest.Every1s(h.in, backoff.WithMaxTries(2))...)
		if !errors.Is(err, backoff.ErrExhausted) {
			t.Fatalf("Do = %v, want ErrExhausted", err)
		}
		equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
			"retry.name=fetch,retry.outcome=failure": 4,
			"retry.name=fetch,retry.outcome=success": 1,
		})
		equalPoints(t, "backoff.retries", h.points(t, "backoff.retries"), map[string]float64{
			"error.type=" + typeUnavailable + ",retry.name=fetch": 2,
			"error.type=*errors.errorString,retry.name=fetch":     1,
		})
		equalPoints(t, "backoff.give_ups", h.points(t, "backoff.give_ups"), map[string]float64{
			"retry.cause=exhausted,retry.name=fetch": 1,
		})
		p := h.histogram(t, "backoff.wait.duration", "retry.name=fetch")
		if p.Count != 3 || p.Sum != 3 {
			t.Errorf("wait histogram: count %d, sum %v; want 3 waits of 1s", p.Count, p.Sum)
		}
		// 1s falls in the bucket (0.5, 1].
		if i := slices.Index(p.Bounds, 1); i < 0 || p.BucketCounts[i] != 3 {
			t.Errorf("wait histogram: bounds %v, counts %v; want the 3 waits in (0.5, 1]", p.Bounds, p.BucketCounts)
		}
		last := h.ended("fetch")[4]
		want := []string{"error.type=*errors.errorString", "retry.cause=exhausted", "retry.giving_up=true", "retry.name=fetch", "retry.num=1"}
		if got := attrs(last.Attributes()); !slices.Equal(got, want) {
			t.Errorf("last attempt: attributes %v, want %v", got, want)
		}
	})
}

func TestGiveUpDuringTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t)
		ctx, caller := h.tracer.Start(context.Background(), "caller")
		telemetrytest.CancelDuringTheWait(t, ctx, func(ctx context.Context) error {
			_, err := backoff.Do(ctx, h.op(5, errUnavailable), telemetrytest.Every1s(h.in)...)
			return err
		})
		caller.End()
		if n := len(h.ended("fetch")); n != 1 {
			t.Fatalf("%d attempt spans, want 1", n)
		}
		equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
			"retry.name=fetch,retry.outcome=failure": 1, // the attempt is counted once
		})
		equalPoints(t, "backoff.give_ups", h.points(t, "backoff.give_ups"), map[string]float64{
			"retry.cause=canceled,retry.name=fetch": 1,
		})
		events := h.ended("caller")[0].Events()
		if len(events) != 1 || events[0].Name != "retry.give_up" {
			t.Fatalf("caller's events %v, want one retry.give_up", events)
		}
		want := []string{"error.type=" + typeUnavailable, "retry.cause=canceled", "retry.name=fetch", "retry.num=1"}
		if got := attrs(events[0].Attributes); !slices.Equal(got, want) {
			t.Errorf("event attributes %v, want %v", got, want)
		}
	})
}

// Do does not start an attempt once its context is done: the attempt is
// refused, with a span of its own, and it is the give-up.
func TestAttemptRefusedByTheContext(t *testing.T) {
	h := newHarness(t)
	ctx, caller := h.tracer.Start(context.Background(), "caller")
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := backoff.Do(ctx, h.op(0, nil), telemetrytest.Every1s(h.in)...); !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	caller.End()
	if n := len(h.ended("op")); n != 0 {
		t.Errorf("the operation ran %d times, want none", n)
	}
	spans := h.ended("fetch")
	if len(spans) != 1 {
		t.Fatalf("%d attempt spans, want 1", len(spans))
	}
	want := []string{"error.type=context.Canceled", "retry.cause=canceled", "retry.giving_up=true", "retry.name=fetch", "retry.num=0"}
	if got := attrs(spans[0].Attributes()); !slices.Equal(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
	if st := spans[0].Status(); st.Code != codes.Error || st.Description != context.Canceled.Error() {
		t.Errorf("status %v, want Error %q", st, context.Canceled.Error())
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=fetch,retry.outcome=refused": 1,
	})
	equalPoints(t, "backoff.give_ups", h.points(t, "backoff.give_ups"), map[string]float64{
		"retry.cause=canceled,retry.name=fetch": 1,
	})
	if events := h.ended("caller")[0].Events(); len(events) != 0 {
		t.Errorf("caller's events %v, want none: the give-up is on the attempt's span", events)
	}
}

func TestRefusedAttempt(t *testing.T) {
	h := newHarness(t)
	cb := breaker.New(breaker.WithConsecutiveFailures(1))
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(3), telemetrytest.NoWait, backoff.WithInstrumenter(h.in.Named("pay"))),
		policy.Guard(cb),
	)
	_, err := policy.Do(context.Background(), p, h.op(5, errTransient))
	if !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("Do = %v, want ErrCircuitOpen", err)
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=pay,retry.outcome=failure": 1,
		"retry.name=pay,retry.outcome=refused": 1,
	})
	equalPoints(t, "backoff.give_ups", h.points(t, "backoff.give_ups"), map[string]float64{
		"retry.cause=circuit_open,retry.name=pay": 1,
	})
	spans := h.ended("pay")
	want := []string{"error.type=*breaker.OpenError", "retry.cause=circuit_open", "retry.giving_up=true", "retry.name=pay", "retry.num=1"}
	if got := attrs(spans[1].Attributes()); !slices.Equal(got, want) {
		t.Errorf("refused attempt: attributes %v, want %v", got, want)
	}
}

func TestPermanentErrorIsNamedByWhatItMarks(t *testing.T) {
	h := newHarness(t)
	op := func(context.Context) (int, error) { return 0, backoff.Permanent(errUnavailable) }
	if _, err := backoff.Do(context.Background(), op, telemetrytest.Every1s(h.in)...); !errors.Is(err, backoff.ErrPermanent) {
		t.Fatalf("Do = %v, want ErrPermanent", err)
	}
	want := []string{"error.type=" + typeUnavailable, "retry.cause=permanent", "retry.giving_up=true", "retry.name=fetch", "retry.num=0"}
	if got := attrs(h.ended("fetch")[0].Attributes()); !slices.Equal(got, want) {
		t.Errorf("attributes %v, want %v", got, want)
	}
}

// Two Instrumenters on one retry, and one Instrumenter on two nested
// retry stages: each finds its own attempt, and each span ends once, under
// the span in the context it was given.
func TestSeveralInstrumentersAndNestedRetries(t *testing.T) {
	h, h2 := newHarness(t), newHarness(t)
	p := policy.New(
		policy.Retry(backoff.WithMaxTries(2), telemetrytest.NoWait, backoff.WithInstrumenter(h.in.Named("outer")), backoff.WithInstrumenter(h2.in.Named("outer"))),
		policy.Retry(backoff.WithMaxTries(2), telemetrytest.NoWait, backoff.WithInstrumenter(h.in.Named("inner"))),
	)
	if _, err := policy.Do(context.Background(), p, h.op(2, errTransient)); err != nil {
		t.Fatal(err)
	}
	outer, outer2, inner := h.ended("outer"), h2.ended("outer"), h.ended("inner")
	if len(outer) != 2 || len(outer2) != 2 || len(inner) != 3 {
		t.Fatalf("%d+%d outer and %d inner spans, want 2+2 and 3", len(outer), len(outer2), len(inner))
	}
	for i := range outer {
		if outer2[i].Parent().SpanID() != outer[i].SpanContext().SpanID() {
			t.Errorf("outer attempt %d: the second Instrumenter's span is not a child of the first's", i+1)
		}
	}
	for i, s := range inner {
		parent := outer2[0]
		if i == 2 {
			parent = outer2[1]
		}
		if s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("inner attempt %d is not a child of its outer attempt", i+1)
		}
	}
	if st := outer[0].Status(); st.Code != codes.Error {
		t.Errorf("the outer attempt whose inner retries gave up has status %v, want Error", st)
	}
	outerCounts := map[string]float64{
		"retry.name=outer,retry.outcome=failure": 1,
		"retry.name=outer,retry.outcome=success": 1,
	}
	equalPoints(t, "second backoff.attempts", h2.points(t, "backoff.attempts"), outerCounts)
	outerCounts["retry.name=inner,retry.outcome=failure"] = 2
	outerCounts["retry.name=inner,retry.outcome=success"] = 1
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), outerCounts)
}

// Two Instrumenters of one Instrumenter, of two names, on one retry: each
// ends the span it began, once.
func TestTwoNamesOnOneRetry(t *testing.T) {
	h := newHarness(t)
	_, err := backoff.Do(context.Background(), h.op(1, errTransient), telemetrytest.NoWait,
		backoff.WithInstrumenter(h.in.Named("a")), backoff.WithInstrumenter(h.in.Named("b")))
	if err != nil {
		t.Fatal(err)
	}
	a, b := h.ended("a"), h.ended("b")
	if len(a) != 2 || len(b) != 2 || len(h.spans.Started()) != 2+2+2 {
		t.Fatalf("%d spans a and %d b ended, of %d started; want 2, 2, 6 with the operation's", len(a), len(b), len(h.spans.Started()))
	}
	for i := range a {
		if b[i].Parent().SpanID() != a[i].SpanContext().SpanID() {
			t.Errorf("attempt %d: b's span is not a child of a's", i+1)
		}
	}
	if a[0].Status().Code != codes.Error || b[0].Status().Code != codes.Error || a[1].Status().Code != codes.Unset {
		t.Errorf("statuses %v, %v, %v; want Error, Error, Unset", a[0].Status(), b[0].Status(), a[1].Status())
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=a,retry.outcome=failure": 1,
		"retry.name=a,retry.outcome=success": 1,
		"retry.name=b,retry.outcome=failure": 1,
		"retry.name=b,retry.outcome=success": 1,
	})
}

func TestUnsampledSpansStillCount(t *testing.T) {
	h := newHarness(t, otelbackoff.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))))
	if _, err := backoff.Do(context.Background(), h.op(1, errTransient), telemetrytest.Every1s(h.in, telemetrytest.NoWait)...); err != nil {
		t.Fatal(err)
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=fetch,retry.outcome=failure": 1,
		"retry.name=fetch,retry.outcome=success": 1,
	})
}

func TestNotMadeByNew(t *testing.T) {
	for _, in := range []*otelbackoff.Instrumenter{nil, {}} {
		telemetrytest.NotMadeByNew(t, in)
	}
}

// A retry inside an attempt of another, both with the Instrumenter, whose
// context is done before its first attempt: its refused attempt is a span
// under the outer attempt's, which still ends once, as a failure (the
// inner retry made no attempt that ran, but it is not a refusal of the
// outer attempt: its own context was cancelled).
func TestNestedRetryGivesUpBeforeItsFirstAttempt(t *testing.T) {
	h := newHarness(t)
	op := func(ctx context.Context) (int, error) {
		ctx, cancel := context.WithCancel(ctx)
		cancel()
		return backoff.Do(ctx, h.op(0, nil), backoff.WithInstrumenter(h.in.Named("inner")))
	}
	_, err := backoff.Do(context.Background(), op, backoff.WithMaxTries(1), backoff.WithInstrumenter(h.in.Named("outer")))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want the inner context.Canceled", err)
	}
	outer, inner := h.ended("outer"), h.ended("inner")
	if len(outer) != 1 || len(inner) != 1 {
		t.Fatalf("%d outer and %d inner spans, want 1 and 1", len(outer), len(inner))
	}
	if inner[0].Parent().SpanID() != outer[0].SpanContext().SpanID() {
		t.Error("the inner attempt's span is not a child of the outer attempt's")
	}
	if len(outer[0].Events()) != 0 || outer[0].Status().Code != codes.Error {
		t.Errorf("outer attempt: events %v, status %v; want none, and Error", outer[0].Events(), outer[0].Status())
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=inner,retry.outcome=refused": 1,
		"retry.name=outer,retry.outcome=failure": 1,
	})
	equalPoints(t, "backoff.give_ups", h.points(t, "backoff.give_ups"), map[string]float64{
		"retry.cause=canceled,retry.name=inner":  1,
		"retry.cause=exhausted,retry.name=outer": 1,
	})
}

// With metrics off (a no-op meter), the spans are as before.
func TestSpansWithoutMetrics(t *testing.T) {
	h := newHarness(t, otelbackoff.WithMeterProvider(noop.NewMeterProvider()))
	if _, err := backoff.Do(context.Background(), h.op(1, errTransient), telemetrytest.Every1s(h.in, telemetrytest.NoWait)...); err != nil {
		t.Fatal(err)
	}
	spans := h.ended("fetch")
	if len(spans) != 2 || spans[0].Status().Code != codes.Error || spans[1].Status().Code != codes.Unset {
		t.Errorf("%d spans, want a failed attempt and a successful one", len(spans))
	}
	if got := h.points(t, "backoff.attempts"); got != nil {
		t.Errorf("the no-op meter recorded %v", got)
	}
}

// Where no rule of ours applies, error.type is the semantic conventions'.
func TestErrorTypeAgreesWithSemconv(t *testing.T) {
	for _, err := range []error{
		errors.New("x"),
		errUnavailable,
		syscall.ECONNREFUSED,
		fmt.Errorf("dialing: %w", &net.OpError{}),
		errors.Join(io.ErrClosedPipe),
		telemetrytest.SelfNamed("db.timeout"),
		telemetrytest.Uncomparable{io.EOF},
	} {
		h := newHarness(t)
		op := func(context.Context) (int, error) { return 0, err }
		if _, got := backoff.Do(context.Background(), op, telemetrytest.Every1s(h.in, backoff.WithMaxTries(1))...); !errors.Is(got, backoff.ErrExhausted) {
			t.Fatalf("Do = %v, want ErrExhausted", got)
		}
		var got string
		for _, kv := range h.ended("fetch")[0].Attributes() {
			if kv.Key == otelbackoff.ErrorTypeKey {
				got = kv.Value.AsString()
			}
		}
		if want := semconv.ErrorType(err).Value.AsString(); got != want {
			t.Errorf("error.type of %v = %q; semconv.ErrorType says %q", err, got, want)
		}
	}
}

// detach is an Instrumenter that breaks the contract: its BeforeAttempt
// returns a context not derived from the one it was given.
type detach struct{}

func (detach) BeforeAttempt(context.Context, backoff.State) context.Context {
	return context.Background()
}
func (detach) AfterAttempt(context.Context, backoff.State) {}

// An attempt is counted even when the context AfterAttempt is given holds
// no attempt of ours.
func TestAttemptCountedWithoutItsContext(t *testing.T) {
	h := newHarness(t)
	if _, err := backoff.Do(context.Background(), h.op(1, errTransient), telemetrytest.Every1s(h.in, telemetrytest.NoWait, backoff.WithInstrumenter(detach{}))...); err != nil {
		t.Fatal(err)
	}
	equalPoints(t, "backoff.attempts", h.points(t, "backoff.attempts"), map[string]float64{
		"retry.name=fetch,retry.outcome=failure": 1,
		"retry.name=fetch,retry.outcome=success": 1,
	})
	equalPoints(t, "backoff.retries", h.points(t, "backoff.retries"), map[string]float64{
		"error.type=*errors.errorString,retry.name=fetch": 1,
	})
}
