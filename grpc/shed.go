package grpcbackoff

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
	"github.com/herdsafe/backoff/throttle"
)

// wait returns the pushback of a call the guard refused with refusal: the
// wait the guard's state asks for (see UnaryServerInterceptor), jittered
// and capped.
func (s *shedder) wait(refusal error) time.Duration {
	d := s.pushback
	var open *breaker.OpenError
	if errors.As(refusal, &open) && open.Duration > 0 {
		d = open.Duration
	} else {
		d = scale(d, load(s.g))
	}
	if d >= s.maxPushback {
		return s.maxPushback
	}
	d += time.Duration(s.random(int64(d)))
	return min(d, s.maxPushback)
}

// load returns how many times the base wait the state of g asks for: 1
// for a guard that tells nothing more.
func load(g any) float64 {
	switch g := g.(type) {
	case *bulkhead.Bulkhead:
		st := g.Stats()
		if st.Capacity > 0 {
			return max(1, float64(st.InFlight+st.Queued)/float64(st.Capacity))
		}
	case *throttle.Throttle:
		if p := g.Stats().Probability; p > 0 {
			if p >= 1 {
				return maxLoad
			}
			return min(maxLoad, 1/(1-p))
		}
	}
	return 1
}

// maxLoad bounds a load, which the maximum pushback bounds anyway, so that
// scaling cannot overflow.
const maxLoad = 1e6

// scale returns d × f, saturated at the largest Duration.
func scale(d time.Duration, f float64) time.Duration {
	v := float64(d) * f
	if v >= float64(1<<63-1) {
		return 1<<63 - 1
	}
	return time.Duration(v)
}

// randomN draws uniformly from [0, n), for n > 0.
func randomN(n int64) int64 {
	if n <= 0 {
		return 0
	}
	return rand.Int64N(n)
}
