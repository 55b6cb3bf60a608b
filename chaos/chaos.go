package chaos

import (
	"context"
	"math/rand/v2"
	"sync/atomic"

	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/setting"
)

// Injector is a [guard.Guard] that injects the faults its [Config]
// describes into the calls it is asked to admit. Make one with [New]; put
// it in a policy with policy.Guard, or call [Injector.Run] around work of
// your own.
//
// An Injector is safe for concurrent use. It keeps no state between calls
// but its counters, which are atomic: a call that is not injected takes no
// lock and allocates nothing.
type Injector struct {
	cfg   Config // validated, with the defaults filled in
	err   error  // why cfg cannot be used
	made  bool   // made by New
	calls atomic.Uint64
	errs  atomic.Uint64
	slow  atomic.Uint64
}

var (
	_ guard.Guard     = (*Injector)(nil)
	_ guard.Validator = (*Injector)(nil)
)

// Stats are an [Injector]'s counts since it was made.
type Stats struct {
	// Calls is how many calls the Injector was asked to admit, by Allow
	// or Run, those it refused for an invalid Config included.
	Calls uint64
	// InjectedErrors is how many calls failed with the InjectedError.
	InjectedErrors uint64
	// InjectedDelays is how many calls were delayed, those whose delay
	// their context cut short included.
	InjectedDelays uint64
}

// New returns an Injector for cfg. A cfg that [Config.Validate] rejects is
// kept, not fixed: [Injector.Validate] reports it, policy.Guard fails the
// Policy with it, and every Allow refuses with it.
func New(cfg Config) *Injector {
	in := &Injector{cfg: cfg, err: cfg.Validate(), made: true}
	if in.cfg.Clock == nil {
		in.cfg.Clock = setting.RealClock
	}
	if in.cfg.Rand == nil {
		in.cfg.Rand = rand.Float64
	}
	return in
}

// Validate reports why the Injector's Config cannot be used, as
// [Config.Validate] does, or that New did not make the Injector (a zero
// or nil Injector), or nil. It makes the Injector a [guard.Validator]:
// policy.Guard calls it.
func (in *Injector) Validate() error {
	if in == nil || !in.made {
		return errNotMade
	}
	return in.err
}

// Stats returns the Injector's counts. Each is read atomically, but the
// three are not read at one instant.
func (in *Injector) Stats() Stats {
	return Stats{Calls: in.calls.Load(), InjectedErrors: in.errs.Load(), InjectedDelays: in.slow.Load()}
}

// Allow injects the faults of one call, as the package documentation
// describes: it may wait, and then admits the call or fails it with
// [guard.Failure] of the InjectedError. An injected wait that ctx cuts
// short fails the call with [guard.Failure] of context.Cause(ctx). An
// Injector whose Config is invalid, or that New did not make, refuses
// every call with the error [Injector.Validate] reports; a nil ctx is
// refused with an error matching [backoff.ErrInvalidConfiguration].
//
// Rand is called on the calling goroutine, with no lock held; if it
// panics, the panic goes on to the caller, and the call was not admitted.
func (in *Injector) Allow(ctx context.Context, _ guard.Call) (guard.Permit, error) {
	if ctx == nil {
		return guard.Permit{}, errNilContext
	}
	if err := in.Validate(); err != nil {
		in.calls.Add(1)
		return guard.Permit{}, err
	}
	if err := in.inject(ctx); err != nil {
		return guard.Permit{}, guard.Failure(err)
	}
	return guard.Permit{}, nil
}

// Record does nothing: an Injector does not learn from outcomes.
func (in *Injector) Record(guard.Permit, guard.Outcome) {}

// Run calls fn under the Injector: it is [guard.Run] with
// guard.Call{Attempt: 1}. It injects what Allow would, and calls fn with
// ctx only if no error was injected. It returns the InjectedError itself
// (not marked with [guard.Failure]), the context's cause if an injected
// wait was cut short, or what fn returned; an Injector whose Config is
// invalid, or that New did not make, refuses the call with an error that
// matches [backoff.ErrRefused] and wraps the error [Injector.Validate]
// reports. A nil ctx or fn is reported as an error matching
// [backoff.ErrInvalidConfiguration]. A panic in fn goes on to the caller.
// A ctx already done is refused before the Injector is asked, as
// guard.Run refuses one (see package guard): nothing is injected or
// counted.
func (in *Injector) Run(ctx context.Context, fn func(context.Context) error) error {
	return guard.Run(ctx, in, guard.Call{Attempt: 1}, fn)
}

// inject counts a call and injects its faults: it returns the error the
// call fails with, or nil to admit it. It draws at most two numbers, one
// for the delay and then one for the error, and draws none for a
// probability of 0 or 1.
func (in *Injector) inject(ctx context.Context) error {
	in.calls.Add(1)
	if in.hit(in.cfg.LatencyProbability) {
		in.slow.Add(1)
		if err := in.delay(ctx); err != nil {
			return err
		}
	}
	if in.hit(in.cfg.ErrorProbability) {
		in.errs.Add(1)
		return in.cfg.InjectedError
	}
	return nil
}

// hit reports whether a fault of probability p is injected.
func (in *Injector) hit(p float64) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return in.cfg.Rand() < p
}
