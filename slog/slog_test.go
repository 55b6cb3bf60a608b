package slogbackoff_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/internal/testkit/telemetrytest"
	"github.com/herdsafe/backoff/policy"
	slogbackoff "github.com/herdsafe/backoff/slog"
)

// recorder is a slog.Handler that keeps each record it is handed, with the
// context it was logged with. It is enabled from level on.
type recorder struct {
	level slog.Level

	mu      sync.Mutex
	records []logged
}

type logged struct {
	ctx context.Context
	r   slog.Record
}

func (h *recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *recorder) Handle(ctx context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, logged{ctx, r.Clone()})
	return nil
}

func (h *recorder) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recorder) WithGroup(string) slog.Handler      { return h }

func (h *recorder) logged() []logged {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]logged(nil), h.records...)
}

// newRecorder returns a logger enabled from slog.LevelDebug, and its
// handler.
func newRecorder() (*slog.Logger, *recorder) {
	h := &recorder{level: slog.LevelDebug}
	return slog.New(h), h
}

// want is a record as a test expects it.
type want struct {
	level slog.Level
	msg   string
	attrs []slog.Attr
}

// equalRecords fails t unless got holds exactly the records want, each with
// its level, message, and attributes in order, key, kind and value.
func equalRecords(t *testing.T, got []logged, want []want) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		r := got[i].r
		if r.Level != w.level || r.Message != w.msg {
			t.Errorf("record %d: %v %q, want %v %q", i, r.Level, r.Message, w.level, w.msg)
		}
		var attrs []slog.Attr
		r.Attrs(func(a slog.Attr) bool {
			attrs = append(attrs, a)
			return true
		})
		if len(attrs) != len(w.attrs) {
			t.Errorf("record %d: attributes %v, want %v", i, attrs, w.attrs)
			continue
		}
		for j, a := range w.attrs {
			if !attrs[j].Equal(a) || attrs[j].Value.Kind() != a.Value.Kind() {
				t.Errorf("record %d: attribute %d is %v (%v), want %v (%v)", i, j, attrs[j], attrs[j].Value.Kind(), a, a.Value.Kind())
			}
		}
	}
}

// attemptErr is the distinct error of attempt n.
type attemptErr int

func (e attemptErr) Error() string { return fmt.Sprintf("failure %d", int(e)) }

// failing returns an operation whose first n calls fail with attemptErr.
func failing(n int) func(context.Context) (int, error) {
	calls := 0
	return func(context.Context) (int, error) {
		if calls++; calls <= n {
			return 0, attemptErr(calls)
		}
		return calls, nil
	}
}

// doubling is a BackOff that waits 1s, 2s, 4s..., without randomization.
func doubling() backoff.BackOff {
	return &backoff.ExponentialBackOff{
		InitialInterval: time.Second,
		Multiplier:      2,
		MaxInterval:     time.Minute,
	}
}

var errBad = errors.New("bad request")

