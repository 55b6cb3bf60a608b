package otelbackoff_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	slogbackoff "github.com/herdsafe/backoff/slog"
	"go.opentelemetry.io/otel/trace"
)

// traceHandler is a slog.Handler that keeps, for each record, its message
// and the span context found in the record's context: what a handler that
// correlates logs with traces reads.
type traceHandler struct {
	mu      *sync.Mutex
	records *[]tracedRecord
}

type tracedRecord struct {
	msg  string
	span trace.SpanContext
}

func newTraceHandler() traceHandler {
	return traceHandler{mu: new(sync.Mutex), records: new([]tracedRecord)}
}

func (traceHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.records = append(*h.records, tracedRecord{r.Message, trace.SpanContextFromContext(ctx)})
	return nil
}

func (h traceHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h traceHandler) WithGroup(string) slog.Handler      { return h }

// The Instrumenter of package slogbackoff logs with the attempt's context,
// which this package's Instrumenter made in BeforeAttempt: each record
// carries the span of the attempt it is about, the give-up's included,
// whichever of the two is given first.
func TestLogRecordsCarryTheAttemptSpan(t *testing.T) {
	for _, slogFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("slog_first=", slogFirst), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { logRecordsCarryTheAttemptSpan(t, slogFirst) })
		})
	}
}

func logRecordsCarryTheAttemptSpan(t *testing.T, slogFirst bool) {
	h := newHarness(t)
	logs := newTraceHandler()
	ctx, caller := h.tracer.Start(context.Background(), "caller")
	defer caller.End()
	logged := backoff.WithInstrumenter(slogbackoff.New(slog.New(logs)).Named("fetch"))
	opts := telemetrytest.Every1s(h.in, backoff.WithMaxTries(2), logged)
	if slogFirst {
		opts = []backoff.RetryOption{logged, backoff.WithMaxTries(2), backoff.WithBackOff(backoff.NewConstantBackOff(time.Second)),
			backoff.WithInstrumenter(h.in.Named("fetch"))}
	}
	_, err := backoff.Do(ctx, h.op(5, errTransient), opts...)
	if !errors.Is(err, backoff.ErrExhausted) {
		t.Fatalf("Do = %v, want ErrExhausted", err)
	}
	spans := h.ended("fetch")
	records := *logs.records
	if len(spans) != 2 || len(records) != 2 {
		t.Fatalf("%d attempt spans and %d records, want 2 and 2", len(spans), len(records))
	}
	for i, msg := range []string{"retrying", "giving up"} {
		r, want := records[i], spans[i].SpanContext()
		if r.msg != msg {
			t.Errorf("record %d: %q, want %q", i, r.msg, msg)
		}
		if r.span.TraceID() != want.TraceID() || r.span.SpanID() != want.SpanID() {
			t.Errorf("record %d (%s): trace %s span %s, want attempt %d's trace %s span %s",
				i, r.msg, r.span.TraceID(), r.span.SpanID(), i+1, want.TraceID(), want.SpanID())
		}
	}
}
