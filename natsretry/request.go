package natsretry

import (
	"context"
	"time"

	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/internal/setting"
	"github.com/herdsafe/backoff/policy"
	"github.com/nats-io/nats.go"
)

// DefaultRequestTimeout bounds each attempt of Request whose context has
// no deadline of its own: nats.go needs one to wait for a reply.
const DefaultRequestTimeout = 2 * time.Second

// Request sends data on subj over nc and returns the reply, trying again
// through p: each attempt runs inside p's stages (its retry stage, its
// guards, its timeouts), and an error that Retryable rejects is marked
// backoff.Permanent, so that p stops at it whatever classifier its retry
// stage has. Each attempt is a new request, with a new reply subject; an
// attempt whose context has no deadline (a Policy with no Timeout stage
// inside its retry stage, and a caller's context without one) is bounded
// by DefaultRequestTimeout.
//
// A request that timed out may have been served, and is sent again: send
// through Request only what the responder may receive twice.
//
// On failure the error is p's, a *backoff.Error whose Cause says why it
// stopped and whose LastErr is the last attempt's error. A nil ctx, nc or
// p is reported as backoff.ErrInvalidConfiguration (each of them, if
// several are), before anything is sent. Request is safe for concurrent use, as nc and p are.
func Request(ctx context.Context, nc *nats.Conn, p *policy.Policy, subj string, data []byte) (*nats.Msg, error) {
	return RequestMsg(ctx, nc, p, &nats.Msg{Subject: subj, Data: data})
}

// RequestMsg is Request for a message with headers: msg is sent as it is
// on every attempt, and must not be changed until RequestMsg returns.
func RequestMsg(ctx context.Context, nc *nats.Conn, p *policy.Policy, msg *nats.Msg) (*nats.Msg, error) {
	var errs [4]error
	if ctx == nil {
		errs[0] = settings.Invalid("RequestMsg was given a nil context")
	}
	if nc == nil {
		errs[1] = settings.Invalid("RequestMsg was given a nil *nats.Conn")
	}
	if p == nil {
		errs[2] = settings.Invalid("RequestMsg was given a nil *policy.Policy")
	}
	if msg == nil {
		errs[3] = settings.Invalid("RequestMsg was given a nil *nats.Msg")
	}
	if err := setting.Join(errs[:]...); err != nil {
		return nil, &backoff.Error{Cause: err}
	}
	return policy.Do(ctx, p, func(ctx context.Context) (*nats.Msg, error) {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, DefaultRequestTimeout)
			defer cancel()
		}
		reply, err := nc.RequestMsgWithContext(ctx, msg)
		if err != nil && !Retryable(err) {
			return nil, backoff.Permanent(err)
		}
		return reply, err
	})
}
