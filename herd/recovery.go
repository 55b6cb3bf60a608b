package herd

import "time"

// settled returns how long after healthy the spans of k windows inside
// [healthy, end) were good from some span on, to the last: the time from
// healthy to the start of the first span from which on every span, moved
// one window at a time, is good, and true; or the time from healthy to
// end, and false, if the last span is not good. Only the windows wholly
// inside [healthy, end) are judged.
func settled(window, healthy, end time.Duration, k int, good func(from, to int) bool) (time.Duration, bool) {
	first := int((healthy + window - 1) / window) // the first window wholly inside
	last := int(end / window)                     // one past the last
	from := last - k
	if from < first || !good(from, last) {
		return end - healthy, false
	}
	for from > first && good(from-1, from-1+k) {
		from--
	}
	return max(0, time.Duration(from)*window-healthy), true
}

// spanWindows is the number of windows in RecoveryHold, one at least.
func spanWindows(window time.Duration) int { return max(1, int(RecoveryHold/window)) }

// prefix returns the running sums of v: p[i] is the sum of v[:i]. Entries
// past the end of v count as 0, up to n.
func prefix[T int | int32](v []T, n int) []int64 {
	p := make([]int64, n+1)
	for i := range n {
		p[i+1] = p[i]
		if i < len(v) {
			p[i+1] += int64(v[i])
		}
	}
	return p
}

// loadRecovery returns how long after healthy the load of every span of
// RecoveryHold inside [healthy, end) stayed within a factor RecoveryBand
// of its base (base per window times its windows), and whether the last
// span did. Windows past the end of load hold 0.
func loadRecovery(load []int, window, healthy, end time.Duration, base float64) (time.Duration, bool) {
	k := spanWindows(window)
	p := prefix(load, int(end/window))
	want := base * float64(k)
	return settled(window, healthy, end, k, func(from, to int) bool {
		n := float64(p[to] - p[from])
		return n >= want/RecoveryBand && n <= want*RecoveryBand
	})
}

// successRecovery returns how long after healthy the user calls started
// in every span of RecoveryHold inside [healthy, end) succeeded at
// SuccessTarget or more, and whether those of the last span did. A span
// in which no user call started is good.
func successRecovery(started, succeeded []int32, window, healthy, end time.Duration) (time.Duration, bool) {
	k := spanWindows(window)
	n := int(end / window)
	ps, pok := prefix(started, n), prefix(succeeded, n)
	return settled(window, healthy, end, k, func(from, to int) bool {
		calls := ps[to] - ps[from]
		return float64(pok[to]-pok[from]) >= SuccessTarget*float64(calls)
	})
}
