package main

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/breaker"
	"github.com/herdsafe/backoff/bulkhead"
)

// cause is why a call failed: the Cause of its *backoff.Error, or what
// the caller saw after the library returned.
type cause uint8

const (
	causeExhausted       cause = iota // backoff.ErrExhausted
	causeMaxElapsed                   // backoff.ErrMaxElapsedTime
	causeCanceled                     // the caller's cancel cause, errCallerCanceled
	causeCanceledNoCause              // context.Canceled without the caller's cause: the cause was lost
	causeDeadline                     // context.DeadlineExceeded: the call's deadline
	causeBreakerOpen                  // breaker.ErrCircuitOpen
	causeBulkheadFull                 // bulkhead.ErrBulkheadFull
	causePermanent                    // backoff.ErrPermanent
	causeRetriesCanceled              // backoff.ErrRetriesCanceled
	causeInvalid                      // backoff.ErrInvalidConfiguration
	causeOther                        // a *backoff.Error with any other Cause
	causeStatus                       // transport mode: the last response handed back was a 503
	causeBodyCanceled                 // transport mode: reading a 200's body failed, the call cancelled
	causeBodyDeadline                 // transport mode: reading a 200's body failed, the call's deadline passed
	causeBodyError                    // transport mode: reading a 200's body failed, the context alive
	causeNotBackoffError              // the call failed with an error that is no *backoff.Error
	causeStopped                      // errRunStopped: the run cancelled the calls still running after its grace
	numCauses
)

var causeNames = [numCauses]string{
	"exhausted", "max elapsed time", "context canceled", "context canceled, cause lost",
	"deadline exceeded", "breaker open", "bulkhead full", "permanent", "retries canceled",
	"invalid configuration", "other cause", "final 503 handed back", "body: canceled",
	"body: deadline exceeded", "body: read error", "not a *backoff.Error", "stopped by the run",
}

func (c cause) String() string { return causeNames[c] }

// broken reports whether a failure of cause c breaks a promise of the
// library, so that the run fails: every failure of policy.Do and of the
// Transport is a *backoff.Error, its Cause is one the documentation names,
// and a cancelled call reports the context's cause.
func (c cause) broken() bool {
	switch c {
	case causeCanceledNoCause, causeInvalid, causeOther, causeNotBackoffError:
		return true
	}
	return false
}

// The causes of the soak's own cancellations.
var (
	// errCallerCanceled is the cause a caller cancels a call with.
	errCallerCanceled = errors.New("soak: the caller cancelled the call")
	// errRunStopped is the cause the run cancels the calls that are still
	// running when its grace is over.
	errRunStopped = errors.New("soak: the run stopped the call")
)

// classify returns the cause of a call's error err: the Cause of the
// *backoff.Error in its chain. ok is false when there is none.
func classify(err error) (c cause, e *backoff.Error, ok bool) {
	if !errors.As(err, &e) {
		return causeNotBackoffError, nil, false
	}
	switch cause := e.Cause; {
	case errors.Is(cause, backoff.ErrInvalidConfiguration):
		return causeInvalid, e, true
	case errors.Is(cause, errCallerCanceled):
		return causeCanceled, e, true
	case errors.Is(cause, errRunStopped):
		return causeStopped, e, true
	case errors.Is(cause, context.Canceled):
		return causeCanceledNoCause, e, true
	case errors.Is(cause, context.DeadlineExceeded):
		return causeDeadline, e, true
	case errors.Is(cause, breaker.ErrCircuitOpen):
		return causeBreakerOpen, e, true
	case errors.Is(cause, bulkhead.ErrBulkheadFull):
		return causeBulkheadFull, e, true
	case errors.Is(cause, backoff.ErrExhausted):
		return causeExhausted, e, true
	case errors.Is(cause, backoff.ErrMaxElapsedTime):
		return causeMaxElapsed, e, true
	case errors.Is(cause, backoff.ErrPermanent):
		return causePermanent, e, true
	case errors.Is(cause, backoff.ErrRetriesCanceled):
		return causeRetriesCanceled, e, true
	}
	return causeOther, e, true
}

