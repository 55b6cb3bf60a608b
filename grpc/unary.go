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
		u := unaryCalls.Get().(*unaryCall)
		u.c, u.ctx, u.method, u.req, u.reply, u.cc, u.invoker = c, ctx, method, req, reply, cc, invoker
		u.opts = append(append(u.opts, callOpts...), u.trailerOpt)
		err := p.Attempts(ctx, u.attempt)
		u.release()
		if err != nil {
			return failure(ctx, err)
		}
		return nil
	}
}

// unaryCall is a unary call in flight: what its attempts hand gRPC (the
// call's options and one more, to receive the trailer) and the function
// the retry stage runs for each attempt. Calls are kept in a pool, so that
// a call allocates none of it.
type unaryCall struct {
	c       *config
	ctx     context.Context // the caller's
	method  string
	req     any
	reply   any
	cc      *grpc.ClientConn
	invoker grpc.UnaryInvoker

	trailer    metadata.MD
	trailerOpt grpc.CallOption // grpc.Trailer(&trailer)
	opts       []grpc.CallOption
	attempt    func(context.Context, backoff.Attempt) error // made once, with the call
}

var unaryCalls = sync.Pool{New: func() any { return newUnaryCall() }}

func newUnaryCall() *unaryCall {
	u := new(unaryCall)
	u.trailerOpt = grpc.Trailer(&u.trailer)
	// The attempt calls the invoker itself, so that the interceptor's frames
	// between its caller and the invoker are two: the interceptor and this.
	u.attempt = func(actx context.Context, a backoff.Attempt) error {
		if a.Number > 1 {
			actx = numbered(actx, a.Number)
			u.trailer = nil
		}
		err := u.invoker(actx, u.method, u.req, u.reply, u.cc, u.opts...)
		if err != nil {
			return u.c.judge(u.ctx, actx, err, u.trailer)
		}
		return nil
	}
	return u
}

// release lets go of what the call held and puts it back in the pool.
func (u *unaryCall) release() {
	clear(u.opts)
	u.opts = u.opts[:0]
	u.c, u.ctx, u.req, u.reply, u.cc, u.invoker, u.trailer = nil, nil, nil, nil, nil, nil, nil
	unaryCalls.Put(u)
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
