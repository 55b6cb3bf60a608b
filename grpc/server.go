package grpcbackoff

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/internal/typednil"
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
	g           guard.Guard
	code        codes.Code
	pushback    time.Duration
	maxPushback time.Duration
	random      func(n int64) int64 // uniform in [0, n)
	err         error
}

func (s *shedder) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("%w: grpcbackoff."+format, append([]any{backoff.ErrInvalidConfiguration}, args...)...)
	}
}

func newShedder(name string, g guard.Guard, opts []ServerOption) *shedder {
	s := &shedder{g: g, code: codes.Unavailable, pushback: DefaultPushback, maxPushback: DefaultMaxPushback, random: randomN}
	switch {
	case g == nil || typednil.Is(g):
		s.fail("%s was given a nil guard.Guard", name)
	default:
		if v, ok := g.(guard.Validator); ok {
			if err := v.Validate(); err != nil {
				s.fail("%s: the guard %T: %w", name, g, err)
			}
		}
	}
	for i, o := range opts {
		if o == nil {
			s.fail("%s was given a nil ServerOption (option %d)", name, i+1)
			continue
		}
		o(s)
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

// WithPushback sets the wait a shed call asks for when the guard tells
// nothing more (default DefaultPushback), and the longest wait it asks
// for (default DefaultMaxPushback, which is also the longest a client of
// this package obeys by default). See UnaryServerInterceptor for how the
// wait grows with the guard's state. base must be positive and at most
// max.
func WithPushback(base, max time.Duration) ServerOption {
	return func(s *shedder) {
		if base <= 0 || max < base {
			s.fail("WithPushback(%v, %v): the base must be positive and at most the maximum", base, max)
			return
		}
		s.pushback, s.maxPushback = base, max
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
// computed from the guard's state at the refusal, then jittered:
//
//   - a breaker.Breaker that is open asks for the time it stays open (its
//     OpenError's Duration);
//   - a bulkhead.Bulkhead asks for the base wait times its load, the calls
//     in flight and queued over its capacity;
//   - a throttle.Throttle asks for the base wait over 1 − p, p being its
//     probability of rejection, as a client turned away with probability p
//     comes back 1/(1 − p) times on average;
//   - any other guard asks for the base wait (WithPushback).
//
// The wait sent is that wait d plus a random extra, uniform in [0, d), so
// that the clients shed at the same moment come back over a span as long
// as the wait instead of all at once: never less than d, and never more
// than WithPushback's maximum. A client that gave up (its context is done)
// gets its context's status and no pushback; a handler's own errors pass
// unchanged.
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
		var resp any
		ran := false
		err := guard.Run(ctx, s.g, s.call(ctx), func(ctx context.Context) error {
			ran = true
			var err error
			resp, err = handler(ctx, req)
			return err
		})
		if ran || err == nil {
			return resp, err
		}
		return nil, s.shed(ctx, err, func(md metadata.MD) error { return grpc.SetTrailer(ctx, md) })
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
		ran := false
		err := guard.Run(ctx, s.g, s.call(ctx), func(context.Context) error {
			ran = true
			return handler(srv, ss)
		})
		if ran || err == nil {
			return err
		}
		return s.shed(ctx, err, func(md metadata.MD) error { ss.SetTrailer(md); return nil })
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
	case !errors.Is(err, backoff.ErrRefused): // an error the guard made the call's own (a chaos guard's)
		return err
	}
	_ = setTrailer(metadata.Pairs(PushbackKey, formatPushback(s.wait(err))))
	return status.Error(s.code, err.Error())
}
