package backoff

import (
	"context"
	"time"
)

// WithContext returns a policy that behaves as b until ctx is done, and
// from then on returns Stop. A Ticker, which has no context of its own,
// also stops waiting the moment ctx is done, and a driver using the policy
// reports the context's cause. The returned policy is as safe for
// concurrent use as b. WithContext panics if ctx is nil, as the context
// package does for a nil parent.
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

// contextual is implemented by policies that end with a context.
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

// Validate reports a nil policy, or the wrapped policy's own error.
func (c *contextBackOff) Validate() error { return validatePolicy(c.b) }

// policyContext returns the context b ends with, or nil.
func policyContext(b BackOff) context.Context {
	if c, ok := b.(contextual); ok {
		return c.context()
	}
	return nil
}
