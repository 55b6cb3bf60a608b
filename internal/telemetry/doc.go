// Package telemetry holds what the otel module (otelbackoff), the
// prometheus module (prombackoff) and package slog (slogbackoff) report
// alike, so that all say the same of a retry: which call of AfterAttempt
// ends an attempt and how (OutcomeOf), how error types and causes are
// named (Namer, ErrorType), the name of an unnamed operation (Unnamed), the
// buckets of the wait histogram (WaitBuckets), and a map of what is made
// once for each operation name (Names): the Instrumenter that each
// module's Named returns, with its series.
//
// It reads a guard's metrics through the guard's own Description
// (guard.Describer), never by its type, so that a guard added later is
// observed with no change here; and it names a guard's errors by the
// names they give themselves (their ErrorType and RetryCause methods),
// never by their package. It imports the core, the guard contract, package
// policy and package pushback only, no guard and no observability
// library: it is part of the core's module, which must not
// require one. Being internal, it is importable by the modules of the
// repository only.
package telemetry
