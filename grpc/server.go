package grpcbackoff

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/pushback"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// DefaultPushback is the wait a server asks of the clients it sheds when
// its guard tells nothing more; see WithPushback.
const DefaultPushback = time.Second

// ServerOption configures the server interceptors. An option given a value
// it cannot use makes every call fail with INTERNAL, without running its
// handler, with a message that names the option.
type ServerOption func(*shedder)

// shedder is the configuration of a server interceptor, built once.
type shedder struct {
	g         guard.Guard
	code      codes.Code
	base, max time.Duration  // WithPushback's
	random    func() float64 // WithPushbackRandom's
	rule      pushback.Rule  // of base, max and random
	clock     clock.Clock    // WithShedClock's
	pressure  float64        // WithRetryPressure's
	gate      *pushback.Gate // of g, clock and pressure
	err       error
}

func (s *shedder) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%w: grpcbackoff."+format, append([]any{backoff.ErrInvalidConfiguration}, args...)...)
	}
}

func newShedder(name string, g guard.Guard, opts []ServerOption) *shedder {
	s := &shedder{g: g, code: codes.Unavailable, base: DefaultPushback, max: DefaultMaxPushback, random: rand.Float64,
		clock: realClock, pressure: DefaultRetryPressure}
	switch isNil, err := guard.Check(g); {
	case isNil:
		s.fail("%s was given a nil guard.Guard", name)
	case err != nil:
		s.fail("%s: the guard %T: %w", name, g, err)
	}
	for i, o := range opts {
		if o == nil {
			s.fail("%s was given a nil ServerOption (option %d)", name, i+1)
			continue
		}
		o(s)
	}
	s.rule = s.newRule()
	if s.err == nil {
		s.gate = pushback.NewGate(g, s.clock, s.pressure)
	}
	return s
}

// WithShedCode sets the status code of a shed call: codes.Unavailable, the
// default, which the clients of this package and of gRPC's own retries
// retry by default, or codes.ResourceExhausted, which they retry only if
// told to. Any other code is invalid.
func WithShedCode(c codes.Code) ServerOption {
	return func(s *shedder) {
		if c != codes.Unavailable && c != codes.ResourceExhausted {
			s.fail("WithShedCode(%v): a shed call is UNAVAILABLE or RESOURCE_EXHAUSTED", c)
			return
		}
		s.code = c
	}
}

// WithPushback sets the shortest wait a shed call asks for, the wait when
// the guard tells nothing more (default DefaultPushback), and the longest
// wait it asks for, the spread included (default DefaultMaxPushback, which
// is also the longest a client of this package obeys by default). Package
// pushback says how the wait grows with the guard's state.
// The trailer counts whole milliseconds, so base must be one at least, and
// at most max; a base or a max beyond the trailer's largest value (about
// 24.8 days) is taken as that value.
func WithPushback(base, max time.Duration) ServerOption {
	return func(s *shedder) {
		if base < time.Millisecond || max < base {
			s.fail("WithPushback(%v, %v): the base must be a millisecond at least, the trailer's unit, and at most the maximum", base, max)
			return
		}
		s.base, s.max = base, max
	}
}

// WithPushbackRandom replaces the random source of the pushback's spread:
// fn returns a draw in [0, 1) each time it is called, from any goroutine
// at once. The default is math/rand/v2's Float64, which takes no lock. A
// test or a simulation passes a function of its own, to fix the waits: 0
// adds no spread. A draw outside [0, 1), or NaN, is taken as the nearest
// bound of that range. A nil fn is invalid.
func WithPushbackRandom(fn func() float64) ServerOption {
	return func(s *shedder) {
		if fn == nil {
			s.fail("WithPushbackRandom was given a nil function")
			return
		}
		s.random = fn
	}
}

