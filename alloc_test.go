package backoff

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
)

var errTransient = errors.New("transient")

func succeed() (int, error) { return 1, nil }

func isTransient(err error) bool { return errors.Is(err, errTransient) }

// The success path builds nothing that only a retry needs.
func TestSuccessPathAllocatesNothing(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	cases := []struct {
		name string
		run  func()
	}{
		{"Retry defaults", func() { _, _ = Retry(succeed) }},
		{"RetryCtx defaults", func() { _, _ = RetryCtx(ctx, succeed) }},
		{"RetryError defaults", func() { _ = RetryError(func() error { return nil }) }},
		{"Do defaults", func() { _, _ = Do(ctx, func(context.Context) (int, error) { return 1, nil }) }},
		{"classifier", func() { _, _ = Retry(succeed, WithRetryable(isTransient)) }},
		{"RetryIf", func() { _, _ = Retry(succeed, RetryIf(errTransient)) }},
		{"logger", func() { _, _ = Retry(succeed, WithLogger(logger)) }},
		{"limits", func() { _, _ = Retry(succeed, WithMaxTries(5), WithMaxElapsedTime(0)) }},
	}
	for _, c := range cases {
		if n := testing.AllocsPerRun(200, c.run); n != 0 {
			t.Errorf("%s: %v allocations per successful call, want 0", c.name, n)
		}
	}
}
