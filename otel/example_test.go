package otelbackoff_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	otelbackoff "github.com/herdsafe/backoff/otel"
	slogbackoff "github.com/herdsafe/backoff/slog"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// spanIDHandler adds the trace and span IDs of each record's context to
// the record: what a handler that correlates logs with traces does.
type spanIDHandler struct{ slog.Handler }

func (h spanIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h spanIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return spanIDHandler{h.Handler.WithAttrs(as)}
}

func (h spanIDHandler) WithGroup(name string) slog.Handler {
	return spanIDHandler{h.Handler.WithGroup(name)}
}

// instant is a clock on which each wait is over as soon as it starts: it
// moves its time on by the wait. It keeps the example quick; a service
// keeps the default clock.
type instant struct{ *clock.Mock }

func (c instant) Timer(d time.Duration) *clock.Timer {
	t := c.Mock.Timer(d)
	c.Add(d)
	return t
}

// countingIDs gives spans the IDs 1, 2, 3..., so that the example's output
// is the same on every run. A real service keeps the SDK's random IDs.
type countingIDs struct {
	mu sync.Mutex
	n  uint64
}

func (g *countingIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	tid[15] = 1
	return tid, g.NewSpanID(context.Background(), tid)
}

func (g *countingIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	var sid trace.SpanID
	binary.BigEndian.PutUint64(sid[:], g.n)
	return sid
}

var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}

// The attempts of a retry as spans under the caller's span, the
// operation's own span under each attempt, the log records of package
// slogbackoff carrying the span of their attempt, and the counts.
func Example() {
	// The SDK's providers: here a span recorder and a manual metric reader
	// stand in for the exporters of a real service.
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans), sdktrace.WithIDGenerator(&countingIDs{}))
	defer tp.Shutdown(context.Background())
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())

	in, err := otelbackoff.New(otelbackoff.WithTracerProvider(tp), otelbackoff.WithMeterProvider(mp))
	if err != nil {
		fmt.Println(err)
		return
	}
	logger := slog.New(spanIDHandler{slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{} // for a stable output
			}
			return a
		},
	})})

	// The caller's span, and an operation with a span of its own that
	// fails once.
	tracer := tp.Tracer("example")
	ctx, caller := tracer.Start(context.Background(), "GET /users/42")
	calls := 0
	getUser := func(ctx context.Context) (string, error) {
		_, span := tracer.Start(ctx, "SELECT users")
		defer span.End()
		if calls++; calls == 1 {
			return "", errRefused
		}
		return "Ada", nil
	}
	user, err := backoff.Do(ctx, getUser,
		backoff.WithBackOff(backoff.NewConstantBackOff(100*time.Millisecond)),
		backoff.WithInstrumenter(in.Named("load-user")),
		backoff.WithInstrumenter(slogbackoff.New(logger).Named("load-user")),
		backoff.WithClock(instant{clock.NewMock()}))
	caller.End()
	fmt.Println(user, err)

	for _, s := range spans.Ended() {
		fmt.Printf("span %s %q parent %s status %s\n", s.SpanContext().SpanID(), s.Name(), s.Parent().SpanID(), s.Status().Code)
	}
	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	var counts []string
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
			for _, p := range sum.DataPoints {
				counts = append(counts, fmt.Sprintf("%s{%s} %d", m.Name, key(p.Attributes), p.Value))
			}
		}
	}
	slices.Sort(counts)
	fmt.Println(strings.Join(counts, "\n"))
	// Output:
	// level=WARN msg=retrying retry.name=load-user retry.attempt=1 retry.delay=100ms error.message="dial tcp: connection refused" trace_id=00000000000000000000000000000001 span_id=0000000000000002
	// Ada <nil>
	// span 0000000000000003 "SELECT users" parent 0000000000000002 status Unset
	// span 0000000000000002 "load-user" parent 0000000000000001 status Error
	// span 0000000000000005 "SELECT users" parent 0000000000000004 status Unset
	// span 0000000000000004 "load-user" parent 0000000000000001 status Unset
	// span 0000000000000001 "GET /users/42" parent 0000000000000000 status Unset
	// backoff.attempts{retry.name=load-user,retry.outcome=failure} 1
	// backoff.attempts{retry.name=load-user,retry.outcome=success} 1
	// backoff.retries{error.type=*net.OpError,retry.name=load-user} 1
}

// A breaker's state, read when the metrics are collected: Observe takes a
// guard of any kind.
func ExampleInstrumenter_Observe() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	in, err := otelbackoff.New(otelbackoff.WithMeterProvider(mp))
	if err != nil {
		fmt.Println(err)
		return
	}
	cb := breaker.New(breaker.WithConsecutiveFailures(1))
	reg, err := in.Observe("payments", cb)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer reg.Unregister()

	_ = cb.Run(context.Background(), func(context.Context) error { return errRefused })

	var rm metricdata.ResourceMetrics
	_ = reader.Collect(context.Background(), &rm)
	var lines []string
	for _, m := range rm.ScopeMetrics[0].Metrics {
		switch d := m.Data.(type) {
		case metricdata.Gauge[int64]:
			for _, p := range d.DataPoints {
				lines = append(lines, fmt.Sprintf("%s{%s} %d", m.Name, key(p.Attributes), p.Value))
			}
		case metricdata.Sum[int64]:
			for _, p := range d.DataPoints {
				if p.Value != 0 {
					lines = append(lines, fmt.Sprintf("%s{%s} %d", m.Name, key(p.Attributes), p.Value))
				}
			}
		}
	}
	slices.Sort(lines)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// backoff.breaker.calls{breaker.outcome=failure,guard.name=payments} 1
	// backoff.breaker.state{breaker.state=closed,guard.name=payments} 0
	// backoff.breaker.state{breaker.state=forced-closed,guard.name=payments} 0
	// backoff.breaker.state{breaker.state=forced-open,guard.name=payments} 0
	// backoff.breaker.state{breaker.state=half-open,guard.name=payments} 0
	// backoff.breaker.state{breaker.state=open,guard.name=payments} 1
	// backoff.breaker.transitions{guard.name=payments} 1
}