// bodyCause returns the cause of a failed read of a response body, from
// the state of the call's context.
func bodyCause(ctx context.Context) cause {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCallerCanceled):
		return causeBodyCanceled
	case errors.Is(cause, errRunStopped):
		return causeStopped
	case ctx.Err() != nil:
		return causeBodyDeadline
	}
	return causeBodyError
}

// outcome is how one call ended.
type outcome struct {
	ok       bool
	cause    cause // when !ok
	err      error // when !ok, the error, for the samples
	attempts int   // the attempts the call made, as the soak counted them
	reported int   // the *backoff.Error's Attempts; -1 when there is none
}

// tally counts the calls: every call that starts is counted once as
// completed or once as failed, by cause.
type tally struct {
	maxTries  int
	started   atomic.Int64
	completed atomic.Int64
	failed    [numCauses]atomic.Int64
	mismatch  atomic.Int64 // *backoff.Error.Attempts differs from the attempts counted
	overTries atomic.Int64 // a call made more than maxTries attempts

	mu      sync.Mutex
	samples []string // one error message for each cause of a broken promise, and each mismatch kind
	seen    map[string]bool
}

// maxSamples bounds the messages a tally keeps.
const maxSamples = 20

// start counts a call that starts.
func (t *tally) start() { t.started.Add(1) }

// finish counts how a started call ended.
func (t *tally) finish(o outcome) {
	if o.attempts > t.maxTries {
		t.overTries.Add(1)
		t.sample("over max tries", o)
	}
	if o.reported >= 0 && o.reported != o.attempts {
		t.mismatch.Add(1)
		t.sample("Attempts mismatch", o)
	}
	if o.ok {
		t.completed.Add(1)
		return
	}
	t.failed[o.cause].Add(1)
	if o.cause.broken() {
		t.sample(o.cause.String(), o)
	}
}

// sample keeps the message of o under the label, once per label.
func (t *tally) sample(label string, o outcome) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.seen[label] || len(t.samples) >= maxSamples {
		return
	}
	if t.seen == nil {
		t.seen = make(map[string]bool)
	}
	t.seen[label] = true
	msg := label + ": "
	if o.err != nil {
		msg += o.err.Error()
	} else {
		msg += "the call succeeded"
	}
	msg += " (attempts counted " + strconv.Itoa(o.attempts) + ", reported " + strconv.Itoa(o.reported) + ")"
	t.samples = append(t.samples, msg)
}

// counts is a reading of a tally.
type counts struct {
	Started, Completed int64
	Failed             [numCauses]int64
	Mismatch           int64
	OverTries          int64
	Samples            []string
}

// read returns the counts. Read while calls run, it reads started last:
// a call is started before it ends, so the reading never shows more calls
// ended than started.
func (t *tally) read() counts {
	var c counts
	c.Completed = t.completed.Load()
	for i := range c.Failed {
		c.Failed[i] = t.failed[i].Load()
	}
	c.Mismatch = t.mismatch.Load()
	c.OverTries = t.overTries.Load()
	c.Started = t.started.Load()
	t.mu.Lock()
	c.Samples = append([]string(nil), t.samples...)
	t.mu.Unlock()
	return c
}

// FailedTotal is the sum of the failures of every cause.
func (c counts) FailedTotal() int64 {
	var n int64
	for _, f := range c.Failed {
		n += f
	}
	return n
}

// InFlight is the calls started and not yet ended.
func (c counts) InFlight() int64 { return c.Started - c.Completed - c.FailedTotal() }

// Balanced reports whether every call that started is accounted for,
// exactly once: started = completed + failed.
func (c counts) Balanced() bool { return c.InFlight() == 0 }

// Broken is the failures that break a promise of the library.
func (c counts) Broken() int64 {
	var n int64
	for i, f := range c.Failed {
		if cause(i).broken() {
			n += f
		}
	}
	return n
}
