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

// log writes the record for a failed attempt: a warning when it will be
// retried, an error when the driver gives up. It is not inlined, so that
// its record does not enlarge the driver's frames, which a goroutine
// parked in a wait keeps.
//
//go:noinline
func (o *retryOptions) log(ctx context.Context, s *State) {
	level, msg := slog.LevelWarn, "retrying"
	if s.GivingUp {
		level, msg = slog.LevelError, "giving up"
	}
	if o.logger == nil || !o.logger.Enabled(ctx, level) {
		return
	}
	if !s.GivingUp {
		o.logger.LogAttrs(ctx, level, msg,
			slog.String(LogKeyName, s.Name),
			slog.Int(LogKeyAttempt, s.Attempt),
			slog.Duration(LogKeyDelay, s.NextDelay),
			slog.Any(LogKeyError, s.Err))
		return
	}
	o.logger.LogAttrs(ctx, level, msg,
		slog.String(LogKeyName, s.Name),
		slog.Int(LogKeyAttempt, s.Attempt),
		slog.Duration(LogKeyElapsed, s.Elapsed),
		slog.Any(LogKeyCause, s.Cause),
		slog.Any(LogKeyError, s.Err))
}
