package herd

import (
	"strconv"
	"time"
)

// Phase is one of the states the dependency of the Outage scenario goes
// through; see Phases.
type Phase int

// The phases, in the order they come.
const (
	PhaseWarmup   Phase = iota // healthy, before the outage
	PhaseDown                  // every call fails
	PhaseDegraded              // a fraction of the calls fail
	PhaseHealthy               // healthy again
	NumPhases     = 4          // how many phases there are
)

// String returns the phase's name: warmup, down, degraded or healthy.
func (p Phase) String() string {
	switch p {
	case PhaseWarmup:
		return "warmup"
	case PhaseDown:
		return "down"
	case PhaseDegraded:
		return "degraded"
	case PhaseHealthy:
		return "healthy"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// RecoveryBand is the factor within which the load of every span of
// RecoveryHold must stay, either way, for the fleet to count as back to
// normal: from Base/RecoveryBand to RecoveryBand×Base per window, summed
// over the span. SuccessTarget is the share of the user calls started in
// every span of RecoveryHold that must succeed for the fleet's calls to
// count as succeeding again. See OutageResult.Recovery and
// OutageResult.SuccessRecovery.
const (
	RecoveryBand  = 1.1
	RecoveryHold  = time.Second
	SuccessTarget = 0.99
)

// OutageResult is what the Outage scenario measured, beyond the calls and
// the load timeline of its Result.
//
// A user call is one logical request of a client: its first attempt and
// the retries its retry loop makes. It succeeds when an attempt does; it
// fails when its last try fails, when a guard refuses one of its
// attempts (a refusal ends the retry loop, as in a Policy), or when the
// horizon cuts it short.
type OutageResult struct {
	// Base is the base load: the user calls the fleet starts per window,
	// Clients × Rate × Window. Load[i] / Base is the amplification of
	// window i: 1 when the fleet sends its user calls' first attempts and
	// nothing else, 3 when each of them is tried three times.
	Base float64
	// Phases holds the counts of each phase, indexed by Phase.
	Phases [NumPhases]PhaseCounts
	// Recovery is how long after the healthy phase began the fleet was
	// back to normal: the time from the start of the healthy phase to the
	// start of the first span of RecoveryHold (1 s) from which on every
	// such span, moved one window at a time to the end of the phases, had
	// a load within a factor RecoveryBand of the base load of a span
	// (from Base/1.1 to 1.1×Base per window). Only the windows wholly
	// inside the healthy phase are judged, by the time the calls were
	// sent. Retries keep the load above the band; a guard that still
	// refuses calls, such as a breaker still open, keeps it below: either
	// way the fleet is not back to normal. It is 0 when the healthy phase
	// was normal from its first span. A span of a second, rather than a
	// window, is what makes the measure fit random arrivals: with Poisson
	// arrivals the load of one window varies by the square root of Base
	// (±4.5 calls of 20), that of a second's spans by 2%. A fleet whose
	// base load is below about 1,000 calls a second varies by more than
	// 3% a second, and may not count as back to normal however healthy.
	Recovery time.Duration
	// Recovered is false when the last span of the healthy phase was not
	// back to normal; Recovery is then the healthy phase's length, a
	// lower bound.
	Recovered bool
	// SuccessRecovery is how long after the healthy phase began the fleet's
	// user calls succeeded again: the time from the start of the healthy
	// phase to the start of the first span of RecoveryHold from which on
	// the user calls started in every such span, moved one window at a
	// time to the end of the phases, succeeded at SuccessTarget (99%) or
	// more. It is what a user of the fleet sees: retries that keep the
	// load high do not delay it, a guard that keeps refusing calls does.
	SuccessRecovery time.Duration
	// SuccessRecovered is false when the user calls of the last span of
	// the healthy phase did not succeed at SuccessTarget; SuccessRecovery
	// is then the healthy phase's length, a lower bound.
	SuccessRecovered bool
}

// PhaseCounts are the counts of one phase of the Outage scenario.
type PhaseCounts struct {
	// UserCalls counts the user calls started in the phase.
	UserCalls int
	// UserFailed counts those of them that failed, wherever their
	// retries took them.
	UserFailed int
	// Refused counts the failed user calls that a guard refused.
	Refused int
	// Calls counts the calls the fleet sent in the phase, those of user
	// calls started in an earlier phase included.
	Calls int
	// Peak is the most calls the fleet sent in one window wholly inside
	// the phase; Peak / OutageResult.Base is the phase's largest
	// amplification over a window, which the mean, Amplification, may
	// hide: a budget that is spent in bursts has peaks well above it.
	Peak int
}

// FailedShare returns the share of the phase's user calls that failed,
// UserFailed / UserCalls, or 0 when the phase has no user call.
func (c PhaseCounts) FailedShare() float64 {
	if c.UserCalls == 0 {
		return 0
	}
	return float64(c.UserFailed) / float64(c.UserCalls)
}

// Amplification returns the load the fleet sent in the phase relative
// to its base load: Calls / UserCalls, or 0 when the phase has no user
// call.
func (c PhaseCounts) Amplification() float64 {
	if c.UserCalls == 0 {
		return 0
	}
	return float64(c.Calls) / float64(c.UserCalls)
}

// Total returns the counts of the whole run, every phase summed, and
// the largest of their peaks.
func (o OutageResult) Total() PhaseCounts {
	var t PhaseCounts
	for _, c := range o.Phases {
		t.UserCalls += c.UserCalls
		t.UserFailed += c.UserFailed
		t.Refused += c.Refused
		t.Calls += c.Calls
		t.Peak = max(t.Peak, c.Peak)
	}
	return t
}
