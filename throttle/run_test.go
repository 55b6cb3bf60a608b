package throttle

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
)

// TestRun checks Run on its own.
func TestRun(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Run(t.Context(), func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 1 {
			t.Fatalf("Stats = %+v", s)
		}
	})
	t.Run("failure", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Run(t.Context(), func(context.Context) error { return errOverloaded }); err != errOverloaded {
			t.Fatalf("err = %v", err)
		}
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v", s)
		}
	})
	t.Run("rejected", func(t *testing.T) {
		th, _ := newThrottle(t, WithRandom(func() float64 { return 0 }))
		load(t, th, 1, 0)
		ran := false
		err := th.Run(t.Context(), func(context.Context) error { ran = true; return nil })
		if !errors.Is(err, ErrThrottled) || !errors.Is(err, backoff.ErrRefused) || ran {
			t.Fatalf("err = %v, ran = %v; want a refusal matching ErrThrottled, not run", err, ran)
		}
	})
	t.Run("abandoned", func(t *testing.T) {
		th, _ := newThrottle(t)
		ctx, cancel := context.WithCancel(t.Context())
		_ = th.Run(ctx, func(context.Context) error { cancel(); return errOverloaded })
		if s := th.Stats(); s.Requests != 0 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v, want the abandoned call taken back", s)
		}
	})
	t.Run("panic", func(t *testing.T) {
		th, _ := newThrottle(t)
		func() {
			defer func() {
				if r := recover(); r != "boom" {
					t.Fatalf("recovered %v, want fn's panic", r)
				}
			}()
			_ = th.Run(t.Context(), func(context.Context) error { panic("boom") })
		}()
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v, want a request not accepted", s)
		}
	})
	t.Run("nil", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Run(t.Context(), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("Run(nil fn) = %v", err)
		}
		//lint:ignore SA1012 checking that a nil context is reported
		if err := th.Run(nil, func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("Run(nil ctx) = %v", err)
		}
	})
}
