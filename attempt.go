package backoff

import "time"

// Attempt is the facts of one attempt, as the driver knows them when it
// starts the attempt: it fills them in once and hands them to the
// function it runs (Retrier.Attempts) and to every Instrumenter (State),
// so that no layer counts attempts of its own.
type Attempt struct {
	// Number is the attempt's number, from 1.
	Number int
	// Left is the time left, as the attempt starts, before the first of
	// the run's limits in time ends it: its time budget
	// (WithMaxElapsedTime) or its context's deadline. It is 0 when the run
	// has neither, and at least 1ns when it has one, even past it (a first
	// attempt is always made).
	Left time.Duration
	// LastErr is the error of the attempt before this one, as Error.LastErr
	// would give it; nil for the first attempt.
	LastErr error
	// LastDelay is the wait the driver took before this attempt; 0 for the
	// first.
	LastDelay time.Duration
}
