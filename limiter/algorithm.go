package limiter

import "math"

// The formulas of the algorithms. Each takes the limit, r (the no-load
// latency divided by the window's mean latency, in (0, 1]: 1 when nothing
// queues) and the most calls in flight in the window, and returns the
// new limit, before the floor and the ceiling are applied.

// vegas is TCP Vegas's rule on the calls queued at the dependency,
// estimated as queued = limit × (1 − r): those of the calls in flight that
// the latency above the no-load latency stands for. The thresholds grow
// with the limit's order of magnitude, as in Netflix's Vegas limit:
// a = alpha × max(1, log10 limit), b = beta × max(1, log10 limit), so that
// a large limit, whose estimate the noise of the latency moves by more
// calls, does not read that noise as a queue; and they are capped at a
// quarter and a half of the limit, so that a small limit does not keep
// more than half of its calls queued. Below a the limit grows by
// √limit × (1 − queued/a), by 1 at least, unless fewer than half of it
// were used (then the latency says nothing about a higher limit); above b
// it shrinks to limit × b / queued, which would bring the queue back to b
// if the latency stayed as it is, by half at most; between the two it
// stays.
func vegas(limit, r, peak, alpha, beta float64) float64 {
	queued := limit * (1 - r)
	scale := max(1, math.Log10(limit))
	a, b := min(alpha*scale, limit/4), min(beta*scale, limit/2)
	switch {
	case queued < a:
		if 2*peak < limit {
			return limit
		}
		return limit + max(1, math.Sqrt(limit)*(1-queued/a))
	case queued > b:
		return max(limit/2, limit*b/queued)
	}
	return limit
}

// gradientSmoothing is the weight of a lower limit the gradient rule
// computes, against the limit it had: a decrease is spread over a few
// windows, so that one window a little slow does not cut the limit by the
// whole of its gradient (one whose latency doubled does; see gradient).
const gradientSmoothing = 0.2

// gradient is the gradient rule of Netflix's concurrency-limits: the
// gradient g = tolerance × r, kept within [1/2, 1], scales the limit, and
// the square root of the limit is added as headroom, so that the limit
// keeps probing upwards while nothing queues:
//
//	next = limit × g + √limit
//
// A next above the limit is taken at once, unless the calls in flight
// stayed below limit − √limit (then the latency says nothing about a
// higher limit); one below it is smoothed, limit × 0.8 + next × 0.2,
// unless the latency doubled (g at 1/2): a queue that deep is cut at
// once, as a dependency that lost half its capacity needs.
// Where it settles, g = 1 − 1/√limit: at a limit of 25, the latency is
// 1.25 times the no-load latency (times the tolerance).
func gradient(limit, r, peak, tolerance float64) float64 {
	g := min(max(tolerance*r, 0.5), 1)
	headroom := math.Sqrt(limit)
	next := limit*g + headroom
	if next >= limit {
		if peak+headroom < limit {
			return limit
		}
		return next
	}
	if g <= 0.5 {
		return next // the latency doubled: no smoothing
	}
	return limit*(1-gradientSmoothing) + next*gradientSmoothing
}
