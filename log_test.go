package backoff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// specRecord is one JSON log record.
type specRecord map[string]any

func specRecords(t *testing.T, buf *bytes.Buffer) []specRecord {
	t.Helper()
	var out []specRecord
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var r specRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad record %q: %v", line, err)
		}
		out = append(out, r)
	}
	return out
}

// "WithLogger: structured logs ..., a warning per retry and an error on
// giving up, with stable attribute names (retry.name, retry.attempt,
// retry.delay, error)."
func TestLoggerRecords(t *testing.T) {
	t.Run("retries then giving up", func(t *testing.T) {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		clk := newSpecClock()
		op := specAlways()
		specDrive(t, clk, nil, func() {
			_, _ = Retry(op.run, WithLogger(logger), WithName("fetch"), WithClock(clk), WithMaxTries(3),
				WithBackOff(specExp(time.Second, time.Minute)))
		})
		recs := specRecords(t, &buf)
		if len(recs) != 3 {
			t.Fatalf("%d records, want 2 warnings and 1 error:\n%s", len(recs), buf.String())
		}
		for i, r := range recs[:2] {
			if r["level"] != "WARN" {
				t.Errorf("record %d: level %v, want WARN", i, r["level"])
			}
			if r["retry.name"] != "fetch" {
				t.Errorf("record %d: retry.name = %v", i, r["retry.name"])
			}
			if r["retry.attempt"] != float64(i+1) {
				t.Errorf("record %d: retry.attempt = %v, want %d", i, r["retry.attempt"], i+1)
			}
			if want := float64(time.Second << i); r["retry.delay"] != want {
				t.Errorf("record %d: retry.delay = %v, want %v", i, r["retry.delay"], want)
			}
			if want := attemptErr(i + 1).Error(); r["error"] != want {
				t.Errorf("record %d: error = %v, want %q", i, r["error"], want)
			}
		}
		last := recs[2]
		if last["level"] != "ERROR" || last["retry.name"] != "fetch" || last["retry.attempt"] != float64(3) ||
			last["error"] != attemptErr(3).Error() {
			t.Errorf("giving-up record %v, want ERROR for attempt 3 with its error", last)
		}
	})
	t.Run("success after retries", func(t *testing.T) {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		op := specFailThenSucceed(2)
		if _, err := Retry(op.run, WithLogger(logger), WithBackOff(&ZeroBackOff{})); err != nil {
			t.Fatal(err)
		}
		recs := specRecords(t, &buf)
		if len(recs) != 2 || recs[0]["level"] != "WARN" || recs[1]["level"] != "WARN" {
			t.Errorf("records %v, want two warnings and no error", recs)
		}
	})
	t.Run("giving up at once", func(t *testing.T) {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, nil))
		op := specScript(func(n int) (int, error) { return n, Permanent(errors.New("bad request")) })
		_, _ = Retry(op.run, WithLogger(logger), WithName("put"))
		recs := specRecords(t, &buf)
		if len(recs) != 1 || recs[0]["level"] != "ERROR" || recs[0]["error"] != "bad request" || recs[0]["retry.name"] != "put" {
			t.Errorf("records %v, want one error record", recs)
		}
	})
}

// specCtxHandler records, for each record, the context value under specKey
// of the context the logger was called with.
type specCtxHandler struct {
	mu   sync.Mutex
	seen []any
}

func (h *specCtxHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *specCtxHandler) Handle(ctx context.Context, _ slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen = append(h.seen, ctx.Value(specKey{}))
	return nil
}
func (h *specCtxHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *specCtxHandler) WithGroup(string) slog.Handler      { return h }

// "through the context-aware slog calls": the handler receives the
// caller's context, so it can add the trace.
func TestLoggerUsesTheContext(t *testing.T) {
	h := &specCtxHandler{}
	ctx := context.WithValue(context.Background(), specKey{}, "trace-1")
	op := specAlways()
	_, _ = RetryCtx(ctx, op.run, WithLogger(slog.New(h)), WithMaxTries(2), WithBackOff(&ZeroBackOff{}))
	if len(h.seen) != 2 {
		t.Fatalf("%d records, want 2", len(h.seen))
	}
	for i, v := range h.seen {
		if v != "trace-1" {
			t.Errorf("record %d was logged with a context carrying %v, want the caller's", i, v)
		}
	}
}
