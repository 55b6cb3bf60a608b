package grpcbackoff

import (
	"slices"
	"strings"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
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
// order: WithRetry, WithCallGuards, WithAttemptGuards and WithHedging add
// to what earlier options of their kind gave; any other replaces an
// earlier one of its kind. An option given a value it cannot use makes
// every call fail, before anything is sent, with an error whose Cause
// matches backoff.ErrInvalidConfiguration and names the option.
//
// The options build one policy.Policy, once, when the interceptor is
// made: the guards of WithCallGuards, outermost first, around one retry
// stage of WithRetry's options, around the guards of WithAttemptGuards and
// the timeout of WithAttemptTimeout. A call has exactly one retry stage,
// whatever options it is given.
type Option func(*config)

// config is the configuration of a client interceptor, built once.
type config struct {
	retryOpts      []backoff.RetryOption // WithRetry's
	callGuards     []guard.Guard         // WithCallGuards'
	attemptGuards  []guard.Guard         // WithAttemptGuards'
	attemptTimeout time.Duration         // WithAttemptTimeout's; 0 for none
	retryable      uint32                // the retryable status codes, a bit per code
	maxPushback    time.Duration
	maxBuffer      int
	hedged         map[string]*hedge.Hedger // by full method name
	err            error                    // the first invalid setting

	policy *policy.Policy // the call guards, the retry stage, the attempt guards and timeout
	// The policies of a hedged method's call: around hedge.Do (nil if no
	// call guard), and around each hedged attempt (nil if nothing goes
	// there).
	hedgeCall, hedgeAttempt *policy.Policy
}

// fail records the first invalid setting.
func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = invalidSetting(format, args...)
	}
}

// newConfig builds the configuration of an interceptor named name, made
// with opts, and its policies.
func newConfig(name string, opts []Option) *config {
	c := &config{
		retryable:   1 << codes.Unavailable,
		maxPushback: DefaultMaxPushback,
		maxBuffer:   DefaultMaxStreamBuffer,
	}
	for i, o := range opts {
		if o == nil {
			c.fail("%s was given a nil Option (option %d)", name, i+1)
			continue
		}
		o(c)
	}
	if c.err == nil {
		if err := backoff.NewRetrier(c.retryOpts...).Validate(); err != nil {
			c.fail("WithRetry: %w", err)
		}
	}
	if c.err != nil {
		return c
	}
	var call, attempt []policy.Stage
	for _, g := range c.callGuards {
		call = append(call, policy.Guard(g))
	}
	for _, g := range c.attemptGuards {
		attempt = append(attempt, policy.Guard(g))
	}
	if c.attemptTimeout > 0 {
		attempt = append(attempt, policy.Timeout(c.attemptTimeout))
	}
	c.policy = policy.New(slices.Concat(call, []policy.Stage{policy.Retry(c.retryOpts...)}, attempt)...)
	if len(c.hedged) > 0 {
		if len(call) > 0 {
			c.hedgeCall = policy.New(call...)
		}
		if len(attempt) > 0 {
			c.hedgeAttempt = policy.New(attempt...)
		}
	}
	return c
}

// WithRetry adds options to the interceptor's retry stage, the one
// policy.Retry stage every call runs through: backoff.WithMaxTries,
// backoff.WithBackOff, backoff.WithClock, backoff.WithInstrumenter, and
// the driver's other options, on top of a retry stage's defaults (at most
// policy.DefaultMaxTries attempts, the waits of policy.DefaultBackOff).
// Which errors are retried is the interceptor's to judge (see
// WithRetryableCodes): a backoff.WithRetryable classifier can only narrow
// it. A nil RetryOption, or one the driver cannot use, is invalid, and
// named.
func WithRetry(opts ...backoff.RetryOption) Option {
	opts = slices.Clone(opts)
	return func(c *config) {
		for i, o := range opts {
			if o == nil {
				c.fail("WithRetry was given a nil backoff.RetryOption (option %d)", i+1)
				return
			}
		}
		c.retryOpts = append(c.retryOpts, opts...)
	}
}

