package backoff

import (
	"sync"
	"time"
)

// schedule is the per-run state of a policy. The package's own
// *ExponentialBackOff is copied into it, so a policy given to WithBackOff
// is read, never written, and can be shared; any other BackOff is called
// directly. Nothing is copied until the first retry needs a wait, and the
// copy lives off the caller's stack, so a goroutine parked in a wait keeps
// a small stack.
//
// Its methods take the policy from WithBackOff, nil for the default.
type schedule struct {
	state *policyState // nil until the first retry
}

// policyState is the part of a schedule that only a retry needs.
type policyState struct {
	custom BackOff            // the policy called directly, if not nil
	exp    ExponentialBackOff // the copy, when custom is nil
}

var policyStates = sync.Pool{New: func() any { return new(policyState) }}

// start readies the schedule for a run: a policy of the caller's own is
// Reset before the first attempt, as the BackOff contract says.
func (s *schedule) start(b BackOff) {
	if s.state != nil {
		s.release()
	}
	switch b.(type) {
	case nil, *ExponentialBackOff:
	default:
		b.Reset()
	}
}

// release gives the state back for another run.
func (s *schedule) release() {
	if s.state != nil {
		*s.state = policyState{}
		policyStates.Put(s.state)
		s.state = nil
	}
}

// prepare makes the state on first use.
func (s *schedule) prepare(given BackOff) *policyState {
	if s.state != nil {
		return s.state
	}
	st := policyStates.Get().(*policyState)
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
	default:
		st.custom = b
	}
	s.state = st
	return st
}

// next returns the policy's next wait.
func (s *schedule) next(given BackOff) time.Duration {
	st := s.prepare(given)
	if st.custom != nil {
		return st.custom.NextBackOff()
	}
	return st.exp.NextBackOff()
}

// reset restarts the policy's sequence.
func (s *schedule) reset(given BackOff) {
	st := s.prepare(given)
	if st.custom != nil {
		st.custom.Reset()
		return
	}
	st.exp.Reset()
}
