package backoff

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Under WithAttemptState the operation reads its attempt's State from its
// context: the number, the budget, the previous error and the wait before
// it.
func TestAttemptState(t *testing.T) {
	clk := newSpecClock()
	var seen []State
	fn := func(ctx context.Context) (int, error) {
		s, ok := AttemptFrom(ctx)
		if !ok {
			t.Fatal("no State in the attempt's context")
		}
		seen = append(seen, s)
		if s.Attempt < 3 {
			return 0, attemptErr(s.Attempt)
		}
		return s.Attempt, nil
	}
	check := func(name string) {
		t.Helper()
		if len(seen) != 3 {
			t.Fatalf("%s: %d attempts, want 3", name, len(seen))
		}
		for i, s := range seen {
			var wantErr error
			var wantDelay time.Duration
			if i > 0 {
				wantErr, wantDelay = attemptErr(i), time.Second<<(i-1)
			}
			if s.Attempt != i+1 || s.MaxTries != 5 || !errors.Is(s.LastErr, wantErr) || (wantErr == nil) != (s.LastErr == nil) || s.LastDelay != wantDelay || s.Err != nil {
				t.Errorf("%s: attempt %d saw %+v, want Attempt %d, MaxTries 5, LastErr %v, LastDelay %v", name, i+1, s, i+1, wantErr, wantDelay)
			}
		}
		seen = nil
	}
	opts := []RetryOption{WithClock(clk), WithMaxTries(5), WithBackOff(specExp(time.Second, time.Minute)), WithAttemptState()}
	specDrive(t, clk, nil, func() { _, _ = Do(context.Background(), fn, opts...) })
	check("Do")
	specDrive(t, clk, nil, func() { _, _ = Execute(context.Background(), NewPolicy(WithRetry(opts...)), fn) })
	check("Execute")

	// Without the option the context carries none.
	_, _ = Do(context.Background(), func(ctx context.Context) (int, error) {
		if _, ok := AttemptFrom(ctx); ok {
			t.Error("a State without WithAttemptState")
		}
		return 0, nil
	})
	// The seed-003 entry points, whose operation has no context, report the
	// option.
	if _, err := Retry(succeed, WithAttemptState()); !errors.Is(err, ErrInvalidConfiguration) {
		t.Errorf("Retry with WithAttemptState: %v, want ErrInvalidConfiguration", err)
	}
	// The state context keeps the parent's values and cancellation.
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), specKey{}, "v"))
	_ = DoErr(ctx, func(actx context.Context) error {
		if actx.Value(specKey{}) != "v" {
			t.Error("the attempt's context lost the parent's value")
		}
		cancel()
		if !errors.Is(actx.Err(), context.Canceled) {
			t.Errorf("the attempt's context after the parent's cancel: %v, want context.Canceled", actx.Err())
		}
		return nil
	}, WithAttemptState())
}