// The records of what AfterAttempt is told, for an unnamed operation and a
// named one.
func TestRecords(t *testing.T) {
	fetch := slog.String("retry.name", "fetch")
	cases := []struct {
		name  string
		state backoff.State
		want  []slog.Attr // of the unnamed operation; the named one's come after its name
		level slog.Level
		msg   string
	}{
		{"success", backoff.State{Attempt: backoff.Attempt{Number: 1}}, nil, 0, ""},
		{"success_after_retries", backoff.State{Attempt: backoff.Attempt{Number: 3, LastErr: attemptErr(2), LastDelay: time.Second}}, nil, 0, ""},
		{
			"retry", backoff.State{Attempt: backoff.Attempt{Number: 2}, Err: attemptErr(2), NextDelay: 1500 * time.Millisecond, Elapsed: time.Second},
			[]slog.Attr{slog.Int("retry.attempt", 2), slog.Duration("retry.delay", 1500*time.Millisecond), slog.String("error.message", "failure 2")},
			slog.LevelWarn, "retrying",
		},
		{
			"give_up", backoff.State{Attempt: backoff.Attempt{Number: 3}, Err: attemptErr(3), Elapsed: 7 * time.Second, GivingUp: true, Cause: backoff.ErrExhausted},
			[]slog.Attr{slog.Int("retry.attempt", 3), slog.Duration("retry.elapsed", 7*time.Second), slog.String("retry.cause", "exhausted"), slog.String("error.message", "failure 3")},
			slog.LevelError, "giving up",
		},
		{
			"give_up_after_the_wait", backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: attemptErr(1), Elapsed: time.Second, GivingUp: true, Cause: context.Canceled, Reported: true},
			[]slog.Attr{slog.Int("retry.attempt", 1), slog.Duration("retry.elapsed", time.Second), slog.String("retry.cause", "canceled"), slog.String("error.message", "failure 1")},
			slog.LevelError, "giving up",
		},
		{
			"give_up_refused", backoff.State{Attempt: backoff.Attempt{Number: 2}, Err: breaker.ErrCircuitOpen, GivingUp: true, Cause: fmt.Errorf("%w: %w", backoff.ErrRefused, breaker.ErrCircuitOpen)},
			[]slog.Attr{slog.Int("retry.attempt", 2), slog.Duration("retry.elapsed", 0), slog.String("retry.cause", "circuit_open"), slog.String("error.message", breaker.ErrCircuitOpen.Error())},
			slog.LevelError, "giving up",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logger, h := newRecorder()
			in := slogbackoff.New(logger)
			ctx := context.Background()
			for _, i := range []backoff.Instrumenter{in, in.Named("fetch")} {
				if got := i.BeforeAttempt(ctx, c.state); got != ctx {
					t.Errorf("BeforeAttempt returned %v, want its context", got)
				}
				i.AfterAttempt(ctx, c.state)
			}
			if c.want == nil {
				equalRecords(t, h.logged(), nil)
				return
			}
			equalRecords(t, h.logged(), []want{
				{c.level, c.msg, c.want},
				{c.level, c.msg, append([]slog.Attr{fetch}, c.want...)},
			})
		})
	}
}

// The keys are the constants the package exports.
func TestKeys(t *testing.T) {
	for got, want := range map[string]string{
		slogbackoff.NameKey:       "retry.name",
		slogbackoff.AttemptKey:    "retry.attempt",
		slogbackoff.DelayKey:      "retry.delay",
		slogbackoff.ElapsedKey:    "retry.elapsed",
		slogbackoff.CauseKey:      "retry.cause",
		slogbackoff.ErrorKey:      "error.message",
		slogbackoff.RetryMessage:  "retrying",
		slogbackoff.GiveUpMessage: "giving up",
	} {
		if got != want {
			t.Errorf("constant %q, want %q", got, want)
		}
	}
}

// A run that fails: a warning per retry, with the growing waits, and an
// error on giving up, with the time the run took.
func TestRunThatGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, h := newRecorder()
		_, err := backoff.Do(context.Background(), failing(5),
			backoff.WithInstrumenter(slogbackoff.New(logger).Named("fetch")),
			backoff.WithMaxTries(3), backoff.WithBackOff(doubling()))
		if !errors.Is(err, backoff.ErrExhausted) {
			t.Fatalf("Do = %v, want ErrExhausted", err)
		}
		name := slog.String("retry.name", "fetch")
		equalRecords(t, h.logged(), []want{
			{slog.LevelWarn, "retrying", []slog.Attr{name, slog.Int("retry.attempt", 1), slog.Duration("retry.delay", time.Second), slog.String("error.message", "failure 1")}},
			{slog.LevelWarn, "retrying", []slog.Attr{name, slog.Int("retry.attempt", 2), slog.Duration("retry.delay", 2*time.Second), slog.String("error.message", "failure 2")}},
			{slog.LevelError, "giving up", []slog.Attr{name, slog.Int("retry.attempt", 3), slog.Duration("retry.elapsed", 3*time.Second), slog.String("retry.cause", "exhausted"), slog.String("error.message", "failure 3")}},
		})
	})
}

