package backoff

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"go.uber.org/goleak"
)

// "It ensures the operation is executed at least once": a policy that stops
// at once, a budget of one attempt and a time budget smaller than any wait
// all still run the operation once.
func TestDriverRunsTheOperationAtLeastOnce(t *testing.T) {
	cases := []struct {
		name  string
		opts  []RetryOption
		cause error
	}{
		{"StopBackOff", []RetryOption{WithBackOff(&StopBackOff{})}, ErrExhausted},
		{"MaxTries 1", []RetryOption{WithMaxTries(1)}, ErrExhausted},
		{"MaxElapsedTime 1ns", []RetryOption{WithMaxElapsedTime(time.Nanosecond)}, ErrMaxElapsedTime},
	}
	for _, c := range cases {
		for _, e := range specEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				op := specAlways()
				var err error
				waits := specDrive(t, clk, nil, func() {
					_, err = e.run(context.Background(), op.run, append(c.opts, WithClock(clk))...)
				})
				if op.count() != 1 {
					t.Errorf("the operation ran %d times, want 1", op.count())
				}
				if len(waits) != 0 {
					t.Errorf("waits %v, want none", waits)
				}
				specCheckStop(t, err, c.cause, attemptErr(1))
			})
		}
	}
	for _, e := range specEntries {
		t.Run("success/"+e.name, func(t *testing.T) {
			op := specFailThenSucceed(0)
			v, err := e.run(context.Background(), op.run, WithBackOff(&StopBackOff{}))
			if err != nil || op.count() != 1 {
				t.Fatalf("got %v after %d calls, want success after 1", err, op.count())
			}
			if e.hasResult && v != 100 {
				t.Errorf("result %d, want 100", v)
			}
		})
	}
}

// "Retry calls Reset on the policy before the first attempt, so a
// previously used policy may be passed."
func TestDriverResetsTheBackOffBeforeTheFirstAttempt(t *testing.T) {
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			var events []string
			b := &specBackOff{events: &events, seq: []time.Duration{0}, repeat: true}
			b.i = 1 // a policy used before: Stop unless it is Reset
			op := specScript(func(n int) (int, error) {
				events = append(events, "op")
				if n < 3 {
					return n, attemptErr(n)
				}
				return 100, nil
			})
			if _, err := e.run(context.Background(), op.run, WithBackOff(b)); err != nil {
				t.Fatalf("got %v, want success", err)
			}
			if len(events) < 2 || events[0] != "reset" || events[1] != "op" {
				t.Fatalf("events %v, want Reset before the first attempt", events)
			}
			if b.resets != 1 {
				t.Errorf("Reset called %d times, want once (events %v)", b.resets, events)
			}
			if op.count() != 3 {
				t.Errorf("the operation ran %d times, want 3", op.count())
			}
		})
	}
}

// A used *ExponentialBackOff starts from its InitialInterval again, every
// time it is given to the driver.
func TestDriverRestartsAUsedExponentialBackOff(t *testing.T) {
	b := specExp(time.Second, time.Minute)
	for range 4 {
		b.NextBackOff()
	}
	for run := range 2 {
		clk := newSpecClock()
		op := specFailThenSucceed(3)
		var err error
		waits := specDrive(t, clk, nil, func() {
			_, err = Retry(op.run, WithBackOff(b), WithClock(clk))
		})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}; !slices.Equal(waits, want) {
			t.Errorf("run %d: waits %v, want %v", run, waits, want)
		}
	}
}

