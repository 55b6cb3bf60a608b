package breaker

// Counts are a Breaker's figures for telemetry. The totals count from New;
// each is read atomically, but they are read one after another, so under
// concurrent use they are not one instant's snapshot.
type Counts struct {
	// Successes is the number of calls recorded as successes.
	Successes uint64
	// Failures is the number of calls recorded as failures.
	Failures uint64
	// Neutral is the number of admitted calls recorded as neither: calls
	// abandoned by their caller, and calls a guard inside the breaker
	// refused.
	Neutral uint64
	// Ignored is the number of records of calls admitted before the last
	// change of state (or with a Permit the Breaker did not issue), which
	// counted for nothing.
	Ignored uint64
	// Rejections is the number of calls the breaker refused because it
	// was open or its probes were taken (not those refused for an invalid
	// configuration).
	Rejections uint64
	// ConsecutiveFailures is the number of failures recorded since the
	// last success, or since the breaker last closed.
	ConsecutiveFailures uint64
	// Transitions is the number of changes of state, those made by
	// ForceOpen, ForceClosed and Reset included.
	Transitions uint64
	// Forced is the number of changes of state made by ForceOpen,
	// ForceClosed and Reset.
	Forced uint64
	// Slow is the number of calls recorded, as successes or as failures,
	// that took longer than WithSlowCalls' duration: 0 without it.
	Slow uint64
}

// Counts returns the breaker's counts.
func (b *Breaker) Counts() Counts {
	c := Counts{
		Successes:   b.successes.Load(),
		Failures:    b.failures.Load(),
		Neutral:     b.neutral.Load(),
		Ignored:     b.ignored.Load(),
		Rejections:  b.rejections.Load(),
		Transitions: b.transitions.Load(),
		Forced:      b.forced.Load(),
		Slow:        b.slowCalls.Load(),
	}
	if p := b.cur.Load(); p != nil {
		c.ConsecutiveFailures = p.consecutive.Load()
	}
	return c
}

// State returns the breaker's state. An open breaker whose open duration
// has passed turns half-open here, as it would on the next Allow, so the
// state-change hook may run on the calling goroutine. A Breaker that is not
// usable (see Validate) is Open.
func (b *Breaker) State() State {
	p := b.cur.Load()
	if p == nil || b.cfg.err != nil {
		return Open
	}
	if p.state == Open && !b.cfg.clock.Now().Before(p.until) {
		p = b.move(p, HalfOpen)
	}
	return p.state
}
