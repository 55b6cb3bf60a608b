package policy_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/testkit/spectest"
	"github.com/herdsafe/backoff/policy"
)

// entry is one way to call through a Policy: Do, or DoErr.
type entry struct {
	name      string
	hasResult bool
	run       func(ctx context.Context, p *policy.Policy, op func() (int, error)) (int, error)
}

var entries = []entry{
	{"Do", true, func(ctx context.Context, p *policy.Policy, op func() (int, error)) (int, error) {
		return policy.Do(ctx, p, func(context.Context) (int, error) { return op() })
	}},
	{"DoErr", false, func(ctx context.Context, p *policy.Policy, op func() (int, error)) (int, error) {
		return 0, p.DoErr(ctx, func(context.Context) error { _, err := op(); return err })
	}},
}

// recovered runs fn and returns what it panicked with, nil if it did not.
func recovered(fn func()) (v any) {
	defer func() { v = recover() }()
	fn()
	return nil
}

// A Recover stage turns a panic inside it into a *PanicError that the
// stages around it handle like an error.
func TestRecoverStage(t *testing.T) {
	calls := 0
	v, err := policy.Do(context.Background(), policy.New(policy.Retry(zero()), policy.Recover()), func(context.Context) (int, error) {
		if calls++; calls < 3 {
			panic("boom")
		}
		return calls, nil
	})
	if v != 3 || err != nil {
		t.Errorf("(%d, %v), want (3, nil): the two panics retried", v, err)
	}
	err = policy.New(policy.Recover()).DoErr(context.Background(), func(context.Context) error { panic(io.EOF) })
	var pe *policy.PanicError
	re := asError(t, err)
	if re.Cause != backoff.ErrExhausted || !errors.Is(err, io.EOF) || !errors.As(re.LastErr, &pe) || pe.Value != io.EOF || len(pe.Stack) == 0 {
		t.Errorf("LastErr %v, want a *PanicError of io.EOF with a stack", re.LastErr)
	}
	// What is inside it: the guard and timeout stages between, too.
	panicky := &guardLog{refuse: func(guard.Call) error { panic("allow") }}
	err = policy.New(policy.Recover(), policy.Timeout(time.Hour), policy.Guard(panicky)).DoErr(context.Background(), func(context.Context) error { return nil })
	if !errors.As(err, &pe) || pe.Value != "allow" {
		t.Errorf("a panic in a guard inside the stage: %v, want a *PanicError", err)
	}
	// A fallback around it replaces the panic.
	v, err = policy.Do(context.Background(), policy.New(
		policy.Fallback(func(_ context.Context, err error) (int, error) {
			if !errors.As(err, &pe) {
				t.Errorf("the fallback was given %v, want a *PanicError in it", err)
			}
			return 42, nil
		}),
		policy.Retry(zero()), policy.Recover()), func(context.Context) (int, error) { panic("boom") })
	if v != 42 || err != nil {
		t.Errorf("(%d, %v), want the fallback's (42, nil)", v, err)
	}
}

