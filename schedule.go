package backoff

import (
	"sync"
	"time"
)

// schedule is the per-run state of a BackOff, kept as the rule of BackOff
// says: a run works on a copy of a BackOff that has a Clone method, and on
// any other BackOff itself. An *ExponentialBackOff is copied into a pooled
// state rather than cloned, which is the same copy without an allocation.
// Nothing is copied until the first retry needs a wait, and the copy lives
// off the caller's stack, so a goroutine parked in a wait keeps a small
// stack.
//
// Its methods take the BackOff the run was given, nil for the default.
type schedule struct {
	state *scheduleState // nil until the first retry
}

// scheduleState is the part of a schedule that only a retry needs.
type scheduleState struct {
	own BackOff            // the BackOff the run calls, if not nil
	exp ExponentialBackOff // the copy, when own is nil
}

var scheduleStates = sync.Pool{New: func() any { return new(scheduleState) }}

// direct returns b if a run uses b itself rather than a copy, else nil.
// Such a BackOff is Reset before the first attempt, as the BackOff
// contract says; a copy is Reset when it is made.
func direct(b BackOff) BackOff {
	switch b.(type) {
	case nil, *ExponentialBackOff, cloner:
		return nil
	}
	return b
}

// release gives the state back for another run.
func (s *schedule) release() {
	if s.state != nil {
		*s.state = scheduleState{}
		scheduleStates.Put(s.state)
		s.state = nil
	}
}

// prepare makes the state on first use.
func (s *schedule) prepare(given BackOff) *scheduleState {
	if s.state != nil {
		return s.state
	}
	st := scheduleStates.Get().(*scheduleState)
	switch b := given.(type) {
	case nil:
		st.exp = ExponentialBackOff{
			InitialInterval:     DefaultInitialInterval,
			RandomizationFactor: DefaultRandomizationFactor,
			Multiplier:          DefaultMultiplier,
			MaxInterval:         DefaultMaxInterval,
		}
		st.exp.Reset()
	case *ExponentialBackOff:
		st.exp = *b
		st.exp.Reset()
	case cloner:
		st.own = b.Clone()
		st.own.Reset()
	default:
		st.own = b
	}
	s.state = st
	return st
}

// next returns the BackOff's next wait.
func (s *schedule) next(given BackOff) time.Duration {
	st := s.prepare(given)
	if st.own != nil {
		return st.own.NextBackOff()
	}
	return st.exp.NextBackOff()
}

// reset restarts the BackOff's sequence.
func (s *schedule) reset(given BackOff) {
	st := s.prepare(given)
	if st.own != nil {
		st.own.Reset()
		return
	}
	st.exp.Reset()
}

// ownCopy returns the BackOff a Ticker runs on: a clone of b if b has a
// Clone method, else b itself.
func ownCopy(b BackOff) BackOff {
	if c, ok := b.(cloner); ok {
		return c.Clone()
	}
	return b
}
