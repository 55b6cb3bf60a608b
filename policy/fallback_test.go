package policy_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

type ctxKey struct{}

// The fallback is called with the failure on exhaustion, on a guard's
// refusal and on a permanent error; not on success, nor once the caller's
// context is done.
func TestFallback(t *testing.T) {
	refuse := &guardLog{refuse: func(guard.Call) error { return errRefusedSpec }}
	cases := []struct {
		name     string
		stages   []policy.Stage
		fn       func(context.Context) (string, error)
		cause    error // of the *Error the fallback receives; nil: not called
		attempts int   // of that *Error
	}{
		{"exhausted", []policy.Stage{policy.Retry(zero())},
			func(context.Context) (string, error) { return "", io.EOF }, backoff.ErrExhausted, 3},
		{"refused", []policy.Stage{policy.Retry(), policy.Guard(refuse)},
			func(context.Context) (string, error) { return "fresh", nil }, errRefusedSpec, 0},
		{"refused, no retry stage", []policy.Stage{policy.Guard(refuse)},
			func(context.Context) (string, error) { return "fresh", nil }, backoff.ErrRefused, 0},
		{"permanent", []policy.Stage{policy.Retry()},
			func(context.Context) (string, error) { return "", backoff.Permanent(io.EOF) }, backoff.ErrPermanent, 1},
		{"no retry stage", nil,
			func(context.Context) (string, error) { return "", io.EOF }, backoff.ErrExhausted, 1},
		{"success", []policy.Stage{policy.Retry()},
			func(context.Context) (string, error) { return "fresh", nil }, nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got error
			var gotCtx context.Context
			fb := policy.Fallback(func(ctx context.Context, err error) (string, error) {
				got, gotCtx = err, ctx
				return "stale", nil
			})
			ctx := context.WithValue(context.Background(), ctxKey{}, c.name)
			v, err := policy.Do(ctx, policy.New(append([]policy.Stage{fb}, c.stages...)...), c.fn)
			if c.cause == nil {
				if got != nil || v != "fresh" || err != nil {
					t.Errorf("(%q, %v), fallback given %v; want (fresh, nil) and no fallback", v, err, got)
				}
				return
			}
			if err != nil || v != "stale" {
				t.Errorf("(%q, %v), want the fallback's (stale, nil)", v, err)
			}
			var re *backoff.Error
			if !errors.As(got, &re) || !errors.Is(re.Cause, c.cause) || re.Attempts != c.attempts {
				t.Errorf("the fallback was given %+v, want an *Error with Cause %v after %d attempts", got, c.cause, c.attempts)
			}
			if gotCtx == nil || gotCtx.Value(ctxKey{}) != c.name {
				t.Error("the fallback was not given the caller's context")
			}
		})
	}
	t.Run("caller cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		called := false
		p := policy.New(policy.FallbackErr(func(context.Context, error) error { called = true; return nil }), policy.Retry())
		err := p.DoErr(ctx, func(context.Context) error { cancel(); return io.EOF })
		if called {
			t.Error("the fallback was called once the caller's context was done")
		}
		checkStop(t, err, context.Canceled, io.EOF)
	})
	t.Run("fallback error", func(t *testing.T) {
		errStale := errors.New("no stale copy")
		p := policy.New(policy.Fallback(func(_ context.Context, err error) (int, error) { return 0, errors.Join(errStale, err) }), policy.Retry(backoff.WithMaxTries(1)))
		_, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { return 0, io.EOF })
		asError(t, err)
		if !errors.Is(err, errStale) || !errors.Is(err, io.EOF) || !errors.Is(err, backoff.ErrExhausted) {
			t.Errorf("err %v, want the fallback's error with the failure it was given", err)
		}
	})
	t.Run("the failure kept", func(t *testing.T) {
		var given error
		p := policy.New(policy.FallbackErr(func(_ context.Context, err error) error { given = err; return err }), policy.Retry(zero()))
		err := p.DoErr(context.Background(), func(context.Context) error { return io.EOF })
		if err == nil || err != given {
			t.Errorf("err %v, want the very failure the fallback returned: %v", err, given)
		}
		checkStop(t, err, backoff.ErrExhausted, io.EOF)
	})
	t.Run("FallbackErr with a result", func(t *testing.T) {
		p := policy.New(policy.FallbackErr(func(context.Context, error) error { return nil }), policy.Retry(backoff.WithMaxTries(1)))
		v, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { return 9, io.EOF })
		if v != 0 || err != nil {
			t.Errorf("(%d, %v), want the zero value and nil", v, err)
		}
		s, err := policy.Do(context.Background(), p, func(context.Context) (string, error) { return "partial", io.EOF })
		if s != "" || err != nil {
			t.Errorf("(%q, %v), want the zero value and nil: FallbackErr serves any result type", s, err)
		}
	})
	t.Run("the fallback's result type", func(t *testing.T) {
		p := policy.New(policy.Fallback(func(context.Context, error) (int, error) { return -1, nil }))
		calls := 0
		err := p.DoErr(context.Background(), func(context.Context) error { calls++; return io.EOF })
		if re := asError(t, err); !errors.Is(re.Cause, backoff.ErrInvalidConfiguration) || calls != 0 {
			t.Errorf("DoErr through a Fallback[int]: %v after %d calls, want ErrInvalidConfiguration before any", err, calls)
		}
		if v, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { return 0, io.EOF }); v != -1 || err != nil {
			t.Errorf("Do[int] through a Fallback[int]: (%d, %v), want (-1, nil)", v, err)
		}
	})
	t.Run("inside the retry stage", func(t *testing.T) {
		// A fallback inside the retry stage replaces each attempt's failure.
		fallbacks := 0
		p := policy.New(policy.Retry(zero()), policy.Fallback(func(context.Context, error) (int, error) {
			if fallbacks++; fallbacks < 2 {
				return 0, io.ErrUnexpectedEOF
			}
			return 5, nil
		}))
		calls := 0
		v, err := policy.Do(context.Background(), p, func(context.Context) (int, error) { calls++; return 0, io.EOF })
		if v != 5 || err != nil || calls != 2 || fallbacks != 2 {
			t.Errorf("(%d, %v) after %d calls and %d fallbacks, want (5, nil) after 2 and 2", v, err, calls, fallbacks)
		}
	})
}