// Every stop reason gives an *Error whose Cause says why and whose LastErr
// is the operation's last real error; Error() prints that error undecorated;
// the last result is returned; Attempts and Elapsed are right.
func TestDriverStopReasons(t *testing.T) {
	errBad := errors.New("bad request")
	errShutdown := errors.New("shutting down")
	always := func(context.CancelCauseFunc) *specOp { return specAlways() }
	constant := func(d time.Duration) RetryOption { return WithBackOff(NewConstantBackOff(d)) }
	cancelAt := func(n int, cause error) func(*specClock, context.CancelCauseFunc) func(int, time.Duration) {
		return func(clk *specClock, cancel context.CancelCauseFunc) func(int, time.Duration) {
			return specCancelAt(clk, n, func() { cancel(cause) })
		}
	}
	// cancelDuring cancels ctx inside attempt n, which then fails.
	cancelDuring := func(n int, cause error) func(context.CancelCauseFunc) *specOp {
		return func(cancel context.CancelCauseFunc) *specOp {
			return specScript(func(i int) (int, error) {
				if i == n {
					cancel(cause)
				}
				return i, attemptErr(i)
			})
		}
	}
	retryAfterAlways := func(d time.Duration) func(context.CancelCauseFunc) *specOp {
		return func(context.CancelCauseFunc) *specOp {
			return specScript(func(i int) (int, error) {
				return i, fmt.Errorf("status 429: %w", RetryAfter(d, attemptErr(i)))
			})
		}
	}
	s := time.Second
	cases := []struct {
		name     string
		needsCtx bool
		opts     func() []RetryOption
		op       func(context.CancelCauseFunc) *specOp
		react    func(*specClock, context.CancelCauseFunc) func(int, time.Duration)
		cause    error
		lastErr  error
		attempts int
		waits    []time.Duration
		elapsed  time.Duration
	}{
		{
			name: "Permanent", opts: func() []RetryOption { return []RetryOption{constant(s)} },
			op: func(context.CancelCauseFunc) *specOp {
				return specScript(func(i int) (int, error) {
					if i == 2 {
						return i, Permanent(errBad)
					}
					return i, attemptErr(i)
				})
			},
			cause: ErrPermanent, lastErr: errBad, attempts: 2, waits: []time.Duration{s}, elapsed: s,
		},
		{
			name: "MaxTries", opts: func() []RetryOption { return []RetryOption{constant(s), WithMaxTries(3)} },
			op: always, cause: ErrExhausted, lastErr: attemptErr(3), attempts: 3,
			waits: []time.Duration{s, s}, elapsed: 2 * s,
		},
		{
			name: "policy Stop",
			opts: func() []RetryOption {
				return []RetryOption{WithBackOff(&specBackOff{seq: []time.Duration{s, 2 * s}})}
			},
			op: always, cause: ErrExhausted, lastErr: attemptErr(3), attempts: 3,
			waits: []time.Duration{s, 2 * s}, elapsed: 3 * s,
		},
		{
			name: "StopBackOff", opts: func() []RetryOption { return []RetryOption{WithBackOff(&StopBackOff{})} },
			op: always, cause: ErrExhausted, lastErr: attemptErr(1), attempts: 1,
		},
		{
			// At 2s a wait of 1s would end at 3s, past the 2.5s budget: the
			// driver stops then, rather than starting it.
			name: "MaxElapsedTime stops before a wait that would overrun it",
			opts: func() []RetryOption { return []RetryOption{constant(s), WithMaxElapsedTime(2500 * time.Millisecond)} },
			op:   always, cause: ErrMaxElapsedTime, lastErr: attemptErr(3), attempts: 3,
			waits: []time.Duration{s, s}, elapsed: 2 * s,
		},
		{
			name: "MaxElapsedTime with growing waits",
			opts: func() []RetryOption {
				return []RetryOption{WithBackOff(specExp(s, time.Minute)), WithMaxElapsedTime(10 * s)}
			},
			op: always, cause: ErrMaxElapsedTime, lastErr: attemptErr(4), attempts: 4,
			waits: []time.Duration{s, 2 * s, 4 * s}, elapsed: 7 * s,
		},
		{
			name: "DefaultMaxElapsedTime is 15 minutes",
			opts: func() []RetryOption { return []RetryOption{constant(4 * time.Minute)} },
			op:   always, cause: ErrMaxElapsedTime, lastErr: attemptErr(4), attempts: 4,
			waits:   []time.Duration{4 * time.Minute, 4 * time.Minute, 4 * time.Minute},
			elapsed: 12 * time.Minute,
		},
		{
			name: "MaxElapsedTime 0 disables the limit",
			opts: func() []RetryOption {
				return []RetryOption{constant(time.Hour), WithMaxElapsedTime(0), WithMaxTries(5)}
			},
			op: always, cause: ErrExhausted, lastErr: attemptErr(5), attempts: 5,
			waits:   []time.Duration{time.Hour, time.Hour, time.Hour, time.Hour},
			elapsed: 4 * time.Hour,
		},
		{
			name: "context cancelled during a wait", needsCtx: true,
			opts: func() []RetryOption { return []RetryOption{constant(s)} },
			op:   always, react: cancelAt(1, nil),
			cause: context.Canceled, lastErr: attemptErr(2), attempts: 2,
			waits: []time.Duration{s, s}, elapsed: s,
		},
		{
			name: "context cancelled with a cause during a wait", needsCtx: true,
			opts: func() []RetryOption { return []RetryOption{constant(s)} },
			op:   always, react: cancelAt(2, errShutdown),
			cause: errShutdown, lastErr: attemptErr(3), attempts: 3,
			waits: []time.Duration{s, s, s}, elapsed: 2 * s,
		},
		{
			name: "context cancelled during an attempt", needsCtx: true,
			opts:  func() []RetryOption { return []RetryOption{constant(s)} },
			op:    cancelDuring(2, errShutdown),
			cause: errShutdown, lastErr: attemptErr(2), attempts: 2,
			waits: []time.Duration{s}, elapsed: s,
		},
		{
			name: "context cancelled during the last allowed attempt", needsCtx: true,
			opts:  func() []RetryOption { return []RetryOption{constant(s), WithMaxTries(2)} },
			op:    cancelDuring(2, errShutdown),
			cause: errShutdown, lastErr: attemptErr(2), attempts: 2,
			waits: []time.Duration{s}, elapsed: s,
		},
		{
			name: "context cancelled during the only allowed attempt", needsCtx: true,
			opts:  func() []RetryOption { return []RetryOption{constant(s), WithMaxTries(1)} },
			op:    cancelDuring(1, nil),
			cause: context.Canceled, lastErr: attemptErr(1), attempts: 1,
		},
		{
			name: "RetryAfter then MaxTries: LastErr is RetryAfter's cause",
			opts: func() []RetryOption { return []RetryOption{WithMaxTries(2)} },
			op:   retryAfterAlways(5 * s), cause: ErrExhausted, lastErr: attemptErr(2), attempts: 2,
			waits: []time.Duration{5 * s}, elapsed: 5 * s,
		},
		{
			name: "RetryAfter then cancel: LastErr is RetryAfter's cause", needsCtx: true,
			op: retryAfterAlways(5 * s), react: cancelAt(0, nil),
			cause: context.Canceled, lastErr: attemptErr(1), attempts: 1,
			waits: []time.Duration{5 * s},
		},
		{
			name: "RetryAfter longer than MaxElapsedTime",
			opts: func() []RetryOption { return []RetryOption{WithMaxElapsedTime(10 * time.Minute)} },
			op:   retryAfterAlways(time.Hour), cause: ErrMaxElapsedTime, lastErr: attemptErr(1), attempts: 1,
		},
		{
			name: "RetryAfter longer than DefaultMaxElapsedTime",
			op:   retryAfterAlways(20 * time.Minute), cause: ErrMaxElapsedTime, lastErr: attemptErr(1), attempts: 1,
		},
		{
			// RetryAfter names the next wait even when the policy would
			// stop; the policy decides the wait after it.
			name: "RetryAfter sets the wait even of a policy that stops",
			opts: func() []RetryOption { return []RetryOption{WithBackOff(&StopBackOff{})} },
			op: func(context.CancelCauseFunc) *specOp {
				return specScript(func(i int) (int, error) {
					if i == 1 {
						return i, RetryAfter(3*s, attemptErr(i))
					}
					return i, attemptErr(i)
				})
			},
			cause: ErrExhausted, lastErr: attemptErr(2), attempts: 2,
			waits: []time.Duration{3 * s}, elapsed: 3 * s,
		},
	}
	for _, c := range cases {
		entries := specEntries
		if c.needsCtx {
			entries = specCtxEntries
		}
		for _, e := range entries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				op := c.op(cancel)
				var opts []RetryOption
				if c.opts != nil {
					opts = c.opts()
				}
				opts = append(opts, WithClock(clk))
				var react func(int, time.Duration)
				if c.react != nil {
					react = c.react(clk, cancel)
				}
				var v int
				var err error
				start := clk.Now()
				waits := specDrive(t, clk, react, func() { v, err = e.run(ctx, op.run, opts...) })
				re := specCheckStop(t, err, c.cause, c.lastErr)
				if op.count() != c.attempts {
					t.Errorf("the operation ran %d times, want %d", op.count(), c.attempts)
				}
				if re.Attempts != c.attempts {
					t.Errorf("Attempts = %d, want %d", re.Attempts, c.attempts)
				}
				if !slices.Equal(waits, c.waits) {
					t.Errorf("waits %v, want %v", waits, c.waits)
				}
				if got := clk.Now().Sub(start); got != c.elapsed {
					t.Errorf("the clock advanced %v, want %v", got, c.elapsed)
				}
				if re.Elapsed != c.elapsed {
					t.Errorf("Elapsed = %v, want %v", re.Elapsed, c.elapsed)
				}
				if e.hasResult && v != c.attempts {
					t.Errorf("result %d, want %d, the last attempt's", v, c.attempts)
				}
			})
		}
	}
}

