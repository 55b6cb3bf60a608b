package grpcbackoff

import (
	"fmt"
	"strings"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/hedge"
	"github.com/herdsafe/backoff/policy"
	"google.golang.org/grpc/codes"
)

// Defaults of the client interceptors.
const (
	// DefaultMaxPushback is the longest server pushback the interceptors
	// obey; see WithMaxPushback.
	DefaultMaxPushback = 30 * time.Second
	// DefaultMaxStreamBuffer is how many bytes of sent messages a stream
	// keeps to send them again on a retry, as gRPC's own retries do (its
	// MaxRetryRPCBufferSize); see WithMaxStreamBuffer.
	DefaultMaxStreamBuffer = 256 << 10
)

// Option configures the client interceptors. Options are applied in
// order; a later option replaces an earlier one of the same kind, except
// WithHedging, which adds methods to hedge. An option given a value it
// cannot use makes every call fail, before anything is sent, with an error
// whose Cause matches backoff.ErrInvalidConfiguration and names the
// option.
type Option func(*config)

// config is the configuration of a client interceptor, built once.
type config struct {
	policy      *policy.Policy
	retryable   uint32 // the retryable status codes, a bit per code
	maxPushback time.Duration
	maxBuffer   int
	hedged      map[string]*hedging // by full method name
	err         error               // the first invalid setting
}

// hedging is how the calls of a hedged method run.
type hedging struct {
	h     *hedge.Hedger
	inner *policy.Policy
}

// fail records the first invalid setting.
func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: grpcbackoff."+format, append([]any{backoff.ErrInvalidConfiguration}, args...)...)
	}
}

// newConfig builds the configuration of an interceptor named name, made
// with p and opts.
func newConfig(name string, p *policy.Policy, opts []Option) *config {
	c := &config{
		policy:      p,
		retryable:   1 << codes.Unavailable,
		maxPushback: DefaultMaxPushback,
		maxBuffer:   DefaultMaxStreamBuffer,
	}
	if p == nil {
		c.fail("%s was given a nil *policy.Policy", name)
	}
	for i, o := range opts {
		if o == nil {
			c.fail("%s was given a nil Option (option %d)", name, i+1)
			continue
		}
		o(c)
	}
	return c
}

// lastCode is the highest status code gRPC defines.
const lastCode = codes.Unauthenticated

// WithRetryableCodes sets the status codes whose attempts are retried,
// replacing the default, UNAVAILABLE alone (the code gRPC's own retry
// examples and Google's AIP-194 retry: the server did not process the
// call). Retry only codes that say the server did not act, unless the
// method is idempotent.
//
// CANCELLED is never retried, and asking for it is invalid; so is OK and a
// code gRPC does not define. DEADLINE_EXCEEDED may be given: it is then
// retried when the server returned it while the call's own context is
// alive, never once the caller's deadline has passed. (Without it, a
// DEADLINE_EXCEEDED is retried only when an attempt's own deadline, a
// policy.Timeout stage inside the retry stage, cut the attempt short.) No
// code at all retries nothing but those.
func WithRetryableCodes(cs ...codes.Code) Option {
	return func(c *config) {
		var set uint32
		for _, code := range cs {
			switch {
			case code > lastCode:
				c.fail("WithRetryableCodes(%d): not a status code gRPC defines", uint32(code))
				return
			case code == codes.OK:
				c.fail("WithRetryableCodes(OK): OK is not a failure")
				return
			case code == codes.Canceled:
				c.fail("WithRetryableCodes(Canceled): a cancelled call is never retried")
				return
			}
			set |= 1 << code
		}
		c.retryable = set
	}
}

// WithMaxPushback sets the longest server pushback obeyed (default
// DefaultMaxPushback): a grpc-retry-pushback-ms above it stops the retries
// at once, with a Cause that matches backoff.ErrRetriesCanceled (and an
// error that matches backoff.ErrRetryAfterTooLong too), rather than let a
// server hold the caller for as long as it likes. A pushback is a named
// wait (see backoff.RetryAfterError), so the retry stage's own bound,
// backoff.WithMaxRetryAfter (30 s by default), applies as well, and a
// pushback that would overrun the caller's deadline stops them, with the
// deadline as the Cause. A d that is not positive is invalid.
func WithMaxPushback(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("WithMaxPushback(%v): the longest pushback must be positive", d)
			return
		}
		c.maxPushback = d
	}
}

// WithMaxStreamBuffer sets how many bytes of the messages a stream sent
// it keeps, to send them again on a retry (default DefaultMaxStreamBuffer):
// a stream whose messages outgrow it is committed, and never retried again,
// as gRFC A6 commits a call that overflows gRPC's retry buffer. A message
// is kept as a copy (proto.Clone), so that the caller may reuse it once
// SendMsg has returned; a message that is not a proto.Message cannot be
// copied, and commits the stream. A negative n is invalid; 0 commits a
// stream at its first message.
func WithMaxStreamBuffer(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.fail("WithMaxStreamBuffer(%d): the buffer cannot be negative", n)
			return
		}
		c.maxBuffer = n
	}
}

// WithHedging hedges the unary calls of the methods named, full method
// names such as "/grpc.health.v1.Health/Check", instead of retrying them:
// each call runs through hedge.Do with h, and each hedged attempt through
// inner (nil: the attempt alone), not through the interceptor's Policy, as
// gRFC A6 gives a method a retry policy or a hedging policy, never both.
// Name only idempotent methods: a hedged call runs more than once, at the
// same time. Streams are not hedged.
//
// Each attempt is judged as a retried one is: a status code the
// interceptor does not retry, or a pushback asking for no retry, is fatal
// to the call (see hedge.WithRetryable for the codes that start the next
// attempt at once: Codes makes one); a pushback's delay does not change
// when the next hedge starts, which is h's delay. Each attempt receives its
// own reply message, of the reply's type, and the winner's is merged into
// the reply: a reply that is not a proto.Message fails the call with
// backoff.ErrInvalidConfiguration.
//
// A nil or invalid h, no method, and a method name that is not of the form
// "/service/method" are invalid.
func WithHedging(h *hedge.Hedger, inner *policy.Policy, methods ...string) Option {
	return func(c *config) {
		switch {
		case h == nil:
			c.fail("WithHedging was given a nil *hedge.Hedger")
			return
		case len(methods) == 0:
			c.fail("WithHedging was given no method to hedge")
			return
		}
		if err := h.Validate(); err != nil {
			c.fail("WithHedging: %w", err)
			return
		}
		if c.hedged == nil {
			c.hedged = make(map[string]*hedging, len(methods))
		}
		hg := &hedging{h: h, inner: inner}
		for _, m := range methods {
			if !strings.HasPrefix(m, "/") || strings.Count(m, "/") != 2 {
				c.fail("WithHedging(%q): not a full method name, such as \"/package.Service/Method\"", m)
				return
			}
			c.hedged[m] = hg
		}
	}
}

// retries reports whether code is one of the retryable status codes.
func (c *config) retries(code codes.Code) bool {
	return code <= lastCode && c.retryable&(1<<code) != 0
}