// A run that recovers logs its retries, and no error.
func TestRunThatSucceedsAfterRetries(t *testing.T) {
	logger, h := newRecorder()
	if _, err := backoff.Do(context.Background(), failing(2), backoff.WithInstrumenter(slogbackoff.New(logger)),
		backoff.WithBackOff(&backoff.ZeroBackOff{})); err != nil {
		t.Fatal(err)
	}
	equalRecords(t, h.logged(), []want{
		{slog.LevelWarn, "retrying", []slog.Attr{slog.Int("retry.attempt", 1), slog.Duration("retry.delay", 0), slog.String("error.message", "failure 1")}},
		{slog.LevelWarn, "retrying", []slog.Attr{slog.Int("retry.attempt", 2), slog.Duration("retry.delay", 0), slog.String("error.message", "failure 2")}},
	})
}

// A run that succeeds at once logs nothing.
func TestRunThatSucceeds(t *testing.T) {
	logger, h := newRecorder()
	if _, err := backoff.Do(context.Background(), failing(0), backoff.WithInstrumenter(slogbackoff.New(logger).Named("fetch"))); err != nil {
		t.Fatal(err)
	}
	equalRecords(t, h.logged(), nil)
}

// A permanent error is the give-up of the first attempt: one error record.
func TestRunThatGivesUpAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, h := newRecorder()
		op := func(context.Context) (int, error) { return 0, backoff.Permanent(errBad) }
		if _, err := backoff.Do(context.Background(), op, backoff.WithInstrumenter(slogbackoff.New(logger).Named("put"))); !errors.Is(err, backoff.ErrPermanent) {
			t.Fatalf("Do = %v, want ErrPermanent", err)
		}
		equalRecords(t, h.logged(), []want{
			{slog.LevelError, "giving up", []slog.Attr{slog.String("retry.name", "put"), slog.Int("retry.attempt", 1), slog.Duration("retry.elapsed", 0),
				slog.String("retry.cause", "permanent"), slog.String("error.message", "bad request")}},
		})
	})
}

// When the context is cancelled during a wait, the core reports the
// give-up in a second AfterAttempt of the attempt (State.Reported): the
// attempt's warning, then the give-up, once.
func TestGiveUpDuringTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, h := newRecorder()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := backoff.Do(ctx, failing(5), backoff.WithInstrumenter(slogbackoff.New(logger)), backoff.WithBackOff(doubling()))
			done <- err
		}()
		time.AfterFunc(500*time.Millisecond, cancel) // in the wait of 1s before the second attempt
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("Do = %v, want context.Canceled", err)
		}
		equalRecords(t, h.logged(), []want{
			{slog.LevelWarn, "retrying", []slog.Attr{slog.Int("retry.attempt", 1), slog.Duration("retry.delay", time.Second), slog.String("error.message", "failure 1")}},
			{slog.LevelError, "giving up", []slog.Attr{slog.Int("retry.attempt", 1), slog.Duration("retry.elapsed", 500*time.Millisecond),
				slog.String("retry.cause", "canceled"), slog.String("error.message", "failure 1")}},
		})
	})
}

// Do does not start an attempt once its context is done: that attempt is
// the give-up.
func TestRunWhoseContextIsDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logger, h := newRecorder()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := backoff.Do(ctx, failing(0), backoff.WithInstrumenter(slogbackoff.New(logger))); !errors.Is(err, context.Canceled) {
			t.Fatalf("Do = %v, want context.Canceled", err)
		}
		equalRecords(t, h.logged(), []want{
			{slog.LevelError, "giving up", []slog.Attr{slog.Int("retry.attempt", 1), slog.Duration("retry.elapsed", 0),
				slog.String("retry.cause", "canceled"), slog.String("error.message", context.Canceled.Error())}},
		})
	})
}

