package ratelimit

import "golang.org/x/time/rate"

// Stats are a Limiter's figures, for telemetry.
type Stats struct {
	// Rate is the rate, in calls a second, and Burst the size of the
	// bucket, as New was given them.
	Rate  rate.Limit
	Burst int
	// Tokens is what the bucket holds now: below 1 no call is admitted at
	// once, and below 0 the calls waiting have reserved tokens to come.
	Tokens float64
	// Waiting is the number of calls waiting for their token now.
	Waiting int64
	// Waited counts the calls admitted after a wait, since New.
	Waited uint64
	// Refused counts the calls refused with ErrRateLimited, since New.
	Refused uint64
}

// Stats returns the Limiter's figures, reading its clock once. Each is read
// atomically, but not all at the same instant. A Limiter that cannot be
// used reports zero figures.
func (l *Limiter) Stats() Stats {
	if l == nil || l.lim == nil {
		return Stats{}
	}
	l.mu.Lock()
	tokens := l.lim.TokensAt(l.now())
	l.mu.Unlock()
	return Stats{
		Rate:    l.lim.Limit(),
		Burst:   l.lim.Burst(),
		Tokens:  tokens,
		Waiting: l.waiting.Load(),
		Waited:  l.waited.Load(),
		Refused: l.refused.Load(),
	}
}
