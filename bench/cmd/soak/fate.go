package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// mix is the server's misbehaviour: what fraction of the requests meet
// each fault. It is seeded: the n-th request the server receives meets the
// same fate in every run with the same seed and mix, whatever the timing,
// and the outages come at the same times after the server starts. (An
// outage is timed, not counted in requests, so that callers who back off,
// or a breaker that stops them, do not make it last longer.)
type mix struct {
	seed          uint64
	unavailable   float64       // 503 without Retry-After
	retryAfter    float64       // 503 with Retry-After
	retryAfterMax int           // seconds
	reset         float64       // the connection is reset
	slow          float64       // of the answered requests, the body is trickled
	slowMax       time.Duration // a trickled body's longest time
	slowChunks    int
	outage        float64       // the fraction of slots of time that are outages
	outageSlot    time.Duration // the length of a slot
	body          int           // bytes in a body
}

// validate reports the first setting of m the server cannot use.
func (m *mix) validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    float64
	}{{"-p503", m.unavailable}, {"-pretry-after", m.retryAfter}, {"-preset", m.reset}, {"-pslow", m.slow}, {"-outage", m.outage}} {
		if !isFraction(f.v) {
			errs = append(errs, fmt.Errorf("%s %v: want a fraction in [0, 1]", f.name, f.v))
		}
	}
	if s := m.unavailable + m.retryAfter + m.reset; s > 1 {
		errs = append(errs, fmt.Errorf("-p503 + -pretry-after + -preset is %v: the fractions of one request's fates add up to more than 1", s))
	}
	if m.retryAfterMax < 0 {
		errs = append(errs, fmt.Errorf("-retry-after-max %d: want 0 or more seconds", m.retryAfterMax))
	}
	if m.slowMax < 0 {
		errs = append(errs, fmt.Errorf("-slow-max %v: want a duration that is not negative", m.slowMax))
	}
	if m.slowChunks < 1 {
		errs = append(errs, fmt.Errorf("-slow-chunks %d: want at least 1", m.slowChunks))
	}
	if m.outageSlot <= 0 {
		errs = append(errs, fmt.Errorf("-outage-slot %v: want a positive duration", m.outageSlot))
	}
	if m.body < 0 {
		errs = append(errs, fmt.Errorf("-body %d: want 0 or more bytes", m.body))
	}
	return errors.Join(errs...)
}

// kind is what the server does with a request.
type kind uint8

const (
	answerOK          kind = iota // 200
	answerUnavailable             // 503, no Retry-After
	answerRetryAfter              // 503 with Retry-After
	answerReset                   // hijack the connection and reset it
	answerOutage                  // 503, no Retry-After, during an outage
	numKinds
)

var kindNames = [numKinds]string{"200", "503", "503+Retry-After", "reset", "503 (outage)"}

func (k kind) String() string { return kindNames[k] }

// fate is what happens to one request.
type fate struct {
	kind       kind
	retryAfter int           // seconds, for answerRetryAfter
	slow       time.Duration // > 0: the body is trickled over this long
}

// outageSalt sets the stream of the outages apart from the streams of the
// requests.
const outageSalt = 0x9e3779b97f4a7c15

// fate returns the fate of the n-th request (from 0) the server
// receives, at since after the server started.
func (m *mix) fate(n uint64, since time.Duration) fate {
	var f fate
	if m.inOutage(since) {
		f.kind = answerOutage
	} else {
		r := rand.New(rand.NewPCG(m.seed, n))
		switch u := r.Float64(); {
		case u < m.reset:
			return fate{kind: answerReset}
		case u < m.reset+m.unavailable:
			f.kind = answerUnavailable
		case u < m.reset+m.unavailable+m.retryAfter:
			f.kind = answerRetryAfter
			f.retryAfter = r.IntN(m.retryAfterMax + 1)
		}
		if m.slowMax > 0 && r.Float64() < m.slow {
			f.slow = time.Duration(r.Int64N(int64(m.slowMax))) + 1
		}
	}
	return f
}

// inOutage reports whether the server is in an outage at since after it
// started: whether the slot of time since falls in is one.
func (m *mix) inOutage(since time.Duration) bool {
	if m.outage <= 0 || since < 0 {
		return false
	}
	slot := uint64(since / m.outageSlot)
	return rand.New(rand.NewPCG(m.seed^outageSalt, slot)).Float64() < m.outage
}
