// Package bench measures github.com/herdsafe/backoff beside the Go retry
// libraries in common use, each configured the way its own documentation
// recommends, with exponential backoff and at most 5 attempts; and its
// guards (a circuit breaker, a bulkhead) and a composed policy beside
// their counterparts in sony/gobreaker and failsafe-go.
//
// The package holds only benchmarks and the tests that check every library
// is configured alike; it lives in a module of its own, so that none of the
// libraries compared becomes a dependency of backoff. See README.md for the
// scenarios, the latest results and how to rerun them with run.sh.
package bench
