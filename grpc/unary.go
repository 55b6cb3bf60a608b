package grpcbackoff

import (
	"context"
	"strconv"
	"sync"

	"github.com/herdsafe/backoff/policy"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// UnaryClientInterceptor returns an interceptor that runs each unary call
// through the Policy p, as configured by opts: each attempt is the rest of
// the interceptor chain, called with the attempt's context, and the
// Policy's retry stage makes another while the attempts fail with a status
// code that is safe to retry, as the package documentation says. Build p
// once and share it, as any Policy: its guards then see every call of
// the ClientConn.
//
// A call that succeeds returns nil. A call that fails returns an error
// that carries the gRPC status of its last attempt, its code, message and
// details unchanged, as gRPC's own retries return it: status.Code(err) is
// what it was without the interceptor. A call refused before any attempt
// carries UNAVAILABLE, with the refusal's message (a breaker open, a
// bulkhead full: errors.Is finds which); one whose context ended first
// carries the context's code; a misconfigured interceptor or Policy
// INTERNAL. The error unwraps to the Policy's *backoff.Error (errors.As),
// whose Cause says why the retries stopped, and %+v prints its account.
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
// The interceptor is safe for concurrent use. A nil p, or an invalid
// option, makes every call fail with INTERNAL before anything is sent.
func UnaryClientInterceptor(p *policy.Policy, opts ...Option) grpc.UnaryClientInterceptor {
	c := newConfig("UnaryClientInterceptor", p, opts)
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts ...grpc.CallOption) error {
		if c.err != nil {
			return invalid(c.err)
		}
		if h := c.hedged[method]; h != nil {
			return c.hedge(ctx, h, method, req, reply, cc, invoker, callOpts)
		}
		n := 0
		err := c.policy.DoErr(ctx, func(actx context.Context) error {
			n++
			return c.attempt(ctx, actx, n, method, req, reply, cc, invoker, callOpts)
		})
		if err != nil {
			return failure(ctx, err)
		}
		return nil
	}
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

// attempt makes attempt n of a unary call whose caller's context is ctx,
// with the attempt's context actx, and judges its error.
func (c *config) attempt(ctx, actx context.Context, n int, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts []grpc.CallOption) error {
	actx = numbered(actx, n)
	a := attempts.Get().(*unaryAttempt)
	a.opts = append(append(a.opts[:0], callOpts...), grpc.Trailer(&a.trailer))
	err := invoker(actx, method, req, reply, cc, a.opts...)
	if err != nil {
		err = c.judge(ctx, actx, err, a.trailer)
	}
	clear(a.opts)
	a.trailer = nil
	attempts.Put(a)
	return err
}

// unaryAttempt is what an attempt hands gRPC: the call's options and one
// more, to receive the trailer. They are kept in a pool, so that a call
// allocates neither.
type unaryAttempt struct {
	trailer metadata.MD
	opts    []grpc.CallOption
}

var attempts = sync.Pool{New: func() any { return new(unaryAttempt) }}