// Recover inside a retry stage, as WithPanicRecovery was: a panic becomes
// a *PanicError{Value, Stack}, subject to the classifier like any other
// error.
func TestRecoverInsideRetry(t *testing.T) {
	for _, e := range entries {
		t.Run("retried/"+e.name, func(t *testing.T) {
			var n spectest.Notify
			op := spectest.Script(func(n int) (int, error) {
				if n == 1 {
					panic("boom")
				}
				return 100, nil
			})
			p := policy.New(policy.Retry(zero(), backoff.WithNotify(n.Notify)), policy.Recover())
			v, err := e.run(context.Background(), p, op.Run)
			if err != nil || (e.hasResult && v != 100) || op.Count() != 2 {
				t.Fatalf("got (%d, %v) after %d attempts, want success after 2", v, err, op.Count())
			}
			if len(n.Errs) != 1 {
				t.Fatalf("Notify got %v, want the panic", n.Errs)
			}
			var pe *policy.PanicError
			if !errors.As(n.Errs[0], &pe) {
				t.Fatalf("Notify got %T, want *PanicError", n.Errs[0])
			}
			if pe.Value != "boom" {
				t.Errorf("Value = %v, want boom", pe.Value)
			}
			if !bytes.Contains(pe.Stack, []byte("goroutine")) || !bytes.Contains(pe.Stack, []byte("TestRecoverInsideRetry")) {
				t.Errorf("Stack = %s, want the stack trace of the panicking function", pe.Stack)
			}
		})
		t.Run("rejected by the classifier/"+e.name, func(t *testing.T) {
			value := errors.New("nil map write")
			op := spectest.Script(func(int) (int, error) { panic(value) })
			notPanic := backoff.WithRetryable(func(err error) bool { return !errors.As(err, new(*policy.PanicError)) })
			p := policy.New(policy.Retry(notPanic, zero()), policy.Recover())
			_, err := e.run(context.Background(), p, op.Run)
			re := asError(t, err)
			var pe *policy.PanicError
			if re.Cause != backoff.ErrPermanent || !errors.As(re.LastErr, &pe) || pe.Value != value {
				t.Errorf("Cause %v, LastErr %v; want ErrPermanent with the *PanicError", re.Cause, re.LastErr)
			}
			if op.Count() != 1 {
				t.Errorf("ran %d times, want 1", op.Count())
			}
		})
		t.Run("until MaxTries/"+e.name, func(t *testing.T) {
			op := spectest.Script(func(int) (int, error) { panic(42) })
			_, err := e.run(context.Background(), policy.New(policy.Retry(zero()), policy.Recover()), op.Run)
			re := asError(t, err)
			var pe *policy.PanicError
			if re.Cause != backoff.ErrExhausted || !errors.As(err, &pe) || pe.Value != 42 || op.Count() != 3 {
				t.Errorf("Cause %v, LastErr %v after %d attempts; want ErrExhausted, a *PanicError(42), 3", re.Cause, re.LastErr, op.Count())
			}
		})
	}
}

// Without a Recover stage a panic goes on to the caller unchanged, after
// the stages have released what they hold.
func TestPanicWithoutRecover(t *testing.T) {
	value := &struct{ s string }{"panic value"}
	for _, e := range entries {
		t.Run(e.name, func(t *testing.T) {
			op := spectest.Script(func(n int) (int, error) {
				if n == 1 {
					return n, spectest.AttemptErr(n)
				}
				panic(value)
			})
			got := recovered(func() { _, _ = e.run(context.Background(), policy.New(policy.Retry(zero())), op.Run) })
			if got != value {
				t.Errorf("recovered %v (%T), want the function's own panic value", got, got)
			}
			if op.Count() != 2 {
				t.Errorf("ran %d times, want 2", op.Count())
			}
		})
	}
	t.Run("the attempt's context is released", func(t *testing.T) {
		var attemptCtx context.Context
		got := recovered(func() {
			_ = policy.New(policy.Retry(), policy.Timeout(time.Hour)).DoErr(context.Background(), func(ctx context.Context) error {
				attemptCtx = ctx
				panic("boom")
			})
		})
		if got != "boom" || attemptCtx == nil || attemptCtx.Err() == nil {
			t.Errorf("recovered %v; the attempt's context (and its timer) is still live after the panic", got)
		}
	})
}