// "Error() prints the last operation error undecorated (the cause only when
// there is no operation error)."
func TestDriverErrorMessageIsUndecorated(t *testing.T) {
	err := RetryError(func() error { return errors.New("connection refused") }, WithMaxTries(1))
	if got := err.Error(); got != "connection refused" {
		t.Errorf("Error() = %q, want %q", got, "connection refused")
	}
	if got := fmt.Sprint(err); got != "connection refused" {
		t.Errorf("fmt.Sprint = %q, want %q", got, "connection refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = DoErr(ctx, func(context.Context) error { return errors.New("never") })
	if got, want := err.Error(), context.Canceled.Error(); got != want {
		t.Errorf("with no operation error, Error() = %q, want the cause %q", got, want)
	}
}

// "Notify fires once per retry and never for the final error", with the
// operation's error and the wait that follows.
func TestDriverNotifiesOncePerRetry(t *testing.T) {
	s := time.Second
	errBad := errors.New("bad request")
	cases := []struct {
		name   string
		opts   []RetryOption
		op     *specOp
		errs   []error
		delays []time.Duration
	}{
		{"exhausted", []RetryOption{WithMaxTries(4)}, specAlways(),
			[]error{attemptErr(1), attemptErr(2), attemptErr(3)}, []time.Duration{s, s, s}},
		{"success", nil, specFailThenSucceed(2),
			[]error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"permanent", nil, specScript(func(n int) (int, error) {
			if n == 3 {
				return n, Permanent(errBad)
			}
			return n, attemptErr(n)
		}), []error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"max elapsed time", []RetryOption{WithMaxElapsedTime(2500 * time.Millisecond)}, specAlways(),
			[]error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"retry after", []RetryOption{WithMaxTries(2)}, specScript(func(n int) (int, error) {
			return n, RetryAfter(7*s, attemptErr(n))
		}), []error{attemptErr(1)}, []time.Duration{7 * s}},
		{"rejected by the classifier", []RetryOption{WithRetryable(func(err error) bool {
			return !errors.Is(err, attemptErr(3))
		})}, specAlways(), []error{attemptErr(1), attemptErr(2)}, []time.Duration{s, s}},
		{"policy Stop", []RetryOption{WithBackOff(&specBackOff{seq: []time.Duration{s}})}, specAlways(),
			[]error{attemptErr(1)}, []time.Duration{s}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clk := newSpecClock()
			var n specNotify
			opts := append([]RetryOption{WithBackOff(NewConstantBackOff(s)), WithClock(clk), WithNotify(n.notify)}, c.opts...)
			waits := specDrive(t, clk, nil, func() { _, _ = Retry(c.op.run, opts...) })
			if c.op.count() != len(c.errs)+1 {
				t.Fatalf("the operation ran %d times, want %d", c.op.count(), len(c.errs)+1)
			}
			if len(n.errs) != len(c.errs) {
				t.Fatalf("Notify called %d times with %v, want %d times", len(n.errs), n.errs, len(c.errs))
			}
			for i := range c.errs {
				if !errors.Is(n.errs[i], c.errs[i]) {
					t.Errorf("Notify call %d got %v, want %v", i+1, n.errs[i], c.errs[i])
				}
			}
			if !slices.Equal(n.delays, c.delays) {
				t.Errorf("Notify delays %v, want %v", n.delays, c.delays)
			}
			if !slices.Equal(n.delays, waits) {
				t.Errorf("Notify delays %v, but the driver waited %v", n.delays, waits)
			}
		})
	}
}

// Cancelling the context inside Notify means no further attempt, whether
// a wait follows or not.
func TestDriverCancelInNotifyMakesNoFurtherAttempt(t *testing.T) {
	policies := []struct {
		name string
		b    func() BackOff
	}{
		{"zero wait", func() BackOff { return &ZeroBackOff{} }},
		{"one second wait", func() BackOff { return NewConstantBackOff(time.Second) }},
	}
	for _, p := range policies {
		for _, e := range specCtxEntries {
			t.Run(p.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				op := specAlways()
				notify := func(error, time.Duration) { cancel() }
				var err error
				// A wait, if one starts, is never advanced.
				specDrive(t, clk, func(int, time.Duration) {}, func() {
					_, err = e.run(ctx, op.run, WithBackOff(p.b()), WithClock(clk), WithNotify(notify), WithMaxTries(3))
				})
				if op.count() != 1 {
					t.Errorf("the operation ran %d times after Notify cancelled, want 1", op.count())
				}
				specCheckStop(t, err, context.Canceled, attemptErr(1))
			})
		}
	}
}

