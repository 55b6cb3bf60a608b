package grpcbackoff

import (
	"slices"

	"github.com/herdsafe/backoff"
	"google.golang.org/grpc/codes"
)

// Codes returns a classifier of errors that reports whether err is a
// failure of the kind gRFC A6 counts against a server: its gRPC status
// code, found anywhere in its chain, is one of cs, or it is a server's
// pushback asking for no retry (it matches backoff.ErrRetriesCanceled).
// Other errors, an INVALID_ARGUMENT say, tell nothing of the server's
// health.
//
// It is the classifier the guards take: for gRFC A6's retry throttling,
// budget.NewTokenBucket(budget.WithIsFailure(Codes(codes.Unavailable))),
// with the codes the interceptor retries; for a breaker,
// breaker.WithIsFailure; for the attempts of a hedged method,
// hedge.WithRetryable, whose accepted errors start the next hedge at once
// (gRFC A6's non-fatal codes). It is safe for concurrent use, and
// allocates nothing for an error that carries a status directly.
func Codes(cs ...codes.Code) func(error) bool {
	var set uint32
	var other []codes.Code // codes beyond those gRPC defines, which a server may still send
	for _, c := range cs {
		if c <= lastCode {
			set |= 1 << c
		} else {
			other = append(other, c)
		}
	}
	in := func(code codes.Code) bool {
		if code <= lastCode {
			return set&(1<<code) != 0
		}
		return slices.Contains(other, code)
	}
	return func(err error) bool {
		if err == nil {
			return false
		}
		if gs, ok := err.(grpcStatus); ok {
			if in(gs.GRPCStatus().Code()) {
				return true
			}
		} else if in(codeOf(err)) {
			return true
		}
		return backoff.MarksOf(err).CancelAll
	}
}
