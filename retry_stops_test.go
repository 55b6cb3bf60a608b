package backoff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// "It ensures the operation is executed at least once": a BackOff that stops
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
					_, err = e.run(context.Background(), op.Run, append(c.opts, WithClock(clk))...)
				})
				if op.Count() != 1 {
					t.Errorf("the operation ran %d times, want 1", op.Count())
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
			v, err := e.run(context.Background(), op.Run, WithBackOff(&StopBackOff{}))
			if err != nil || op.Count() != 1 {
				t.Fatalf("got %v after %d calls, want success after 1", err, op.Count())
			}
			if e.hasResult && v != 100 {
				t.Errorf("result %d, want 100", v)
			}
		})
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
			name: "BackOff Stop",
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
			opts: func() []RetryOption {
				return []RetryOption{WithMaxElapsedTime(10 * time.Minute), WithMaxRetryAfter(2 * time.Hour)}
			},
			op: retryAfterAlways(time.Hour), cause: ErrMaxElapsedTime, lastErr: attemptErr(1), attempts: 1,
		},
		{
			name: "RetryAfter longer than DefaultMaxElapsedTime",
			opts: func() []RetryOption { return []RetryOption{WithMaxRetryAfter(time.Hour)} },
			op:   retryAfterAlways(20 * time.Minute), cause: ErrMaxElapsedTime, lastErr: attemptErr(1), attempts: 1,
		},
		{
			// The BackOff is asked before a named wait replaces its wait,
			// as cenkalti/backoff v5 does: its Stop ends the run.
			name: "a BackOff that stops ends the run before a named wait",
			opts: func() []RetryOption { return []RetryOption{WithBackOff(&StopBackOff{})} },
			op: func(context.CancelCauseFunc) *specOp {
				return specScript(func(i int) (int, error) {
					if i == 1 {
						return i, RetryAfter(3*s, attemptErr(i))
					}
					return i, attemptErr(i)
				})
			},
			cause: ErrExhausted, lastErr: attemptErr(1), attempts: 1,
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
				waits := specDrive(t, clk, react, func() { v, err = e.run(ctx, op.Run, opts...) })
				re := specCheckStop(t, err, c.cause, c.lastErr)
				if op.Count() != c.attempts {
					t.Errorf("the operation ran %d times, want %d", op.Count(), c.attempts)
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
				v, err := e.run(ctx, op.Run, WithBackOff(&ZeroBackOff{}), WithMaxTries(tries))
				if err != nil {
					t.Fatalf("got %v after %d attempts, want success", err, op.Count())
				}
				if op.Count() != 4 || (e.hasResult && v != 100) {
					t.Errorf("got %d after %d attempts, want 100 after 4", v, op.Count())
				}
			})
		}
	}
}

// Misbehaving BackOffs and RetryAfter values end clearly, never in a hang
// or a crash: a negative wait other than Stop from a custom BackOff, a
// negative RetryAfter (no wait, and no extra budget), a RetryAfter without
// a cause.
func TestDriverOddWaits(t *testing.T) {
	t.Run("custom BackOff returns a negative wait", func(t *testing.T) {
		op := specAlways()
		_, err := Retry(op.Run, WithBackOff(&specBackOff{seq: []time.Duration{-5 * time.Second}}))
		re := specAsError(t, err)
		if !errors.Is(re.Cause, ErrInvalidConfiguration) || !errors.Is(re.LastErr, attemptErr(1)) || op.Count() != 1 {
			t.Errorf("Cause %v LastErr %v after %d attempts; want ErrInvalidConfiguration with the last error after 1",
				re.Cause, re.LastErr, op.Count())
		}
	})
	t.Run("negative RetryAfter", func(t *testing.T) {
		clk := newSpecClock()
		op := specScript(func(n int) (int, error) { return n, RetryAfter(-time.Hour, attemptErr(n)) })
		var err error
		waits := specDrive(t, clk, nil, func() {
			_, err = Retry(op.Run, WithClock(clk), WithMaxElapsedTime(time.Second), WithMaxTries(4))
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
		specDrive(t, clk, nil, func() { _, err = Retry(op.Run, WithClock(clk), WithMaxTries(2)) })
		re := specAsError(t, err)
		var ra *RetryAfterError
		if re.Cause != ErrExhausted || re.LastErr == nil || !errors.As(err, &ra) {
			t.Errorf("Cause %v LastErr %v; want ErrExhausted with the RetryAfterError kept", re.Cause, re.LastErr)
		}
	})
}
