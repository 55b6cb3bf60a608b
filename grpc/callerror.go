package grpcbackoff

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/herdsafe/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// callError is the error of a call that failed through a client
// interceptor: a gRPC status error, for the code that reads it with
// status.Code or status.FromError, that unwraps to the *backoff.Error of
// the interceptor's policy, for the code that asks why the retries stopped.
type callError struct {
	st  *status.Status
	err *backoff.Error
}

// Error returns the status's message, as a gRPC status error prints it.
func (e *callError) Error() string {
	return fmt.Sprintf("rpc error: code = %s desc = %s", e.st.Code(), e.st.Message())
}

// GRPCStatus returns the call's status, for package status.
func (e *callError) GRPCStatus() *status.Status { return e.st }

// Unwrap returns the *backoff.Error.
func (e *callError) Unwrap() error { return e.err }

// Format prints Error() for %s and %v, and the *backoff.Error's account
// (attempts, time, cause) for %+v.
func (e *callError) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('+') {
		fmt.Fprintf(f, "%+v", e.err)
		return
	}
	_, _ = io.WriteString(f, e.Error())
}

// failure returns the error a call reports for err, the error of the
// interceptor's policy (or of hedge.Do) that ran it with the caller's
// context ctx. Its status is the last attempt's, as gRPC's own retries
// return it; for a call that made no attempt it is the context's
// (CANCELLED, DEADLINE_EXCEEDED), UNAVAILABLE for a guard's refusal,
// INTERNAL for an invalid configuration, and UNKNOWN for anything else, as
// package status converts an error it does not know.
func failure(ctx context.Context, err error) error {
	be, ok := err.(*backoff.Error)
	if !ok {
		be = &backoff.Error{Cause: backoff.ErrExhausted, LastErr: err, Attempts: 1}
	}
	why := backoff.MarksOf(be.Cause)
	giveUp(ctx, be, why)
	st := statusOf(be.LastErr)
	switch {
	case st != nil:
	case errors.Is(be.Cause, backoff.ErrInvalidConfiguration):
		st = status.New(codes.Internal, be.Cause.Error())
	case ctx.Err() != nil && be.LastErr == nil:
		st = status.FromContextError(ctx.Err())
	case why.Refused:
		st = status.New(codes.Unavailable, be.Cause.Error())
	case be.LastErr != nil:
		st = status.New(codes.Unknown, be.LastErr.Error())
	default:
		st = status.New(codes.Unknown, be.Cause.Error())
	}
	return &callError{st: st, err: be}
}

// invalid returns the error of a call that cannot be made: err, matching
// backoff.ErrInvalidConfiguration, as the Cause.
func invalid(err error) error {
	return &callError{st: status.New(codes.Internal, err.Error()), err: &backoff.Error{Cause: err}}
}