// A guard's refusal is the give-up, named by the guard.
func TestRunRefusedByAGuard(t *testing.T) {
	logger, h := newRecorder()
	p := policy.New(
		policy.Retry(backoff.WithBackOff(&backoff.ZeroBackOff{}), backoff.WithInstrumenter(slogbackoff.New(logger).Named("pay"))),
		policy.Guard(breaker.New(breaker.WithConsecutiveFailures(1))),
	)
	if _, err := policy.Do(context.Background(), p, failing(5)); !errors.Is(err, breaker.ErrCircuitOpen) {
		t.Fatalf("Do = %v, want ErrCircuitOpen", err)
	}
	got := h.logged()
	if len(got) != 2 {
		t.Fatalf("%d records, want a warning and the give-up: %v", len(got), got)
	}
	r := got[1].r
	var cause, msg string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "retry.cause":
			cause = a.Value.String()
		case "error.message":
			msg = a.Value.String()
		}
		return true
	})
	if r.Level != slog.LevelError || cause != "circuit_open" || !strings.Contains(msg, "open") {
		t.Errorf("give-up %v %q: retry.cause %q, error.message %q; want ERROR, circuit_open and the breaker's message", r.Level, r.Message, cause, msg)
	}
}

type ctxKey struct{}

// tagger is an Instrumenter that derives the attempt's context, as a tracer
// does with its span.
type tagger struct{}

func (tagger) BeforeAttempt(ctx context.Context, s backoff.State) context.Context {
	return context.WithValue(ctx, ctxKey{}, fmt.Sprint("attempt-", s.Number))
}
func (tagger) AfterAttempt(context.Context, backoff.State) {}

// Each record is logged with the attempt's context: the caller's, as the
// Instrumenters before derived it, so that a handler finds what they put
// there (a trace ID).
func TestRecordsCarryTheAttemptsContext(t *testing.T) {
	logger, h := newRecorder()
	ctx := context.WithValue(context.Background(), ctxKey{}, "trace-1")
	_, _ = backoff.Do(ctx, failing(5), backoff.WithInstrumenter(slogbackoff.New(logger)),
		backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	_, _ = backoff.Do(ctx, failing(5), backoff.WithInstrumenter(tagger{}), backoff.WithInstrumenter(slogbackoff.New(logger).Named("fetch")),
		backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	got := h.logged()
	if len(got) != 4 {
		t.Fatalf("%d records, want 4", len(got))
	}
	for i, want := range []string{"trace-1", "trace-1", "attempt-1", "attempt-2"} {
		if v := got[i].ctx.Value(ctxKey{}); v != want {
			t.Errorf("record %d (%s) was logged with a context holding %v, want %q", i, got[i].r.Message, v, want)
		}
	}
}

// The handler's level decides: below it nothing is logged, and nothing
// allocated.
func TestLevels(t *testing.T) {
	retry := backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: attemptErr(1), NextDelay: time.Second}
	giveUp := backoff.State{Attempt: backoff.Attempt{Number: 2}, Err: attemptErr(2), GivingUp: true, Cause: backoff.ErrExhausted}
	cases := []struct {
		level slog.Level
		want  []string
	}{
		{slog.LevelDebug, []string{"retrying", "giving up"}},
		{slog.LevelWarn, []string{"retrying", "giving up"}},
		{slog.LevelError, []string{"giving up"}},
		{slog.LevelError + 1, nil},
	}
	for _, c := range cases {
		t.Run(c.level.String(), func(t *testing.T) {
			h := &recorder{level: c.level}
			in := slogbackoff.New(slog.New(h))
			fetch := in.Named("fetch")
			for _, i := range []backoff.Instrumenter{in, fetch} {
				i.AfterAttempt(context.Background(), retry)
				i.AfterAttempt(context.Background(), giveUp)
			}
			var got []string
			for _, l := range h.logged() {
				got = append(got, l.r.Message)
			}
			want := slices.Concat(c.want, c.want) // the unnamed operation's, then fetch's
			if !slices.Equal(got, want) {
				t.Errorf("logged %q, want %q", got, want)
			}
		})
	}
}

func TestNothingAllocatedWhenDisabled(t *testing.T) {
	retry := backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: attemptErr(1), NextDelay: time.Second}
	giveUp := backoff.State{Attempt: backoff.Attempt{Number: 2}, Err: attemptErr(2), GivingUp: true, Cause: errors.New("shutting down")}
	ctx := context.Background()
	for name, logger := range map[string]*slog.Logger{
		"above_error": slog.New(&recorder{level: slog.LevelError + 1}),
		"discard":     slog.New(slog.DiscardHandler),
	} {
		in := slogbackoff.New(logger)
		fetch := in.Named("fetch")
		for _, i := range []backoff.Instrumenter{in, fetch} {
			n := testing.AllocsPerRun(100, func() {
				actx := i.BeforeAttempt(ctx, retry)
				i.AfterAttempt(actx, retry)
				i.AfterAttempt(actx, giveUp)
			})
			if n != 0 {
				t.Errorf("%s: a disabled logger allocates %v times an attempt, want 0", name, n)
			}
		}
	}
}

