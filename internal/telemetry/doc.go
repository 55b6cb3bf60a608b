// Package telemetry holds what the otel module (otelbackoff) and the
// prometheus module (prombackoff) report alike, so that both say the same
// of a retry: which call of AfterAttempt ends an attempt and how
// (OutcomeOf), how operations, error types and causes are named (Name,
// Namer, ErrorType), the buckets of the wait histogram (WaitBuckets), and a
// map of the series of each operation name (Names).
//
// It imports the core and its guards only, never an observability
// library: it is part of the core's module, which must not require one.
// Being internal, it is importable by the modules of the repository only.
package telemetry