// "A RetryAfterError anywhere in the error chain sets the next wait and
// resets the policy."
func TestDriverRetryAfterSetsTheWaitAndResetsThePolicy(t *testing.T) {
	s := time.Second
	cause := errors.New("rate limited")
	chains := []struct {
		name string
		err  func() error
	}{
		{"direct", func() error { return RetryAfter(7*s, cause) }},
		{"wrapped", func() error { return fmt.Errorf("GET /: %w", RetryAfter(7*s, cause)) }},
		{"wrapped twice", func() error {
			return fmt.Errorf("client: %w", fmt.Errorf("GET /: %w", RetryAfter(7*s, cause)))
		}},
		{"joined", func() error { return errors.Join(errors.New("status 429"), RetryAfter(7*s, cause)) }},
	}
	for _, ch := range chains {
		t.Run(ch.name, func(t *testing.T) {
			clk := newSpecClock()
			op := specScript(func(n int) (int, error) {
				switch {
				case n == 3:
					return n, ch.err()
				case n < 6:
					return n, attemptErr(n)
				}
				return 100, nil
			})
			var n specNotify
			var v int
			var err error
			waits := specDrive(t, clk, nil, func() {
				v, err = Retry(op.run, WithBackOff(specExp(s, time.Minute)), WithClock(clk), WithNotify(n.notify))
			})
			if err != nil || v != 100 {
				t.Fatalf("got (%d, %v), want success", v, err)
			}
			want := []time.Duration{s, 2 * s, 7 * s, s, 2 * s}
			if !slices.Equal(waits, want) {
				t.Errorf("waits %v, want %v: the RetryAfter wait, then the policy from its start", waits, want)
			}
			if !slices.Equal(n.delays, want) {
				t.Errorf("Notify delays %v, want %v", n.delays, want)
			}
		})
	}
	t.Run("custom policy is Reset", func(t *testing.T) {
		clk := newSpecClock()
		b := &specBackOff{seq: []time.Duration{s, 2 * s, 3 * s}}
		op := specScript(func(n int) (int, error) {
			switch n {
			case 1, 3:
				return n, attemptErr(n)
			case 2:
				return n, RetryAfter(9*s, cause)
			}
			return 100, nil
		})
		var err error
		waits := specDrive(t, clk, nil, func() { _, err = Retry(op.run, WithBackOff(b), WithClock(clk)) })
		if err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{s, 9 * s, s}; !slices.Equal(waits, want) {
			t.Errorf("waits %v, want %v", waits, want)
		}
		if b.resets != 2 {
			t.Errorf("Reset called %d times, want 2: before the first attempt and for the RetryAfter", b.resets)
		}
	})
}

