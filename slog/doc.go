// Package slogbackoff logs the retries of package backoff through a
// *slog.Logger: a warning for each failed attempt that will be retried, and
// an error when the driver gives up. It is the structured logging of
// stamina (which logs through structlog) for Go's log/slog: a package of
// the core's module, which it adds no dependency to.
//
//	logs := slogbackoff.New(logger)
//	...
//	user, err := backoff.Do(ctx, loadUser,
//		backoff.WithInstrumenter(logs.Named("load-user")))
//
// New returns an [Instrumenter], for an unnamed operation;
// [Instrumenter.Named] returns the Instrumenter of a named one, whose
// records carry its name. Give either to any number of retries with
// backoff.WithInstrumenter: they are safe for concurrent use.
//
// # Records
//
// A failed attempt that will be retried is logged at slog.LevelWarn, with
// the message "retrying" ([RetryMessage]) and the attributes
//
//	retry.name     string    the operation's name; absent for an unnamed operation
//	retry.attempt  int       the attempt's number, from 1
//	retry.delay    duration  the wait before the next attempt
//	error.message  string    the attempt's error, its Error()
//
// When the driver gives up after a failure (whatever the cause: the limits,
// a permanent error, a guard's refusal, the context), the give-up is logged
// at slog.LevelError, with the message "giving up" ([GiveUpMessage]) and
// the attributes
//
//	retry.name     string    the operation's name; absent for an unnamed operation
//	retry.attempt  int       the last attempt's number
//	retry.elapsed  duration  the time since the run's clock started (backoff.Error.Elapsed)
//	retry.cause    string    why the driver gave up, as a short name (below)
//	error.message  string    the last attempt's error
//
// The keys are the constants [NameKey], [AttemptKey], [DelayKey],
// [ElapsedKey], [CauseKey] and [ErrorKey]. A run that gives up is logged
// exactly once at the error level; a successful attempt is not logged,
// and neither is a run that succeeds at once. An attempt that Do does not
// start because its context is done is the give-up of its run, with its
// number, as the core reports it.
//
// retry.cause names the cause as the otel and prometheus modules of this
// repository do, so that logs, traces and metrics can be matched:
// "invalid_configuration", "permanent", "exhausted", "max_elapsed_time",
// "retries_canceled", then the cause a guard's error names (its
// RetryCause method): "circuit_open", "bulkhead_full", "budget_exhausted",
// "throttled", "limit_exceeded", then "canceled" and "deadline_exceeded",
// in that order; "refused" for the refusal of a guard of your own whose
// error names no cause; the Go type of any other cause (a context's
// custom cause), such as "*errors.errorString".
//
// # Context
//
// Each record is logged with the context of its attempt, by
// slog.Logger.LogAttrs: the context the operation received, as every
// Instrumenter of the retry derived it (such as with the span of the
// attempt that the otel module began), in whichever order they were given.
// A slog.Handler that reads the context (a trace ID, a request ID) adds it
// to the record.
//
// # Cost
//
// When the logger's handler is not enabled for a record's level, nothing
// is built and nothing allocated: the Instrumenter asks the handler first.
// A call of Named for a name seen before allocates nothing either.
package slogbackoff
