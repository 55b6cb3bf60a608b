package grpcbackoff

import (
	"context"
	"strconv"
	"sync"

	"github.com/herdsafe/backoff"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// UnaryClientInterceptor returns an interceptor that runs each unary call
// through the guards and the retry stage its options place (see Option):
// each attempt is the rest of the interceptor chain, called with the
// attempt's context, and the retry stage makes another while the attempts
// fail with a status code that is safe to retry, as the package
// documentation says. With no option, a call is tried at most 3 times,
// after UNAVAILABLE, with full-jitter waits (policy.Retry's defaults).
// Build the interceptor once for a ClientConn: its guards then see every
// call of it.
//
// A call that succeeds returns nil. A call that fails returns an error
// that carries the gRPC status of its last attempt, its code, message and
// details unchanged, as gRPC's own retries return it: status.Code(err) is
// what it was without the interceptor. A call refused before any attempt
// carries UNAVAILABLE, with the refusal's message (a breaker open, a
// bulkhead full: errors.Is finds which); one whose context ended first
// carries the context's code; a misconfigured interceptor INTERNAL. The
// error unwraps to a *backoff.Error (errors.As), whose Cause says why the
// retries stopped, and %+v prints its account.
//
// Each attempt asks for the server's trailer metadata, to read its
// pushback. The caller's call options apply to every attempt: its own
// grpc.Trailer and grpc.Header receive those of the last attempt, and a
// grpc.OnFinish callback is called at the end of each. Give the ClientConn
// grpc.WithDisableRetry, so that gRPC's service-config retries do not
// retry each attempt again (its transparent retries, of calls the server
// never saw, remain). A unary call is judged by its status alone:
// its reply is delivered whole or not at all, so the commit rule of streams
// does not apply.
//
// A panic in the rest of the chain goes on to the caller, unchanged, once
// the guards it passed have been told (guard.ErrPanicked): a bulkhead's
// slot is given back, and no attempt follows.
//
// The interceptor is safe for concurrent use. A call whose first attempt
// succeeds allocates nothing in it. An invalid option makes every call
// fail with INTERNAL before anything is sent.
func UnaryClientInterceptor(opts ...Option) grpc.UnaryClientInterceptor {
	c := newConfig("UnaryClientInterceptor", opts)
	if c.err != nil {
		err := c.err
		return func(context.Context, string, any, any, *grpc.ClientConn, grpc.UnaryInvoker, ...grpc.CallOption) error {
			return invalid(err)
		}
	}
	p, hedged := c.policy, len(c.hedged) > 0
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
		if hedged {
			if h := c.hedged[method]; h != nil {
				return c.hedge(ctx, h, method, req, reply, cc, invoker, callOpts)
			}
		}
		t := trailers.Get().(*trailer)
		opts := t.opts // the trailer's option, then the caller's
		if len(callOpts) > 0 {
			opts = append(opts, callOpts...)
		}
		// The attempt calls the invoker itself, so that the interceptor's
		// frames between its caller and the invoker are two: the
		// interceptor and the attempt.
		err := p.Attempts(ctx, func(actx context.Context, a backoff.Attempt) error {
			if a.Number > 1 {
				actx = numbered(actx, a.Number)
				t.md = nil
			}
			err := invoker(actx, method, req, reply, cc, opts...)
			if err != nil {
				return c.judge(ctx, actx, err, t.md)
			}
			return nil
		})
		t.release(opts)
		if err != nil {
			return failure(ctx, err)
		}
		return nil
	}
}

// trailer is where an attempt receives the server's trailer metadata,
// and the call options it hands gRPC: grpc.Trailer(&md), and the
// caller's after it. They are kept in a pool, so that a call allocates
// neither.
type trailer struct {
	md   metadata.MD
	opts []grpc.CallOption // grpc.Trailer(&md) alone, between calls
}

var trailers = sync.Pool{New: func() any {
	t := new(trailer)
	t.opts = []grpc.CallOption{grpc.Trailer(&t.md)}
	return t
}}

// release lets go of the trailer and of the caller's options, opts, and
// puts t back in the pool.
func (t *trailer) release(opts []grpc.CallOption) {
	if len(opts) > 1 {
		clear(opts[1:])
		t.opts = opts[:1]
	}
	t.md = nil
	trailers.Put(t)
}

// numbered returns the context of attempt n, made from the attempt's
// context actx: after the first, it carries the number of previous
// attempts as PreviousAttemptsKey.
func numbered(actx context.Context, n int) context.Context {
	if n > 1 {
		return metadata.AppendToOutgoingContext(actx, PreviousAttemptsKey, strconv.Itoa(n-1))
	}
	return actx
}