// "A Permanent error gives Cause ErrPermanent whatever WithMaxTries says":
// the same shape for MaxTries 0, 1 and 2, marked directly or wrapped.
func TestDriverPermanentSameShapeWhateverMaxTries(t *testing.T) {
	root := errors.New("invalid token")
	marks := []struct {
		name    string
		err     error
		message string
	}{
		{"direct", Permanent(root), "invalid token"},
		{"wrapped", fmt.Errorf("building the request: %w", Permanent(root)), "building the request: invalid token"},
	}
	for _, m := range marks {
		for _, e := range specEntries {
			for _, tries := range []uint{0, 1, 2} {
				t.Run(fmt.Sprintf("%s/%s/MaxTries %d", m.name, e.name, tries), func(t *testing.T) {
					// A third attempt would succeed: a driver that missed the
					// mark ends in success instead of spinning.
					op := specScript(func(n int) (int, error) {
						if n >= 3 {
							return 100, nil
						}
						return n, m.err
					})
					_, err := e.run(context.Background(), op.run, WithMaxTries(tries), WithBackOff(&ZeroBackOff{}))
					re := specAsError(t, err)
					if re.Cause != ErrPermanent {
						t.Errorf("Cause = %v, want ErrPermanent", re.Cause)
					}
					if !errors.Is(err, root) || !errors.Is(re.LastErr, root) {
						t.Errorf("errors.Is(err, root) = false; LastErr = %v", re.LastErr)
					}
					if got := err.Error(); got != m.message {
						t.Errorf("Error() = %q, want %q", got, m.message)
					}
					if op.count() != 1 || re.Attempts != 1 {
						t.Errorf("ran %d times, Attempts %d; want 1", op.count(), re.Attempts)
					}
				})
			}
		}
	}
}

// The operation is not called when the context is already done, and the
// context's cause is reported.
func TestDriverWithAContextAlreadyDone(t *testing.T) {
	errShutdown := errors.New("shutting down")
	ctxs := []struct {
		name  string
		ctx   func() context.Context
		cause error
	}{
		{"cancelled", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, context.Canceled},
		{"cancelled with a cause", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errShutdown)
			return ctx
		}, errShutdown},
		{"deadline passed", func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
			_ = cancel // already expired; cancel would change nothing
			return ctx
		}, context.DeadlineExceeded},
	}
	for _, c := range ctxs {
		for _, e := range specCtxEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				op := specAlways()
				res, err := e.run(c.ctx(), op.run)
				if !e.live {
					// Seed 003: "It ensures the operation is executed at
					// least once": once, then the context's cause, with the
					// operation's error and its last result.
					if op.count() != 1 {
						t.Errorf("the operation ran %d times, want 1", op.count())
					}
					re := specCheckStop(t, err, c.cause, attemptErr(1))
					if re.Attempts != 1 || (e.hasResult && res != 1) {
						t.Errorf("Attempts = %d, result %d; want 1 and the last result, 1", re.Attempts, res)
					}
					return
				}
				// Do and DoErr: "never started once ctx is done".
				if op.count() != 0 {
					t.Errorf("the operation ran %d times, want 0", op.count())
				}
				re := specCheckStop(t, err, c.cause, nil)
				if re.Attempts != 0 {
					t.Errorf("Attempts = %d, want 0", re.Attempts)
				}
				if got, want := err.Error(), c.cause.Error(); got != want {
					t.Errorf("Error() = %q, want the cause %q", got, want)
				}
			})
		}
	}
	// A RetryCtx operation that succeeds although ctx is done succeeds.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if v, err := RetryCtx(ctx, succeed); v != 1 || err != nil {
		t.Errorf("RetryCtx with a done context and a successful operation: (%d, %v), want (1, nil)", v, err)
	}
}

// "An operation error that matches context.Canceled or
// context.DeadlineExceeded while ctx is alive came from someone else's
// context and is an ordinary error."
func TestDriverRetriesContextErrorsWhileTheContextIsAlive(t *testing.T) {
	for _, e := range specEntries {
		for _, tries := range []uint{0, 5} {
			t.Run(fmt.Sprintf("%s/MaxTries %d", e.name, tries), func(t *testing.T) {
				op := specScript(func(n int) (int, error) {
					switch n {
					case 1:
						return n, context.Canceled
					case 2:
						return n, fmt.Errorf("pool: %w", context.DeadlineExceeded)
					case 3:
						return n, context.Cause(func() context.Context {
							ctx, cancel := context.WithCancelCause(context.Background())
							cancel(errors.New("sibling failed"))
							return ctx
						}())
					}
					return 100, nil
				})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				v, err := e.run(ctx, op.run, WithBackOff(&ZeroBackOff{}), WithMaxTries(tries))
				if err != nil {
					t.Fatalf("got %v after %d attempts, want success", err, op.count())
				}
				if op.count() != 4 || (e.hasResult && v != 100) {
					t.Errorf("got %d after %d attempts, want 100 after 4", v, op.count())
				}
			})
		}
	}
}

