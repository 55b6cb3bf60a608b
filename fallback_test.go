package backoff

import (
	"context"
	"errors"
	"io"
	"testing"
)

// The fallback is called with the failure on exhaustion, on a guard's
// refusal and on a permanent error; not on success, nor once the caller's
// context is done.
func TestFallback(t *testing.T) {
	refuse := &specGuardLog{refuse: func(Call) error { return errSpecRefused }}
	cases := []struct {
		name   string
		stages []Stage
		fn     func(context.Context) (string, error)
		cause  error // of the *Error the fallback receives; nil: not called
	}{
		{"exhausted", []Stage{WithRetry(WithBackOff(&ZeroBackOff{}))},
			func(context.Context) (string, error) { return "", io.EOF }, ErrExhausted},
		{"refused", []Stage{WithRetry(), WithGuard(refuse)},
			func(context.Context) (string, error) { return "fresh", nil }, errSpecRefused},
		{"permanent", []Stage{WithRetry()},
			func(context.Context) (string, error) { return "", Permanent(io.EOF) }, ErrPermanent},
		{"no retry stage", nil,
			func(context.Context) (string, error) { return "", io.EOF }, ErrExhausted},
		{"success", []Stage{WithRetry()},
			func(context.Context) (string, error) { return "fresh", nil }, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got error
			fb := WithFallback(func(_ context.Context, err error) (string, error) {
				got = err
				return "stale", nil
			})
			v, err := Execute(context.Background(), NewPolicy(append([]Stage{fb}, c.stages...)...), c.fn)
			if c.cause == nil {
				if got != nil || v != "fresh" || err != nil {
					t.Errorf("(%q, %v), fallback given %v; want (fresh, nil) and no fallback", v, err, got)
				}
				return
			}
			if err != nil || v != "stale" {
				t.Errorf("(%q, %v), want the fallback's (stale, nil)", v, err)
			}
			var re *Error
			if !errors.As(got, &re) || !errors.Is(re.Cause, c.cause) {
				t.Errorf("the fallback was given %v, want an *Error with Cause %v", got, c.cause)
			}
		})
	}
	t.Run("caller cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		called := false
		p := NewPolicy(WithFallbackErr(func(context.Context, error) error { called = true; return nil }), WithRetry())
		err := p.Execute(ctx, func(context.Context) error { cancel(); return io.EOF })
		if called || !errors.Is(err, context.Canceled) {
			t.Errorf("fallback called %v, err %v; want no call and context.Canceled", called, err)
		}
	})
	t.Run("fallback error", func(t *testing.T) {
		errStale := errors.New("no stale copy")
		p := NewPolicy(WithFallback(func(_ context.Context, err error) (int, error) { return 0, errors.Join(errStale, err) }), WithRetry(WithMaxTries(1)))
		_, err := Execute(context.Background(), p, func(context.Context) (int, error) { return 0, io.EOF })
		if !errors.Is(err, errStale) || !errors.Is(err, io.EOF) || !errors.Is(err, ErrExhausted) {
			t.Errorf("err %v, want the fallback's error with the failure it was given", err)
		}
	})
	t.Run("effect fallback with a result", func(t *testing.T) {
		p := NewPolicy(WithFallbackErr(func(context.Context, error) error { return nil }), WithRetry(WithMaxTries(1)))
		v, err := Execute(context.Background(), p, func(context.Context) (int, error) { return 9, io.EOF })
		if v != 0 || err != nil {
			t.Errorf("(%d, %v), want the zero value and nil", v, err)
		}
	})
	t.Run("replaces a rejected result", func(t *testing.T) {
		var discarded []int
		p := NewPolicy(WithFallback(func(context.Context, error) (int, error) { return -1, nil }),
			WithRetry(WithMaxTries(2), WithBackOff(&ZeroBackOff{}), CheckResult(func(v int) error { return io.EOF }, func(v int) { discarded = append(discarded, v) })))
		n := 0
		v, err := Execute(context.Background(), p, func(context.Context) (int, error) { n++; return n, nil })
		if v != -1 || err != nil || len(discarded) != 2 {
			t.Errorf("(%d, %v), discarded %v; want (-1, nil) and both rejected results discarded", v, err, discarded)
		}
	})
}