// WithCallGuards puts guards around the whole call, outside the retry
// stage, outermost first: each sees a call once, however many attempts it
// makes, and its waits. A bulkhead there holds one slot for all of a
// call's attempts; a rate limiter admits calls, not attempts; a breaker
// there trips on calls that failed all their attempts. A refusal ends the
// call before anything is sent, with UNAVAILABLE. A hedged method's call
// passes them too, once. A nil guard, typed or not, or one whose Validate
// reports an error, is invalid.
func WithCallGuards(gs ...guard.Guard) Option {
	gs = slices.Clone(gs)
	return func(c *config) {
		if c.guards("WithCallGuards", gs) {
			c.callGuards = append(c.callGuards, gs...)
		}
	}
}

// WithAttemptGuards puts guards around each attempt, inside the retry
// stage and the guards of WithCallGuards, outermost first: each sees every attempt, with its number
// (guard.Call.Attempt). A breaker there learns of every failed attempt and
// its refusal stops the retries at once; a retry budget there
// (budget.NewTokenBucket, gRFC A6's retry throttling) refuses the retries
// it has no tokens for. Give them Codes as their classifier of failures.
// A hedged method's attempts pass them too, each. A nil guard, typed or
// not, or one whose Validate reports an error, is invalid.
func WithAttemptGuards(gs ...guard.Guard) Option {
	gs = slices.Clone(gs)
	return func(c *config) {
		if c.guards("WithAttemptGuards", gs) {
			c.attemptGuards = append(c.attemptGuards, gs...)
		}
	}
}

// guards checks the guards given to the option named, and reports whether
// all of them can be used.
func (c *config) guards(option string, gs []guard.Guard) bool {
	for i, g := range gs {
		switch isNil, err := guard.Check(g); {
		case isNil:
			c.fail("%s was given a nil guard.Guard (guard %d)", option, i+1)
			return false
		case err != nil:
			c.fail("%s: the guard %T (guard %d): %w", option, g, i+1, err)
			return false
		}
	}
	return true
}

// WithAttemptTimeout gives each attempt d at most, inside the retry stage
// and the attempt guards (a policy.Timeout stage): the attempt's
// grpc-timeout is then the sooner of d and what is left of the caller's
// deadline, and an attempt cut short by d, while the caller's context is
// alive, is retried (see WithRetryableCodes). For a stream, d bounds each
// attempt's whole life, its messages included. The default, 0, sets no
// bound but the caller's deadline; a negative d is invalid.
func WithAttemptTimeout(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.fail("WithAttemptTimeout(%v): an attempt's time cannot be negative", d)
			return
		}
		c.attemptTimeout = d
	}
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
// DEADLINE_EXCEEDED is retried only when an attempt's own deadline,
// WithAttemptTimeout's, cut the attempt short.) No
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
// each call runs through hedge.Do with h, not through the retry stage, as
// gRFC A6 gives a method a retry policy or a hedging policy, never both.
// The guards of WithCallGuards see the hedged call once, around hedge.Do;
// those of WithAttemptGuards, and WithAttemptTimeout, each hedged attempt;
// WithRetry's options, its instrumenters included, do not apply.
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
func WithHedging(h *hedge.Hedger, methods ...string) Option {
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
			c.hedged = make(map[string]*hedge.Hedger, len(methods))
		}
		for _, m := range methods {
			if !strings.HasPrefix(m, "/") || strings.Count(m, "/") != 2 {
				c.fail("WithHedging(%q): not a full method name, such as \"/package.Service/Method\"", m)
				return
			}
			c.hedged[m] = h
		}
	}
}

// retries reports whether code is one of the retryable status codes.
func (c *config) retries(code codes.Code) bool {
	return code <= lastCode && c.retryable&(1<<code) != 0
}
