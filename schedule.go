package backoff

import "time"

// schedule is the per-run state of a policy. The package's own
// *ExponentialBackOff is copied into it, so a policy given to WithBackOff
// is read, never written, and can be shared; any other BackOff is called
// directly. Nothing is copied until the first retry needs a wait.
type schedule struct {
	given  BackOff            // the policy from WithBackOff; nil for the default
	custom BackOff            // the policy called directly, once ready
	exp    ExponentialBackOff // the copy, when custom is nil and ready
	ready  bool
}

// start readies the schedule for a run: a policy of the caller's own is
// Reset before the first attempt, as the BackOff contract says.
func (s *schedule) start(b BackOff) {
	*s = schedule{given: b}
	switch b.(type) {
	case nil, *ExponentialBackOff:
	default:
		b.Reset()
	}
}

// prepare makes the copy on first use.
func (s *schedule) prepare() {
	if s.ready {
		return
	}
	s.ready = true
	switch b := s.given.(type) {
	case nil:
		s.exp = ExponentialBackOff{
			InitialInterval:     DefaultInitialInterval,
			RandomizationFactor: DefaultRandomizationFactor,
			Multiplier:          DefaultMultiplier,
			MaxInterval:         DefaultMaxInterval,
		}
		s.exp.Reset()
	case *ExponentialBackOff:
		s.exp = *b
		s.exp.Reset()
	default:
		s.custom = b
	}
}

// next returns the policy's next wait.
func (s *schedule) next() time.Duration {
	s.prepare()
	if s.custom != nil {
		return s.custom.NextBackOff()
	}
	return s.exp.NextBackOff()
}

// reset restarts the policy's sequence.
func (s *schedule) reset() {
	s.prepare()
	if s.custom != nil {
		s.custom.Reset()
		return
	}
	s.exp.Reset()
}
