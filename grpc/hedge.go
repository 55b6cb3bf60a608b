package grpcbackoff

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/hedge"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// hedge makes a unary call of a hedged method: hedge.Do with the method's
// Hedger, each attempt through the method's inner Policy, with a reply
// message of its own, and the winner's reply merged into the caller's.
func (c *config) hedge(ctx context.Context, h *hedging, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, callOpts []grpc.CallOption) error {
	out, ok := reply.(proto.Message)
	if !ok || !out.ProtoReflect().IsValid() {
		return invalid(fmt.Errorf("%w: grpcbackoff.WithHedging: the reply of %s is a %T, not a proto.Message: its attempts cannot have a reply each", backoff.ErrInvalidConfiguration, method, reply))
	}
	var started atomic.Int32
	op := hedge.Idempotent(func(actx context.Context) (proto.Message, error) {
		r := out.ProtoReflect().New().Interface()
		return r, c.attempt(ctx, actx, int(started.Add(1)), method, req, r, cc, invoker, callOpts)
	})
	won, err := hedge.Do(ctx, h.h, h.inner, op)
	if err != nil {
		return failure(ctx, err)
	}
	proto.Reset(out)
	proto.Merge(out, won)
	return nil
}
