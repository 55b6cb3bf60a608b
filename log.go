package backoff

import (
	"context"
	"log/slog"
)

// Attribute keys of the records WithLogger writes.
const (
	LogKeyName    = "retry.name"
	LogKeyAttempt = "retry.attempt"
	LogKeyDelay   = "retry.delay"
	LogKeyElapsed = "retry.elapsed"
	LogKeyCause   = "retry.cause"
	LogKeyError   = "error"
)

// WithLogger logs through l: a warning ("retrying") for each failed attempt
// that will be retried, with the attributes retry.name, retry.attempt,
// retry.delay and error; and an error ("giving up") when the driver stops
// after a failure, with retry.name, retry.attempt, retry.elapsed,
// retry.cause and error. It uses the context-aware slog calls, so a handler
// can add the trace from the attempt's context. Nothing is logged on
// success. A nil l logs nothing.
func WithLogger(l *slog.Logger) RetryOption {
	return func(o *retryOptions) { o.logger = l }
}

// logRetry writes the warning for a failed attempt that will be retried.
// It is not inlined, so that its record does not enlarge the driver's
// frame, which a goroutine parked in a wait keeps.
//
//go:noinline
func (o *retryOptions) logRetry(ctx context.Context, s *State) {
	if o.logger == nil || !o.logger.Enabled(ctx, slog.LevelWarn) {
		return
	}
	o.logger.LogAttrs(ctx, slog.LevelWarn, "retrying",
		slog.String(LogKeyName, s.Name),
		slog.Int(LogKeyAttempt, s.Attempt),
		slog.Duration(LogKeyDelay, s.NextDelay),
		slog.Any(LogKeyError, s.Err))
}

// logGiveUp writes the error record for a run that failed.
//
//go:noinline
func (o *retryOptions) logGiveUp(ctx context.Context, s *State) {
	if o.logger == nil || !o.logger.Enabled(ctx, slog.LevelError) {
		return
	}
	o.logger.LogAttrs(ctx, slog.LevelError, "giving up",
		slog.String(LogKeyName, s.Name),
		slog.Int(LogKeyAttempt, s.Attempt),
		slog.Duration(LogKeyElapsed, s.Elapsed),
		slog.Any(LogKeyCause, s.Cause),
		slog.Any(LogKeyError, s.Err))
}
