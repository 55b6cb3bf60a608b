package breaker

// ForceOpen isolates the dependency: the breaker refuses every call, with
// an [*OpenError] whose State is ForcedOpen, until ForceClosed or Reset.
// No open duration ends it, and no probe is admitted.
//
// ForceClosed makes the breaker admit every call whatever they do: it
// goes on counting how they end (Counts), but never trips, until
// ForceOpen or Reset. Its state is ForcedClosed.
//
// Reset puts the breaker back in the closed state with its trip rule's
// counts cleared (the failures in a row, the failure-rate window) and its
// open duration back to the first (WithOpenBackOff's BackOff is Reset),
// whatever state it was in: it lifts a ForceOpen or a ForceClosed, ends
// an open or half-open state, and gives a closed breaker a fresh window.
// The totals of Counts, which telemetry reads as counters, are kept.
//
// Each call is a change of state, even to the state the breaker is in: it
// starts a new period, so that the calls admitted before it count for
// nothing when they are recorded (a probe in flight included); it counts
// in Counts().Transitions and Counts().Forced; and it runs the
// WithStateChange hook with the state left and the state entered
// (ForcedOpen, ForcedClosed, or Closed for Reset) on the calling
// goroutine, once the lock is released. The three are safe for
// concurrent use with every other method; between concurrent ones, the
// last to take the lock decides.
//
// They return an error only for a Breaker that cannot be used (see
// Validate): the configuration error, the breaker unchanged.
func (b *Breaker) ForceOpen() error { return b.force(ForcedOpen) }

// ForceClosed makes the breaker admit every call and never trip, until
// ForceOpen or Reset; see ForceOpen.
func (b *Breaker) ForceClosed() error { return b.force(ForcedClosed) }

// Reset puts the breaker back in the closed state with its counts
// cleared; see ForceOpen.
func (b *Breaker) Reset() error { return b.force(Closed) }

// force makes the breaker enter the state to, from whatever state it is
// in, and reports the change.
func (b *Breaker) force(to State) error {
	if err := b.Validate(); err != nil {
		return err
	}
	from := b.forceSwap(to)
	if b.cfg.onChange != nil {
		b.cfg.onChange(from, to)
	}
	return nil
}

// forceSwap is force's part under the lock: it returns the state left.
func (b *Breaker) forceSwap(to State) State {
	b.mu.Lock()
	defer b.mu.Unlock()
	cur := b.cur.Load()
	b.enter(cur, to)
	b.forced.Add(1)
	return cur.state
}
