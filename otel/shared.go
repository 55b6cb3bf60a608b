package otelbackoff

import "github.com/herdsafe/backoff/internal/telemetry"

// SharedGuard is a guard whose state a fleet shares, and that decides on a
// local fallback while it cannot reach that state: the budget and the
// breaker of module github.com/herdsafe/backoff/redisguard are
// SharedGuards (this module does not import it). It is the SharedGuard of
// both telemetry modules, otelbackoff's and prombackoff's.
type SharedGuard = interface {
	// Fallback reports whether the guard decides on its local fallback
	// now, and how many times it has turned to the fallback and back
	// since it was made.
	Fallback() (local bool, fallbacks, recoveries uint64)
}

// ObserveShared reports whether g decides on its local fallback under
// name, read from g.Fallback when the metrics are collected: the
// backoff.shared_guard metrics (see Guards in the package documentation).
// g's own metrics (a breaker's state, a budget's refusals) are reported
// by Observe, of the guard's own kind: observe a shared guard with both.
//
// A nil g, typed or not, is a nil guard. g.Fallback is called on the
// collecting goroutine; if it panics, the panic goes on to the collector.
func (in *Instrumenter) ObserveShared(name string, g SharedGuard) (*Registration, error) {
	return in.observe(name, telemetry.Shared(g))
}
