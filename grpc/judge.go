package grpcbackoff

import (
	"context"
	"errors"
	"fmt"

	"github.com/herdsafe/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcStatus is what a gRPC status error implements, as package status
// finds it.
type grpcStatus interface{ GRPCStatus() *status.Status }

// statusOf returns the gRPC status err carries, anywhere in its chain, as
// the error that carries it made it (status.FromError would rewrite its
// message to the whole chain's); nil if it carries none.
func statusOf(err error) *status.Status {
	var gs grpcStatus
	if errors.As(err, &gs) {
		return gs.GRPCStatus()
	}
	return nil
}

// codeOf returns the status code err carries, Unknown if it carries none,
// as package status reads it.
func codeOf(err error) codes.Code {
	if st := statusOf(err); st != nil {
		return st.Code()
	}
	return codes.Unknown
}

// judge turns the error of a failed attempt into what the interceptor's
// retry stage should make of it: the error itself to retry it, a
// backoff.RetryAfter for the server's pushback, an error matching
// backoff.ErrRetriesCanceled when the server asks for no retry, or a
// backoff.Permanent error to stop. ctx is the caller's context, actx the
// attempt's; trailer is the attempt's trailer metadata, nil if it has none.
func (c *config) judge(ctx, actx context.Context, err error, trailer metadata.MD) error {
	code := codeOf(err)
	// The server's pushback comes first, whatever the code, as in gRPC.
	if vals, ok := trailer[PushbackKey]; ok {
		d, ok := parsePushback(vals)
		switch {
		case !ok:
			return fmt.Errorf("%w: the server's %s %q asks for no retry: %w", backoff.ErrRetriesCanceled, PushbackKey, vals, err)
		case d > c.maxPushback:
			return fmt.Errorf("%w: %w: the server's %s %v is longer than WithMaxPushback's %v: %w", backoff.ErrRetriesCanceled, backoff.ErrRetryAfterTooLong, PushbackKey, d, c.maxPushback, err)
		case c.retries(code):
			return backoff.RetryAfter(d, err)
		}
		return backoff.Permanent(err)
	}
	switch {
	case code == codes.Canceled:
		return backoff.Permanent(err)
	case code == codes.DeadlineExceeded:
		if ctx.Err() == nil && (ownDeadline(ctx, actx) || c.retries(code)) {
			return err
		}
		return backoff.Permanent(err)
	case c.retries(code):
		return err
	}
	return backoff.Permanent(err)
}

// ownDeadline reports whether the attempt's context has a deadline of its
// own, sooner than the caller's: a Timeout stage inside the retry stage,
// whose expiry is the attempt's failure, not the call's.
func ownDeadline(ctx, actx context.Context) bool {
	ad, ok := actx.Deadline()
	if !ok {
		return false
	}
	cd, ok := ctx.Deadline()
	return !ok || ad.Before(cd)
}