// Recover recovers what runs inside it and nothing else: a panic in a
// callback of a stage around it goes on to the caller.
func TestRecoverRecoversOnlyWhatIsInside(t *testing.T) {
	cases := []struct {
		name   string
		stages []policy.Stage
	}{
		{"a fallback", []policy.Stage{
			policy.Fallback(func(context.Context, error) (int, error) { panic("fallback") }),
			policy.Retry(backoff.WithMaxTries(1)), policy.Recover()}},
		{"a classifier", []policy.Stage{
			policy.Retry(backoff.WithRetryable(func(error) bool { panic("classifier") })), policy.Recover()}},
		{"a Notify", []policy.Stage{
			policy.Retry(zero(), backoff.WithNotify(func(error, time.Duration) { panic("notify") })), policy.Recover()}},
		{"a guard outside", []policy.Stage{
			policy.Guard(&guardLog{refuse: func(guard.Call) error { panic("guard") }}), policy.Recover()}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := recovered(func() {
				_, _ = policy.Do(context.Background(), policy.New(c.stages...), func(context.Context) (int, error) { return 0, io.EOF })
			})
			if s, _ := got.(string); s == "" {
				t.Errorf("recovered %v, want the callback's panic", got)
			}
		})
	}
	// The guard outside a Recover stage whose callback panics holds
	// nothing: its admission was recorded.
	g := &guardLog{}
	got := recovered(func() {
		_ = policy.New(policy.Guard(g), policy.Retry(backoff.WithRetryable(func(error) bool { panic("classifier") })), policy.Recover()).
			DoErr(context.Background(), func(context.Context) error { return io.EOF })
	})
	if got != "classifier" || len(g.outcomes) != 1 || g.outcomes[0].Err != guard.ErrPanicked {
		t.Errorf("recovered %v, outcomes %+v; want the panic, and ErrPanicked recorded", got, g.outcomes)
	}
}

func TestPanicErrorTextAndUnwrap(t *testing.T) {
	if got := (&policy.PanicError{Value: "boom"}).Error(); got != "policy: the call panicked: boom" {
		t.Errorf("PanicError.Error() = %q", got)
	}
	if err := (&policy.PanicError{Value: io.EOF}); !errors.Is(err, io.EOF) || err.Unwrap() != io.EOF {
		t.Error("a PanicError does not unwrap to an error value")
	}
	if err := (&policy.PanicError{Value: 42}); err.Unwrap() != nil {
		t.Errorf("a PanicError of 42 unwraps to %v, want nil", err.Unwrap())
	}
}

// A recovered panic reaches the retry stage's instrumenters like any
// other failure.
func TestInstrumenterSeesARecoveredPanic(t *testing.T) {
	in := &instrumenter{}
	op := spectest.Script(func(n int) (int, error) { panic("boom") })
	p := policy.New(policy.Retry(backoff.WithInstrumenter(in), backoff.WithMaxTries(2), zero()), policy.Recover())
	_, err := policy.Do(context.Background(), p, run(op))
	asError(t, err)
	var after []backoff.State
	for _, ev := range in.events {
		if ev.method == "after" {
			after = append(after, ev.s)
		}
	}
	if len(after) != 2 {
		t.Fatalf("%d AfterAttempt calls, want 2", len(after))
	}
	for i, s := range after {
		var pe *policy.PanicError
		if !errors.As(s.Err, &pe) || pe.Value != "boom" {
			t.Errorf("AfterAttempt %d: Err = %v, want the *PanicError", i+1, s.Err)
		}
	}
	if !after[1].GivingUp || after[1].Cause != backoff.ErrExhausted {
		t.Errorf("the last State: GivingUp %v Cause %v, want true, ErrExhausted", after[1].GivingUp, after[1].Cause)
	}
}

// The stages inside a retry stage, a timeout and a Recover, as
// WithAttemptTimeout and WithPanicRecovery were: attempts that time out
// and then panic are retried as *PanicErrors until the attempts run out.
func TestTimeoutAndRecoverInsideRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		calls := 0
		err := policy.New(policy.Retry(zero()), policy.Timeout(time.Second), policy.Recover()).DoErr(context.Background(),
			func(ctx context.Context) error {
				calls++
				<-ctx.Done()
				panic(ctx.Err())
			})
		var pe *policy.PanicError
		re := asError(t, err)
		if re.Cause != backoff.ErrExhausted || !errors.As(re.LastErr, &pe) || pe.Value != context.DeadlineExceeded || calls != 3 {
			t.Errorf("LastErr %v after %d calls, want a *PanicError of DeadlineExceeded after 3", re.LastErr, calls)
		}
	})
}
