package backoff

import (
	"context"
	"time"
)

// WithContext returns a BackOff that behaves as b until ctx is done, and
// from then on returns Stop. A Ticker, which has no context of its own,
// also stops waiting the moment ctx is done, and a driver using it reports
// the context's cause. The result can be shared exactly when b can (see
// BackOff): it clones b for each run when b has a Clone method.
// WithContext panics if ctx is nil, as the context package does for a nil
// parent; a nil b is reported where the result is used.
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

// contextual is implemented by a BackOff that ends with a context.
type contextual interface {
	context() context.Context
}

func (c *contextBackOff) context() context.Context { return c.ctx }

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

// Clone returns a BackOff that ends with the same context and runs on a
// clone of the wrapped BackOff, or on the wrapped BackOff itself if it has
// no Clone method.
func (c *contextBackOff) Clone() BackOff {
	if inner, ok := c.b.(cloner); ok {
		return &contextBackOff{b: inner.Clone(), ctx: c.ctx}
	}
	return c
}

// Validate reports a nil BackOff, or the wrapped BackOff's own error.
func (c *contextBackOff) Validate() error { return validateBackOff(c.b) }

// backOffContext returns the context b ends with, or nil.
func backOffContext(b BackOff) context.Context {
	if c, ok := b.(contextual); ok {
		return c.context()
	}
	return nil
}
