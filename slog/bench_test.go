package slogbackoff_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/herdsafe/backoff"
	slogbackoff "github.com/herdsafe/backoff/slog"
)

// The cost of a retry's record: with a handler that drops it (Enabled
// false), and with one that writes it as text.
func BenchmarkRetryRecord(b *testing.B) {
	s := backoff.State{Attempt: backoff.Attempt{Number: 1}, Err: attemptErr(1), NextDelay: time.Second}
	for _, c := range []struct {
		name   string
		logger *slog.Logger
	}{
		{"disabled", slog.New(slog.DiscardHandler)},
		{"text", slog.New(slog.NewTextHandler(io.Discard, nil))},
	} {
		b.Run(c.name, func(b *testing.B) {
			fetch := slogbackoff.New(c.logger).Named("fetch")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				fetch.AfterAttempt(fetch.BeforeAttempt(ctx, s), s)
			}
		})
	}
}
