package herd

import "time"

// recovery returns how long after healthy the load of every window wholly
// inside [healthy, end) stayed within a factor RecoveryBand of base, and
// whether it did for RecoveryHold at least before the end. Windows past
// the end of load hold 0.
func recovery(load []int, window, healthy, end time.Duration, base float64) (time.Duration, bool) {
	first := int((healthy + window - 1) / window) // the first window wholly inside
	last := int(end / window)                     // one past the last
	normal := func(i int) bool {
		n := 0
		if i < len(load) {
			n = load[i]
		}
		return float64(n) >= base/RecoveryBand && float64(n) <= base*RecoveryBand
	}
	from := last
	for from > first && normal(from-1) {
		from--
	}
	if time.Duration(last-from)*window < RecoveryHold {
		return end - healthy, false
	}
	return max(0, time.Duration(from)*window-healthy), true
}
