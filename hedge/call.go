package hedge

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// call is one hedged call. Its first fields are what the attempts share
// with the goroutine of Do, read-only but for state and the inbox;
// the others are the bookkeeping of Do's goroutine alone. What grows
// with the attempts (the inbox, the cancel functions) grows as they start,
// so that a call allocates for the attempts it makes, not for the most it
// may make.
type call[T any] struct {
	h       *Hedger
	fn      func(context.Context) (T, error)
	inner   *policy.Policy
	discard func(T)
	state   atomic.Int32 // open, won or closed

	// The inbox: the results the attempts report, in the order they
	// reported. A report never blocks, so that an attempt that returns
	// after Execute did ends; ready holds a token while reports may be
	// waiting.
	mu     sync.Mutex
	queue  []result[T]
	head   int // the index in queue of the first result not taken
	ready  chan struct{}
	queue0 [1]result[T] // queue's first backing array

	cancels  []context.CancelCauseFunc // by attempt, nil for one not made
	cancel0  [DefaultMaxAttempts]context.CancelCauseFunc
	ended    bool  // end has been called
	next     int   // the index of the next attempt, from 0
	made     int   // attempts started
	inflight int   // attempts started whose result has not been taken
	lastErr  error // the error of the attempt that failed last
	refusal  error // the budget's latest refusal
	start    time.Time
}

// newCall returns a call through h, with its inbox empty.
func newCall[T any](h *Hedger, fn func(context.Context) (T, error), inner *policy.Policy, discard func(T)) *call[T] {
	c := &call[T]{h: h, fn: fn, inner: inner, discard: discard, ready: make(chan struct{}, 1)}
	c.queue = c.queue0[:0]
	c.cancels = c.cancel0[:0]
	return c
}

// report puts an attempt's result in the inbox. It never blocks.
func (c *call[T]) report(r result[T]) {
	c.mu.Lock()
	c.queue = append(c.queue, r)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default: // a token is waiting already
	}
}

// take returns the result that has waited longest in the inbox, if any.
func (c *call[T]) take() (result[T], bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head == len(c.queue) {
		return result[T]{}, false
	}
	r := c.queue[c.head]
	c.queue[c.head] = result[T]{} // the inbox keeps no result it handed over
	c.head++
	if c.head == len(c.queue) {
		c.queue, c.head = c.queue[:0], 0
	}
	return r, true
}

// wait returns the next result in the inbox, waiting for one if need be.
func (c *call[T]) wait() result[T] {
	for {
		if r, ok := c.take(); ok {
			return r
		}
		<-c.ready
	}
}

// The states of a call. An attempt that succeeds while the call is open
// wins it; one that succeeds later discards its result. Do closes the
// call when it gives up, so that no attempt wins after.
const (
	open int32 = iota
	won
	closed
)

// result is what an attempt reports.
type result[T any] struct {
	n     int // the attempt's index, from 0
	v     T
	err   error
	panic *policy.PanicError
}

// run makes the call's attempts and returns its outcome.
func (c *call[T]) run(ctx context.Context) (T, error) {
	h := c.h
	c.start = h.clock.Now()
	winner := -1
	defer func() {
		// However the call ends (a panic in a classifier or the budget
		// included), no attempt may win it after, and a result that won
		// it meanwhile is released.
		if winner < 0 {
			if w, ok := c.end(); ok && c.discard != nil {
				c.discard(w.v)
			}
		}
		for i, cancel := range c.cancels {
			if cancel != nil && i != winner {
				cancel(ErrCanceled)
			}
		}
	}()
	// The timer is set before the first attempt starts, so that an attempt
	// that moves a mock clock past the delay starts the next one.
	var timer *clock.Timer
	var tick <-chan time.Time
	if h.maxAttempts > 1 && h.delay > 0 {
		timer = h.clock.Timer(h.delay)
		defer timer.Stop()
		tick = timer.C
	}
	c.launch(ctx)
	for h.delay == 0 && c.next < h.maxAttempts {
		c.launch(ctx)
	}
	for {
		if c.inflight == 0 && c.next == h.maxAttempts {
			var cause error
			switch {
			case ctx.Err() != nil:
				cause = context.Cause(ctx)
			case c.refusal != nil:
				cause = c.refusal
			default:
				cause = backoff.ErrExhausted
			}
			return c.fail(cause)
		}
		r, ok := c.take()
		if !ok {
			select {
			case <-c.ready:
			case <-tick:
				c.launch(ctx)
				tick = rearm(timer, h.delay, c.next < h.maxAttempts)
			case <-ctx.Done():
				return c.stop(context.Cause(ctx), &winner)
			}
			continue
		}
		c.inflight--
		switch {
		case r.panic != nil:
			panic(r.panic) // the deferred cleanup runs on the way
		case r.err == nil: // the attempt has won the call
			winner = r.n
			return r.v, nil
		}
		c.lastErr = r.err
		if ctx.Err() != nil {
			return c.stop(context.Cause(ctx), &winner)
		}
		cause, now := h.verdict(r.err)
		if cause != nil {
			return c.stop(cause, &winner)
		}
		if now && c.next < h.maxAttempts {
			c.launch(ctx)
			tick = rearm(timer, h.delay, c.next < h.maxAttempts)
		}
	}
}

// launch starts the next attempt, unless the budget refuses it. Nothing
// starts once ctx is done: the call is about to end.
func (c *call[T]) launch(ctx context.Context) {
	n := c.next
	c.next++
	c.cancels = append(c.cancels, nil)
	if ctx.Err() != nil {
		return
	}
	var p guard.Permit
	if n > 0 && c.h.budget != nil {
		var err error
		if p, err = c.h.budget.Allow(ctx, guard.Call{Attempt: n + 1}); err != nil {
			c.refusal = guard.Refusal(err)
			return
		}
	}
	actx, cancel := context.WithCancelCause(ctx)
	c.cancels[n] = cancel
	c.made++
	c.inflight++
	go c.attempt(actx, n, p)
}

// rearm sets timer to fire after d again if more attempts remain, and
// returns the channel to wait on: nil once none remain. The timer's
// channel is drained first: it may have fired while a failure started the
// attempt early.
func rearm(timer *clock.Timer, d time.Duration, more bool) <-chan time.Time {
	if timer == nil {
		return nil
	}
	if !timer.Stop() {
		select {
		case <-timer.C:
		default:
		}
	}
	if !more {
		return nil
	}
	timer.Reset(d)
	return timer.C
}

// stop ends the call early with cause: ctx is done, or an attempt failed
// fatally. An attempt that won meanwhile wins the call.
func (c *call[T]) stop(cause error, winner *int) (T, error) {
	if w, ok := c.end(); ok {
		*winner = w.n
		return w.v, nil
	}
	return c.fail(cause)
}

// fail returns the call's failure.
func (c *call[T]) fail(cause error) (T, error) {
	var zero T
	return zero, &backoff.Error{Cause: cause, LastErr: c.lastErr, Attempts: c.made, Elapsed: c.h.clock.Since(c.start)}
}

// end closes the call, once. If an attempt has won it meanwhile, the
// first end returns its result, which the attempt has sent or is about to
// send.
func (c *call[T]) end() (result[T], bool) {
	if c.ended {
		return result[T]{}, false
	}
	c.ended = true
	if c.state.CompareAndSwap(open, closed) {
		return result[T]{}, false
	}
	for {
		if r := c.wait(); r.err == nil && r.panic == nil {
			return r, true
		}
	}
}