// "When ctx has a deadline and the next wait would end after it, the
// driver stops at once instead of sleeping into the deadline, with Cause
// context.DeadlineExceeded and LastErr the operation's last real error."
// The default clock runs on a synctest bubble's virtual time.
func TestDriverStopsBeforeAWaitPastTheDeadline(t *testing.T) {
	s := time.Second
	cases := []struct {
		name     string
		b        BackOff
		op       func() *specOp
		attempts int
		stopAt   time.Duration // virtual time at which the driver returns
	}{
		{"first wait too long", NewConstantBackOff(10 * s), specAlways, 1, 0},
		{"third wait too long", NewConstantBackOff(2 * s), specAlways, 3, 4 * s},
		{"RetryAfter too long", NewConstantBackOff(s), func() *specOp {
			return specScript(func(n int) (int, error) { return n, RetryAfter(time.Minute, attemptErr(n)) })
		}, 1, 0},
	}
	for _, c := range cases {
		for _, e := range specCtxEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 5*s)
					defer cancel()
					start := time.Now()
					op := c.op()
					var n specNotify
					_, err := e.run(ctx, op.run, WithBackOff(c.b), WithNotify(n.notify))
					if len(n.errs) != c.attempts-1 {
						t.Errorf("Notify called %d times, want %d: never for the final error", len(n.errs), c.attempts-1)
					}
					if got := time.Since(start); got != c.stopAt {
						t.Errorf("returned after %v, want %v: no sleeping into the deadline", got, c.stopAt)
					}
					re := specCheckStop(t, err, context.DeadlineExceeded, attemptErr(c.attempts))
					if re.Attempts != c.attempts || op.count() != c.attempts {
						t.Errorf("Attempts = %d, ran %d times, want %d", re.Attempts, op.count(), c.attempts)
					}
				})
			})
		}
	}
}

// "Misconfiguration is reported, not guessed": the driver returns at once,
// without calling the operation, an *Error whose Cause matches
// ErrInvalidConfiguration and whose message names the bad field.
func TestDriverRejectsMisconfiguration(t *testing.T) {
	exp := func(f func(*ExponentialBackOff)) RetryOption {
		b := NewExponentialBackOff()
		f(b)
		return WithBackOff(b)
	}
	cases := []struct {
		name  string
		opts  []RetryOption
		field string
	}{
		{"nil BackOff", []RetryOption{WithBackOff(nil)}, "BackOff"},
		{"negative InitialInterval", []RetryOption{exp(func(b *ExponentialBackOff) { b.InitialInterval = -time.Second })}, "InitialInterval"},
		{"negative MaxInterval", []RetryOption{exp(func(b *ExponentialBackOff) { b.MaxInterval = -time.Second })}, "MaxInterval"},
		{"NaN Multiplier", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = math.NaN() })}, "Multiplier"},
		{"+Inf Multiplier", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = math.Inf(1) })}, "Multiplier"},
		{"-Inf Multiplier", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = math.Inf(-1) })}, "Multiplier"},
		{"Multiplier below 1", []RetryOption{exp(func(b *ExponentialBackOff) { b.Multiplier = 0.5 })}, "Multiplier"},
		{"typed nil ExponentialBackOff", []RetryOption{WithBackOff((*ExponentialBackOff)(nil))}, "nil"},
		{"typed nil ConstantBackOff", []RetryOption{WithBackOff((*ConstantBackOff)(nil))}, "nil"},
		{"negative MaxRetryTime", []RetryOption{WithMaxRetryTime(-time.Second)}, "MaxRetryTime"},
		{"nil result check", []RetryOption{CheckResult[int](nil, nil)}, "CheckResult"},
		{"result check of another type", []RetryOption{CheckResult(func(string) error { return nil }, nil)}, "CheckResult"},
		{"negative RandomizationFactor", []RetryOption{exp(func(b *ExponentialBackOff) { b.RandomizationFactor = -0.1 })}, "RandomizationFactor"},
		{"RandomizationFactor above 1", []RetryOption{exp(func(b *ExponentialBackOff) { b.RandomizationFactor = 1.5 })}, "RandomizationFactor"},
		{"NaN RandomizationFactor", []RetryOption{exp(func(b *ExponentialBackOff) { b.RandomizationFactor = math.NaN() })}, "RandomizationFactor"},
		{"bad option to NewExponentialBackOff", []RetryOption{WithBackOff(NewExponentialBackOff(WithMultiplier(math.NaN())))}, "Multiplier"},
		{"struct literal", []RetryOption{WithBackOff(&ExponentialBackOff{InitialInterval: time.Second, MaxInterval: time.Minute, Multiplier: 2, RandomizationFactor: 2})}, "RandomizationFactor"},
		{"negative ConstantBackOff", []RetryOption{WithBackOff(NewConstantBackOff(-time.Second))}, "Interval"},
		{"bad policy under WithContext", []RetryOption{WithBackOff(WithContext(context.Background(), NewConstantBackOff(-time.Second)))}, "Interval"},
		{"negative MaxElapsedTime", []RetryOption{WithMaxElapsedTime(-time.Second)}, "MaxElapsedTime"},
		{"nil clock", []RetryOption{WithClock(nil)}, "clock"},
		{"nil classifier", []RetryOption{WithRetryable(nil)}, "WithRetryable"},
		{"negative WithAttemptTimeout", []RetryOption{WithAttemptTimeout(-time.Second)}, "WithAttemptTimeout"},
		{"nil RetryOption", []RetryOption{nil}, "RetryOption"},
		{"nil Instrumenter", []RetryOption{WithInstrumenter(nil)}, "Instrumenter"},
		{"RetryIf without targets", []RetryOption{RetryIf()}, "RetryIf"},
		{"RetryIf with a nil target", []RetryOption{RetryIf(errors.New("x"), nil)}, "RetryIf"},
		{"bad setting after good ones", []RetryOption{WithMaxTries(3), WithName("x"), WithMaxElapsedTime(-1)}, "MaxElapsedTime"},
	}
	check := func(t *testing.T, err error, calls int, field string) {
		t.Helper()
		if calls != 0 {
			t.Errorf("the operation ran %d times, want 0", calls)
		}
		re := specAsError(t, err)
		if !errors.Is(re.Cause, ErrInvalidConfiguration) || !errors.Is(err, ErrInvalidConfiguration) {
			t.Errorf("Cause = %v, want one matching ErrInvalidConfiguration", re.Cause)
		}
		if re.LastErr != nil {
			t.Errorf("LastErr = %v, want nil", re.LastErr)
		}
		if !strings.Contains(err.Error(), field) {
			t.Errorf("message %q does not name %q", err.Error(), field)
		}
	}
	for _, c := range cases {
		for _, e := range specEntries {
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				clk := newSpecClock()
				op := specAlways()
				opts := append([]RetryOption{WithClock(clk)}, c.opts...)
				var err error
				waits := specDrive(t, clk, nil, func() { _, err = e.run(context.Background(), op.run, opts...) })
				check(t, err, op.count(), c.field)
				if len(waits) != 0 {
					t.Errorf("the driver waited %v before reporting the misconfiguration", waits)
				}
			})
		}
	}
	t.Run("nil operation", func(t *testing.T) {
		errs := map[string]error{}
		_, errs["Retry"] = Retry[int](nil)
		_, errs["RetryCtx"] = RetryCtx[int](context.Background(), nil)
		errs["RetryError"] = RetryError(nil)
		errs["RetryErrorCtx"] = RetryErrorCtx(context.Background(), nil)
		_, errs["Do"] = Do[int](context.Background(), nil)
		errs["DoErr"] = DoErr(context.Background(), nil)
		for name, err := range errs {
			t.Run(name, func(t *testing.T) { check(t, err, 0, "nil") })
		}
	})
	t.Run("nil context", func(t *testing.T) {
		var nilCtx context.Context
		for _, e := range specCtxEntries {
			t.Run(e.name, func(t *testing.T) {
				op := specAlways()
				_, err := e.run(nilCtx, op.run)
				check(t, err, op.count(), "context")
			})
		}
	})
}