// Named makes the Instrumenter of a name once: a later call returns it,
// allocating nothing, from any goroutine. Named("") is the unnamed one.
func TestNamed(t *testing.T) {
	logger, _ := newRecorder()
	in := slogbackoff.New(logger)
	fetch := in.Named("fetch")
	if in.Named("fetch") != fetch || in.Named("store") == fetch {
		t.Error("Named did not return one Instrumenter per name")
	}
	if got := in.Named(""); got != backoff.Instrumenter(in) {
		t.Errorf("Named(\"\") = %v, want the unnamed Instrumenter itself", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = in.Named("fetch") }); n != 0 {
		t.Errorf("Named of a name seen before allocates %v times, want 0", n)
	}
	telemetrytest.NamedOnce(t, in, "concurrent")
}

// One Instrumenter shared by concurrent runs logs each run's records.
func TestConcurrentRuns(t *testing.T) {
	logger, h := newRecorder()
	fetch := slogbackoff.New(logger).Named("fetch")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, _ = backoff.Do(context.Background(), failing(5), backoff.WithInstrumenter(fetch),
				backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{}))
		})
	}
	wg.Wait()
	levels := map[slog.Level]int{}
	for _, l := range h.logged() {
		levels[l.r.Level]++
	}
	if levels[slog.LevelWarn] != 8 || levels[slog.LevelError] != 8 || len(levels) != 2 {
		t.Errorf("records by level %v, want 8 warnings and 8 errors", levels)
	}
}

// A nil logger is a programming error, reported where it is made, as
// slog.New reports a nil handler; so is an Instrumenter New did not make.
func TestMisuse(t *testing.T) {
	panics := func(name, says string, f func()) {
		t.Helper()
		defer func() {
			t.Helper()
			if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), says) {
				t.Errorf("%s: recovered %v, want a panic saying %q", name, v, says)
			}
		}()
		f()
	}
	panics("New(nil)", "nil *slog.Logger", func() { slogbackoff.New(nil) })
	for _, in := range []*slogbackoff.Instrumenter{nil, {}} {
		telemetrytest.NotMadeByNew(t, in)
	}
}

// The records as the JSON handler writes them: the level names, the keys,
// and the durations in nanoseconds.
func TestJSONRecords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(&buf, nil))
		_, _ = backoff.Do(context.Background(), failing(5), backoff.WithInstrumenter(slogbackoff.New(logger).Named("fetch")),
			backoff.WithMaxTries(2), backoff.WithBackOff(doubling()))
		var recs []map[string]any
		for line := range strings.Lines(buf.String()) {
			var r map[string]any
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("bad record %q: %v", line, err)
			}
			delete(r, "time")
			recs = append(recs, r)
		}
		want := []map[string]any{
			{"level": "WARN", "msg": "retrying", "retry.name": "fetch", "retry.attempt": 1.0, "retry.delay": 1e9, "error.message": "failure 1"},
			{"level": "ERROR", "msg": "giving up", "retry.name": "fetch", "retry.attempt": 2.0, "retry.elapsed": 1e9, "retry.cause": "exhausted", "error.message": "failure 2"},
		}
		if len(recs) != len(want) {
			t.Fatalf("records %v, want %v", recs, want)
		}
		for i := range want {
			if fmt.Sprint(recs[i]) != fmt.Sprint(want[i]) {
				t.Errorf("record %d: %v, want %v", i, recs[i], want[i])
			}
		}
	})
}
