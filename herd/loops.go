package herd

import "context"

// loops is the context of a simulation's retry loops, which they and
// their guards are given: done when the simulation ends, whichever way it
// ends, and only then, so that a loop still waiting ends with it. It
// carries the values of the simulation's context, but neither its
// deadline, which is real time where the loops live in virtual time, nor
// its cancellation: the simulation watches its context itself (see
// SimulateContext), and ends the loops when it stops.
//
// Its Err is a field, set when it ends: the loops, their policies and
// their guards ask for it several times an attempt, and they and the
// simulation run one at a time (see caller), so that nothing is gained by
// reading an atomic value instead.
type loops struct {
	context.Context // a context.WithCancel, behind context.WithoutCancel of the simulation's

	done   <-chan struct{}
	err    error
	cancel context.CancelFunc
}

// newLoops returns the loops' context of a simulation whose context is
// ctx.
func newLoops(ctx context.Context) *loops {
	inner, cancel := context.WithCancel(context.WithoutCancel(ctx))
	return &loops{Context: inner, done: inner.Done(), cancel: cancel}
}

// Done is closed when the simulation ends.
func (l *loops) Done() <-chan struct{} { return l.done }

// Err is nil until the simulation ends, context.Canceled after.
func (l *loops) Err() error { return l.err }

// end ends the loops' context, on the simulation's goroutine.
func (l *loops) end() {
	l.cancel()
	l.err = l.Context.Err()
}