// One *ExponentialBackOff shared by concurrent Retry calls: no data race
// (run with -race), and each call sees the policy's sequence from its
// start, as if it had the policy to itself; with the default randomized
// policy, each wait lies within ±50% of that sequence.
func TestDriverSharesAnExponentialBackOffAcrossGoroutines(t *testing.T) {
	cases := []struct {
		name    string
		policy  *ExponentialBackOff
		nominal []time.Duration
		spread  float64
	}{
		{"no jitter", specExp(time.Second, time.Minute), []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, 0},
		{"default", NewExponentialBackOff(), []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond}, 0.5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := WithTestingBypass(context.Background())
				const calls = 50
				var wg sync.WaitGroup
				errs := make(chan error, calls)
				for range calls {
					wg.Go(func() {
						var n specNotify
						op := specFailThenSucceed(3)
						if _, err := RetryCtx(ctx, op.run, WithBackOff(c.policy), WithNotify(n.notify)); err != nil {
							errs <- err
							return
						}
						if len(n.delays) != len(c.nominal) {
							errs <- fmt.Errorf("waits %v, want %d", n.delays, len(c.nominal))
							return
						}
						for i, d := range n.delays {
							lo := time.Duration(float64(c.nominal[i]) * (1 - c.spread))
							hi := time.Duration(float64(c.nominal[i]) * (1 + c.spread))
							if d < lo || d > hi {
								errs <- fmt.Errorf("wait %d is %v, outside [%v, %v]", i+1, d, lo, hi)
							}
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
			})
		})
	}
}

// Cancelling a run in the middle of its wait leaves nothing behind: no
// goroutine, and no timer still pending on the clock.
func TestDriverLeavesNothingBehindAfterCancelledWaits(t *testing.T) {
	defer goleak.VerifyNone(t)
	const runs = 1000
	t.Run("mock clock", func(t *testing.T) {
		clk := newSpecClock()
		for i := range runs {
			ctx, cancel := context.WithCancel(context.Background())
			op := specAlways()
			var err error
			waits := specDrive(t, clk, func(int, time.Duration) { cancel() }, func() {
				_, err = RetryCtx(ctx, op.run, WithClock(clk), WithBackOff(NewConstantBackOff(time.Minute)))
			})
			if len(waits) != 1 || !errors.Is(err, context.Canceled) {
				t.Fatalf("run %d: waits %v, err %v; want one wait, cancelled", i, waits, err)
			}
		}
		// A timer left pending would move the clock to its end here; a
		// stopped one is gone. Nothing must be left to fire.
		before := clk.Now()
		if after := clk.WaitForAllTimers(); !after.Equal(before) {
			t.Errorf("timers still pending after every run returned: the clock moved by %v", after.Sub(before))
		}
	})
	t.Run("time package in a bubble", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			for i := range runs {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					done <- RetryErrorCtx(ctx, func() error { return errors.New("down") },
						WithBackOff(NewConstantBackOff(time.Minute)))
				}()
				synctest.Wait() // the driver is blocked in its wait
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Fatalf("run %d: %v, want cancelled", i, err)
				}
			}
		})
	})
}

