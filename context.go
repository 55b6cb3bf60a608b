package backoff

import (
	"context"
	"time"
)

// WithContext returns a BackOff that behaves as b until ctx is done, and
// from then on returns Stop. A driver or Loop using it then stops with the
// context's cause, and a Ticker, which has no context of its own, stops
// waiting the moment ctx is done. The result has Clone (see BackOff), so it
// can be shared exactly when b can: its Clone clones b when b has Clone,
// and returns the result itself when it does not. WithContext panics if
// ctx is nil, as the context package does for a nil parent; a nil b is
// reported where the result is used.
func WithContext(ctx context.Context, b BackOff) BackOff {
	if ctx == nil {
		panic("backoff: WithContext called with a nil context")
	}
	return &contextBackOff{b: b, ctx: ctx}
}

type contextBackOff struct {
	b   BackOff
	ctx context.Context
}

func (c *contextBackOff) NextBackOff() time.Duration {
	if c.b == nil || c.ctx.Err() != nil {
		return Stop
	}
	return c.b.NextBackOff()
}

func (c *contextBackOff) Reset() {
	if c.b != nil {
		c.b.Reset()
	}
}

func (c *contextBackOff) Clone() BackOff {
	if inner, ok := c.b.(interface{ Clone() BackOff }); ok {
		return &contextBackOff{b: inner.Clone(), ctx: c.ctx}
	}
	return c
}

// Context returns the context the BackOff stops with: the driver reports
// its cause when the BackOff stops.
func (c *contextBackOff) Context() context.Context { return c.ctx }

// Validate reports a nil inner BackOff, or why it cannot be used.
func (c *contextBackOff) Validate() error {
	if c.b == nil {
		return invalid("WithContext was given a nil BackOff")
	}
	return validate(c.b)
}
