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

// RecoveryBand is the factor within which the load of every window must
// stay, either way, for the fleet to count as back to normal: from
// Base/RecoveryBand to RecoveryBand×Base; and RecoveryHold is how long it
// must stay there, at least, before the end of the run. See
// OutageResult.Recovery.
const (
	RecoveryBand = 1.1
	RecoveryHold = time.Second
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
	// start of the first window from which on every window, to the end of
	// the phases, had a load within a factor RecoveryBand of Base (from
	// Base/1.1 to 1.1×Base), provided that this lasted RecoveryHold (1 s)
	// at least. Only the windows wholly inside the healthy phase are
	// judged, by the time the calls were sent. Retries keep the load above
	// the band; a guard that still refuses calls, such as a breaker still
	// open, keeps it below: either way the fleet is not back to normal.
	// It is 0 when the healthy phase was normal from its first window.
	// With a Base below about 10 the band is narrower than one call
	// either side, and the fleet may never count as back to normal.
	Recovery time.Duration
	// Recovered is false when the fleet was not back to normal for the
	// last RecoveryHold of the healthy phase; Recovery is then the healthy
	// phase's length, a lower bound.
	Recovered bool
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