// UnaryServerInterceptor returns an interceptor that asks the guard g to
// admit every unary call, before its handler runs, and tells g how the
// handler ended, as guard.Run does: the guard sheds the load the server
// cannot take (a bulkhead.Bulkhead of the calls in flight, a
// throttle.Throttle or a budget.Budget of the server's own, a
// breaker.Breaker around a dependency the handlers need). The guard sees
// the call's attempt number, from the client's grpc-previous-rpc-attempts
// metadata, so that a budget sheds retries before first attempts.
//
// A call g refuses is answered, without running the handler, with
// UNAVAILABLE (or WithShedCode's code), the refusal's message, and a
// grpc-retry-pushback-ms trailer: the wait the server asks of the client,
// which clients of this package, and gRPC's own retries, obey. The wait is
// package pushback's Rule in whole milliseconds, which says how the
// guard's state at the refusal (a breaker's time until it admits a probe,
// a bulkhead's or a limiter's load, a throttle's rejection probability)
// lengthens WithPushback's base, and how the wait is spread, with
// WithPushbackRandom's draws, so that the clients shed at the same moment
// come back over a span as long as the wait instead of all at once: never
// less than the base, and never more than WithPushback's maximum. A
// client that gave up (its context is done) gets its context's status and
// no pushback; a handler's own errors pass unchanged.
//
// The interceptor is safe for concurrent use; an admitted call costs what
// the guard's Allow and Record cost and, for a retry, the reading of the
// metadata. A nil or invalid g, or an invalid option, makes every call fail
// with INTERNAL without running its handler.
func UnaryServerInterceptor(g guard.Guard, opts ...ServerOption) grpc.UnaryServerInterceptor {
	s := newShedder("UnaryServerInterceptor", g, opts)
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if s.err != nil {
			return nil, status.Error(codes.Internal, s.err.Error())
		}
		setTrailer := func(md metadata.MD) error { return grpc.SetTrailer(ctx, md) }
		call := s.call(ctx)
		if err := s.refuse(ctx, call, setTrailer); err != nil {
			return nil, err
		}
		var resp any
		ran := false
		tier := new(hop.Tier)
		start := s.gate.Start()
		err := guard.Run(hop.Track(ctx, tier), s.g, call, func(ctx context.Context) error {
			s.gate.Admitted(start)
			ran = true
			var err error
			resp, err = handler(ctx, req)
			return err
		})
		if ran || err == nil {
			s.gaveUp(tier, err, setTrailer)
			return resp, err
		}
		return nil, s.shed(ctx, err, setTrailer)
	}
}

// StreamServerInterceptor returns an interceptor that sheds streams as
// UnaryServerInterceptor sheds unary calls: the guard admits each stream
// before its handler runs, and holds what it admitted (a bulkhead's slot)
// until the handler returns.
func StreamServerInterceptor(g guard.Guard, opts ...ServerOption) grpc.StreamServerInterceptor {
	s := newShedder("StreamServerInterceptor", g, opts)
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if s.err != nil {
			return status.Error(codes.Internal, s.err.Error())
		}
		ctx := ss.Context()
		setTrailer := func(md metadata.MD) error { ss.SetTrailer(md); return nil }
		call := s.call(ctx)
		if err := s.refuse(ctx, call, setTrailer); err != nil {
			return err
		}
		ran := false
		tier := new(hop.Tier)
		start := s.gate.Start()
		err := guard.Run(ctx, s.g, call, func(context.Context) error {
			s.gate.Admitted(start)
			ran = true
			return handler(srv, &trackedStream{ServerStream: ss, ctx: hop.Track(ctx, tier)})
		})
		if ran || err == nil {
			s.gaveUp(tier, err, setTrailer)
			return err
		}
		return s.shed(ctx, err, setTrailer)
	}
}

// call describes the call of ctx for the guard: its attempt number, from
// the client's grpc-previous-rpc-attempts.
func (s *shedder) call(ctx context.Context) guard.Call {
	return guard.Call{Attempt: previousAttempts(metadata.ValueFromIncomingContext(ctx, PreviousAttemptsKey)) + 1}
}

// shed answers a call the guard did not run: err is why, as guard.Run
// returned it. setTrailer sets the call's trailer.
func (s *shedder) shed(ctx context.Context, err error, setTrailer func(metadata.MD) error) error {
	switch {
	case ctx.Err() != nil: // the client gave up: nobody to push back
		return status.FromContextError(ctx.Err()).Err()
	case errors.Is(err, backoff.ErrInvalidConfiguration):
		return status.Error(codes.Internal, err.Error())
	case !backoff.MarksOf(err).Refused: // an error the guard made the call's own (a chaos guard's)
		return err
	}
	_ = setTrailer(metadata.Pairs(PushbackKey, formatPushback(s.wait(err))))
	return status.Error(s.code, err.Error())
}
