package herd

import (
	"slices"
	"time"
)

// OverloadResult is what the Overload scenario measured, beyond the calls
// sent and their load timeline in its Result.
//
// A call's latency is how long its client waited: from the moment its
// guards admitted it to its answer, or to the timeout for a call its
// client gave up on. Calls are counted in the stage in which their client
// learned how they ended (those that end after the last stage, in the last
// stage).
type OverloadResult struct {
	// Capacity is the calls a second the server serves with every worker
	// in service; a stage's capacity is Capacity × Stage.Capacity.
	Capacity float64
	// NoLoad is the latency of a call that meets no queue: a network
	// delay each way and a mean service time (Server.NoLoad). The
	// latencies' ratios (P50X, P99X) are relative to it.
	NoLoad time.Duration
	// NoLoadP99 is the 99th percentile of the latency of a call that
	// meets no queue (Server.NoLoadP99): with service times that have a
	// tail, the p99 an idle server gives, against which the P99 of a
	// stage tells the queue's share from the service's own.
	NoLoadP99 time.Duration
	// Stages holds the counts of each stage, in order.
	Stages []StageResult
	// Measured holds the counts of every stage after the first (the
	// warm-up) taken together: what the command reports.
	Measured StageResult

	// Succeeded[i] counts the calls answered in time whose answer reached
	// their client in window i of Result.Window; Limit[i] is the sum of
	// the fleet's limits at the end of window i: of its limiters'
	// current limits and its bulkheads' capacities (0 when no guard has
	// a limit).
	Succeeded, Limit []int
	// Bin is the width of the bins of P99, ten windows; P99[i] is the
	// 99th percentile of the latency of the calls that ended in bin i (0
	// when none did).
	Bin time.Duration
	P99 []time.Duration
	// Adaptive says that some guard of the fleet moves its limit (a
	// limiter.Limiter): only then is Settle measured.
	Adaptive bool
}

// StageResult are the counts of one stage of the Overload scenario, or of
// several taken together (OverloadResult.Measured).
type StageResult struct {
	// Stage is the stage, as configured; for Measured, its Name is
	// "measured", its Duration the stages' sum and its Load and Capacity
	// their means over time.
	Stage
	// Started counts the calls the fleet started in the stage; Refused,
	// those of them a guard refused. The others were sent.
	Started, Refused int
	// Succeeded counts the calls answered within the timeout, and
	// TimedOut those given up at it; ServerRefused, those the server's
	// Queue refused or dropped while their clients waited.
	Succeeded, TimedOut, ServerRefused int
	// Goodput is the calls answered in time per second, relative to the
	// stage's capacity: 1 when the server served nothing but calls whose
	// clients still wanted them, as fast as it can.
	Goodput float64
	// P50 and P99 are the median and the 99th percentile of the latency
	// of the calls sent that ended in the stage, answered or given up
	// (0 when none did).
	P50, P99 time.Duration
	// Settle is how long after the stage began the fleet's limit (the
	// timeline Limit) settled: from then to the end of the stage every
	// window's limit stayed within SettleBand of its mean over the
	// stage's second half. Settled is false when it never did for the
	// stage's last quarter at least (Settle is then the stage's length),
	// and for Measured and the first stage, which have no step to settle
	// after. Both are measured only for a fleet with an adaptive limit
	// (OverloadResult.Adaptive).
	Settle  time.Duration
	Settled bool
}

// SettleBand is the fraction, either way of its settled value, within
// which the fleet's limit counts as settled; see StageResult.Settle.
const SettleBand = 0.1

// P50X and P99X return P50 and P99 relative to the no-load latency
// noLoad, or 0 if noLoad is not positive.
func (s StageResult) P50X(noLoad time.Duration) float64 { return ratioOf(s.P50, noLoad) }

// P99X is P99 relative to noLoad; see P50X.
func (s StageResult) P99X(noLoad time.Duration) float64 { return ratioOf(s.P99, noLoad) }

func ratioOf(d, base time.Duration) float64 {
	if base <= 0 {
		return 0
	}
	return float64(d) / float64(base)
}

// percentile returns the q-quantile of the latencies, in microseconds, as
// a Duration: the smallest latency that at least a fraction q of them do
// not exceed. It sorts lat.
func percentile(lat []int32, q float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	slices.Sort(lat)
	i := int(q*float64(len(lat))+0.999999) - 1
	i = min(max(i, 0), len(lat)-1)
	return time.Duration(lat[i]) * time.Microsecond
}

// settle measures, from the fleet's limit in the windows [from, to) of a
// stage, how long after from the limit settled (see StageResult.Settle),
// and whether it did.
func settle(limit []int, from, to int, window time.Duration) (time.Duration, bool) {
	to = min(to, len(limit))
	if to-from < 4 {
		return 0, false
	}
	sum := 0
	half := from + (to-from)/2
	for _, n := range limit[half:to] {
		sum += n
	}
	mean := float64(sum) / float64(to-half)
	in := func(n int) bool {
		return float64(n) >= mean*(1-SettleBand) && float64(n) <= mean*(1+SettleBand)
	}
	j := to
	for j > from && in(limit[j-1]) {
		j--
	}
	if 4*(to-j) < to-from {
		return time.Duration(to-from) * window, false
	}
	return time.Duration(j-from) * window, true
}
