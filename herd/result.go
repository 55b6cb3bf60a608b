package herd

import "time"

// Result is what one simulation measured.
type Result struct {
	// Err is non-nil when the simulation could not run or could not go on:
	// an invalid Config (matching ErrInvalidConfig), a BackOff or a guard
	// that fails its own Validate, a nil guard, or a BackOff that returned
	// a negative wait other than backoff.Stop (all matching
	// ErrInvalidBackOff), or, from
	// SimulateContext, a context that was done (its cause). The other
	// fields then hold what was measured up to that point.
	Err error

	// Scenario and Clients repeat the Config.
	Scenario Scenario
	Clients  int

	// Calls is the total work: the calls that reached the server, summed
	// over the fleet.
	Calls int
	// Succeeded counts the clients that got what they wanted. It, GaveUp
	// and Completion describe the clients of OCC, Restart, Shed and
	// Pushback, each of which wants one success; they are 0 in Outage, whose clients make
	// user calls to the end (see the field Outage).
	Succeeded int
	// GaveUp counts the clients that stopped without it: they reached
	// Config.MaxCalls, or their BackOff returned backoff.Stop. The clients
	// that neither succeeded nor gave up were still retrying at the
	// horizon.
	GaveUp int
	// Completion is when the last client to succeed did so: when every
	// client succeeded, the time until all of them had. The clients that
	// gave up are not in it; read it together with GaveUp (0 when no
	// client succeeded). If some clients were still retrying at the
	// horizon, Completion is Config.Horizon: a lower bound of the time
	// until all would have succeeded.
	Completion time.Duration

	// Window is the width of the windows Load counts calls in.
	Window time.Duration
	// Load is the timeline: Load[i] is the number of calls that reached
	// the server in [i×Window, (i+1)×Window). In Outage, it counts the
	// calls the fleet sent in each window, so that the base load, evenly
	// spaced, is the same in every window and each departure from it is
	// the strategy's doing; a call reaches the server one network delay
	// after it is counted.
	Load []int
	// PeakLoad is the largest entry of Load: the most calls that reached
	// the server in one window. Every client's first call goes out at time
	// 0, but the network delays spread that first wave over several
	// windows, so PeakLoad can be smaller than Clients.
	PeakLoad int
	// ClientCalls[i] is the number of calls client i made.
	ClientCalls []int

	// Outage is what the Outage scenario measured; it is zero for the
	// others.
	Outage OutageResult
	// Overload is what the Overload scenario measured; it is zero for
	// the others.
	Overload OverloadResult
}

// Unfinished reports how many clients of OCC, Restart, Shed or Pushback
// were still retrying when the simulation stopped at its horizon. It is 0 in Outage,
// where a user call cut short by the horizon counts as failed, and in
// Overload, whose clients make calls to the end.
func (r Result) Unfinished() int {
	if r.Scenario == Outage || r.Scenario == Overload {
		return 0
	}
	return r.Clients - r.Succeeded - r.GaveUp
}
