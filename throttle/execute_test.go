package throttle

import (
	"context"
	"errors"
	"testing"

	"github.com/herdsafe/backoff"
)

// TestExecute checks Execute on its own.
func TestExecute(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Execute(t.Context(), func(context.Context) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 1 {
			t.Fatalf("Stats = %+v", s)
		}
	})
	t.Run("failure", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Execute(t.Context(), func(context.Context) error { return errOverloaded }); err != errOverloaded {
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
		if err := th.Execute(t.Context(), func(context.Context) error { ran = true; return nil }); err != ErrThrottled || ran {
			t.Fatalf("err = %v, ran = %v; want ErrThrottled, not run", err, ran)
		}
	})
	t.Run("abandoned", func(t *testing.T) {
		th, _ := newThrottle(t)
		ctx, cancel := context.WithCancel(t.Context())
		_ = th.Execute(ctx, func(context.Context) error { cancel(); return errOverloaded })
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
			_ = th.Execute(t.Context(), func(context.Context) error { panic("boom") })
		}()
		if s := th.Stats(); s.Requests != 1 || s.Accepts != 0 {
			t.Fatalf("Stats = %+v, want a request not accepted", s)
		}
	})
	t.Run("nil", func(t *testing.T) {
		th, _ := newThrottle(t)
		if err := th.Execute(t.Context(), nil); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("Execute(nil fn) = %v", err)
		}
		//lint:ignore SA1012 checking that a nil context is reported
		if err := th.Execute(nil, func(context.Context) error { return nil }); !errors.Is(err, backoff.ErrInvalidConfiguration) {
			t.Fatalf("Execute(nil ctx) = %v", err)
		}
	})
}
