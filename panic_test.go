package backoff

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// WithRecover turns a panic inside it into a *PanicError that the stages
// around it handle like an error.
func TestRecoverStage(t *testing.T) {
	calls := 0
	v, err := Execute(context.Background(), NewPolicy(WithRetry(WithBackOff(&ZeroBackOff{})), WithRecover()), func(context.Context) (int, error) {
		if calls++; calls < 3 {
			panic("boom")
		}
		return calls, nil
	})
	if v != 3 || err != nil {
		t.Errorf("(%d, %v), want (3, nil): the two panics retried", v, err)
	}
	err = NewPolicy(WithRecover()).Execute(context.Background(), func(context.Context) error { panic(io.EOF) })
	var pe *PanicError
	if !errors.As(err, &pe) || !errors.Is(err, io.EOF) || len(pe.Stack) == 0 {
		t.Errorf("err %v, want a *PanicError wrapping io.EOF with a stack", err)
	}
}

// "WithPanicRecovery(): a panic in the operation becomes an
// *PanicError{Value any, Stack []byte} error, subject to the classifier
// like any other."
func TestPanicRecoveryTurnsAPanicIntoAnError(t *testing.T) {
	for _, e := range specEntries {
		t.Run("retried/"+e.name, func(t *testing.T) {
			var n specNotify
			op := specScript(func(n int) (int, error) {
				if n == 1 {
					panic("boom")
				}
				return 100, nil
			})
			v, err := e.run(context.Background(), op.run, WithPanicRecovery(), WithBackOff(&ZeroBackOff{}), WithNotify(n.notify))
			if err != nil || (e.hasResult && v != 100) || op.count() != 2 {
				t.Fatalf("got (%d, %v) after %d attempts, want success after 2", v, err, op.count())
			}
			if len(n.errs) != 1 {
				t.Fatalf("Notify got %v, want the panic", n.errs)
			}
			var pe *PanicError
			if !errors.As(n.errs[0], &pe) {
				t.Fatalf("Notify got %T, want *PanicError", n.errs[0])
			}
			if pe.Value != "boom" {
				t.Errorf("Value = %v, want boom", pe.Value)
			}
			if !bytes.Contains(pe.Stack, []byte("goroutine")) || !bytes.Contains(pe.Stack, []byte("TestPanicRecoveryTurnsAPanicIntoAnError")) {
				t.Errorf("Stack = %s, want the stack trace of the panicking operation", pe.Stack)
			}
		})
		t.Run("rejected by the classifier/"+e.name, func(t *testing.T) {
			value := errors.New("nil map write")
			op := specScript(func(int) (int, error) { panic(value) })
			notPanic := WithRetryable(func(err error) bool { return !errors.As(err, new(*PanicError)) })
			_, err := e.run(context.Background(), op.run, WithPanicRecovery(), notPanic, WithBackOff(&ZeroBackOff{}), WithMaxTries(3))
			re := specAsError(t, err)
			var pe *PanicError
			if re.Cause != ErrPermanent || !errors.As(re.LastErr, &pe) || pe.Value != value {
				t.Errorf("Cause %v, LastErr %v; want ErrPermanent with the *PanicError", re.Cause, re.LastErr)
			}
			if op.count() != 1 {
				t.Errorf("ran %d times, want 1", op.count())
			}
		})
		t.Run("until MaxTries/"+e.name, func(t *testing.T) {
			op := specScript(func(int) (int, error) { panic(42) })
			_, err := e.run(context.Background(), op.run, WithPanicRecovery(), WithMaxTries(3), WithBackOff(&ZeroBackOff{}))
			re := specAsError(t, err)
			var pe *PanicError
			if re.Cause != ErrExhausted || !errors.As(err, &pe) || pe.Value != 42 || op.count() != 3 {
				t.Errorf("Cause %v, LastErr %v after %d attempts; want ErrExhausted, a *PanicError(42), 3", re.Cause, re.LastErr, op.count())
			}
		})
	}
}

// "Without the option a panic propagates unchanged (after the driver has
// released its timer)."
func TestPanicPropagatesWithoutRecovery(t *testing.T) {
	value := &specTempError{"panic value"}
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			op := specScript(func(n int) (int, error) {
				if n == 1 {
					return n, attemptErr(n)
				}
				panic(value)
			})
			got := func() (r any) {
				defer func() { r = recover() }()
				_, _ = e.run(context.Background(), op.run, WithBackOff(&ZeroBackOff{}))
				return nil
			}()
			if got != value {
				t.Errorf("recovered %v (%T), want the operation's own panic value", got, got)
			}
			if op.count() != 2 {
				t.Errorf("ran %d times, want 2", op.count())
			}
		})
	}
	t.Run("the attempt's context is released", func(t *testing.T) {
		var attemptCtx context.Context
		func() {
			defer func() { _ = recover() }()
			_, _ = Do(context.Background(), func(ctx context.Context) (int, error) {
				attemptCtx = ctx
				panic("boom")
			}, WithAttemptTimeout(time.Hour))
		}()
		if attemptCtx == nil || attemptCtx.Err() == nil {
			t.Errorf("the attempt's context (and its timer) is still live after the panic")
		}
	})
}

func TestPanicErrorTextAndUnwrap(t *testing.T) {
	if got := (&PanicError{Value: "boom"}).Error(); got != "backoff: operation panicked: boom" {
		t.Errorf("PanicError.Error() = %q", got)
	}
	if err := (&PanicError{Value: io.EOF}); !errors.Is(err, io.EOF) {
		t.Error("a PanicError does not unwrap to an error value")
	}
}