var _ clock.Clock = (*specClock)(nil)

// A mock clock's own deadline is on the clock the driver waits on: with
// WithClock(c), a wait that ends before ctx's deadline, as c tells time, is
// not one that "would end after it".
func TestDriverDeadlineOnTheDriversClock(t *testing.T) {
	for _, e := range specCtxEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			ctx, cancel := clk.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			op := specFailThenSucceed(3)
			var err error
			waits := specDrive(t, clk, nil, func() {
				_, err = e.run(ctx, op.run, WithClock(clk), WithBackOff(NewConstantBackOff(time.Second)))
			})
			if err != nil {
				var re *Error
				errors.As(err, &re)
				t.Fatalf("got %v (Cause %v) after %d attempts and waits %v; want success after 3 waits of 1s, all within the 1m deadline on the driver's clock",
					err, re.Cause, op.count(), waits)
			}
			if len(waits) != 3 {
				t.Errorf("waits %v, want 3", waits)
			}
		})
	}
}

// Misbehaving policies and RetryAfter values end clearly, never in a hang
// or a crash: a negative wait other than Stop from a custom policy, a
// negative RetryAfter (no wait, and no extra budget), a RetryAfter without
// a cause.
func TestDriverOddWaits(t *testing.T) {
	t.Run("custom policy returns a negative wait", func(t *testing.T) {
		op := specAlways()
		_, err := Retry(op.run, WithBackOff(&specBackOff{seq: []time.Duration{-5 * time.Second}}))
		re := specAsError(t, err)
		if !errors.Is(re.Cause, ErrInvalidConfiguration) || !errors.Is(re.LastErr, attemptErr(1)) || op.count() != 1 {
			t.Errorf("Cause %v LastErr %v after %d attempts; want ErrInvalidConfiguration with the last error after 1",
				re.Cause, re.LastErr, op.count())
		}
	})
	t.Run("negative RetryAfter", func(t *testing.T) {
		clk := newSpecClock()
		op := specScript(func(n int) (int, error) { return n, RetryAfter(-time.Hour, attemptErr(n)) })
		var err error
		waits := specDrive(t, clk, nil, func() {
			_, err = Retry(op.run, WithClock(clk), WithMaxElapsedTime(time.Second), WithMaxTries(4))
		})
		specCheckStop(t, err, ErrExhausted, attemptErr(4))
		if len(waits) != 0 {
			t.Errorf("waits %v, want none", waits)
		}
	})
	t.Run("RetryAfter without a cause", func(t *testing.T) {
		clk := newSpecClock()
		op := specScript(func(n int) (int, error) { return n, RetryAfter(time.Second, nil) })
		var err error
		specDrive(t, clk, nil, func() { _, err = Retry(op.run, WithClock(clk), WithMaxTries(2)) })
		re := specAsError(t, err)
		var ra *RetryAfterError
		if re.Cause != ErrExhausted || re.LastErr == nil || !errors.As(err, &ra) {
			t.Errorf("Cause %v LastErr %v; want ErrExhausted with the RetryAfterError kept", re.Cause, re.LastErr)
		}
	})
}

// "The default is NewExponentialBackOff": with no WithBackOff, the waits
// follow the default policy's randomized intervals from its start.
func TestDriverDefaultPolicy(t *testing.T) {
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			clk := newSpecClock()
			op := specFailThenSucceed(4)
			var err error
			waits := specDrive(t, clk, nil, func() { _, err = e.run(context.Background(), op.run, WithClock(clk)) })
			if err != nil {
				t.Fatal(err)
			}
			nominal := []time.Duration{500 * time.Millisecond, 750 * time.Millisecond, 1125 * time.Millisecond, 1687500 * time.Microsecond}
			if len(waits) != len(nominal) {
				t.Fatalf("waits %v, want %d", waits, len(nominal))
			}
			for i, d := range waits {
				if d < nominal[i]/2 || d > nominal[i]*3/2 {
					t.Errorf("wait %d is %v, outside %v ± 50%%", i+1, d, nominal[i])
				}
			}
		})
	}
}

// WithMaxElapsedTime is "measured from when Retry is called": the time the
// attempts take counts, not only the waits. On a bubble's virtual time.
func TestDriverMaxElapsedTimeCountsTheAttempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		op := specScript(func(n int) (int, error) {
			<-time.After(2 * time.Second) // the attempt takes 2s of virtual time
			return n, attemptErr(n)
		})
		var n specNotify
		_, err := Retry(op.run, WithBackOff(NewConstantBackOff(time.Second)),
			WithMaxElapsedTime(5500*time.Millisecond), WithNotify(n.notify))
		// 0–2s attempt 1, 2–3s wait, 3–5s attempt 2; a wait to 6s would overrun.
		re := specCheckStop(t, err, ErrMaxElapsedTime, attemptErr(2))
		if op.count() != 2 || len(n.delays) != 1 || re.Elapsed != 5*time.Second {
			t.Errorf("%d attempts, waits %v, Elapsed %v; want 2, [1s], 5s", op.count(), n.delays, re.Elapsed)
		}
	})
}
