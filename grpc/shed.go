package grpcbackoff

import (
	"math"
	"time"

	"github.com/herdsafe/backoff/pushback"
)

// maxTrailer is the longest wait a grpc-retry-pushback-ms trailer holds:
// the largest signed 32-bit number of milliseconds.
const maxTrailer = math.MaxInt32 * time.Millisecond

// newRule returns the pushback rule of the shedder's settings, in the
// trailer's whole milliseconds: a base or a maximum beyond what the
// trailer holds is taken as its largest value.
func (s *shedder) newRule() pushback.Rule {
	return pushback.Rule{Base: min(s.base, maxTrailer), Max: min(s.max, maxTrailer), Unit: time.Millisecond, Random: s.random}
}

// wait returns the pushback of a call the guard refused with refusal: the
// wait of package pushback's Rule (see UnaryServerInterceptor).
func (s *shedder) wait(refusal error) time.Duration {
	return s.rule.Wait(s.g, refusal)
}
