package grpcbackoff

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/hedge"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// hedge makes a unary call of a hedged method: hedge.Do with the method's
// Hedger, inside the call guards, each attempt inside the attempt guards
// and timeout, with a reply message of its own, and the winner's reply
// merged into the caller's.
func (c *config) hedge(ctx context.Context, h *hedge.Hedger, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts []grpc.CallOption) error {
	out, ok := reply.(proto.Message)
	if !ok || !out.ProtoReflect().IsValid() {
		return invalid(fmt.Errorf("%w: grpcbackoff.WithHedging: the reply of %s is a %T, not a proto.Message: its attempts cannot have a reply each", backoff.ErrInvalidConfiguration, method, reply))
	}
	// hedge.Do hands its attempts no number: they are counted here, for
	// grpc-previous-rpc-attempts.
	var started atomic.Int32
	op := hedge.Idempotent(func(actx context.Context) (proto.Message, error) {
		r := out.ProtoReflect().New().Interface()
		actx = numbered(actx, int(started.Add(1)))
		var trailer metadata.MD
		err := invoker(actx, method, req, r, cc, append(callOpts[:len(callOpts):len(callOpts)], grpc.Trailer(&trailer))...)
		if err != nil {
			return r, c.judge(ctx, actx, err, trailer)
		}
		return r, nil
	})
	var won proto.Message
	var err error
	if c.hedgeCall == nil {
		won, err = hedge.Do(ctx, h, c.hedgeAttempt, op)
	} else {
		err = c.hedgeCall.Attempts(ctx, func(ctx context.Context, _ backoff.Attempt) error {
			var err error
			won, err = hedge.Do(ctx, h, c.hedgeAttempt, op)
			return err
		})
	}
	if err != nil {
		return failure(ctx, err)
	}
	proto.Reset(out)
	proto.Merge(out, won)
	return nil
}
