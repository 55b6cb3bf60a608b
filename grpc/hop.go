package grpcbackoff

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/hop"
	"github.com/herdsafe/backoff/internal/typednil"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// DefaultRetryPressure is the guard's pressure (pushback.Pressure) at
// which the server interceptors start to shed retries; see
// WithRetryPressure.
const DefaultRetryPressure = 0.8

// stopPushback is the grpc-retry-pushback-ms value that asks for no retry
// at all (gRFC A6: a negative value).
const stopPushback = "-1"

// realClock is the clock of a server given none.
var realClock = clock.New()

// WithRetryPressure sets the guard's pressure (pushback.Pressure: a
// bulkhead's or a limiter's (in flight + queued) ÷ capacity, 1 for a
// throttle that rejects or a breaker that is not closed) at which the
// server interceptors refuse retries, calls whose
// grpc-previous-rpc-attempts is above 0, before asking the guard, while
// they still admit first calls, so that a retry never takes a place a
// first call needs. Such a call is answered with the shed code and a
// grpc-retry-pushback-ms of -1: no retry, by this package's clients and by
// gRPC's own. The default is DefaultRetryPressure; +Inf leaves retries to
// the guard alone. A value not above 0, or NaN, is invalid.
func WithRetryPressure(p float64) ServerOption {
	return func(s *shedder) {
		if !(p > 0) {
			s.fail("WithRetryPressure(%v): the pressure at which retries are shed must be above 0 (+Inf sheds none)", p)
			return
		}
		s.pressure = p
	}
}

// WithShedClock makes the server interceptors measure the time calls
// wait for the guard on c instead of the time package. (The time left
// until a call's deadline is read on the time package's clock, on which
// gRPC sets the deadline.) Pass a *clock.Mock in a test. A nil c, typed
// or not, is invalid.
func WithShedClock(c clock.Clock) ServerOption {
	return func(s *shedder) {
		if c == nil || typednil.Is(c) {
			s.fail("WithShedClock was given a nil clock")
			return
		}
		s.clock = c
	}
}

// refuse answers, before the guard is asked, a call the server will not
// serve: a retry under pressure, or a call whose caller will not wait for
// the guard's queue (its deadline is sooner than the queue's time). It
// returns nil for a call that goes on to the guard.
func (s *shedder) refuse(ctx context.Context, call guard.Call, setTrailer func(metadata.MD) error) error {
	timeout, has := time.Duration(0), false
	if d, ok := ctx.Deadline(); ok {
		timeout, has = time.Until(d), true // gRPC sets it on the time package's clock
	}
	reason := s.gate.Refuse(call.Attempt, timeout, has)
	if reason == "" {
		return nil
	}
	_ = setTrailer(metadata.Pairs(PushbackKey, stopPushback))
	return status.Error(s.code, "grpcbackoff: call refused before the handler ("+reason+"): do not retry")
}

// gaveUp sets the trailer that asks for no retry on a call whose handler
// failed (err) after its calls to the tier below gave up (see package
// hop): the tier above then does not retry on top of this tier's retries.
// (A pushback the handler set too makes two values, which clients read
// as no retry as well.)
func (s *shedder) gaveUp(tier *hop.Tier, err error, setTrailer func(metadata.MD) error) {
	if err == nil {
		return
	}
	if _, ok := tier.Reason(); ok {
		_ = setTrailer(metadata.Pairs(PushbackKey, stopPushback))
	}
}

// trackedStream is a server stream whose context carries the call's
// hop.Tier.
type trackedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (t *trackedStream) Context() context.Context { return t.ctx }

// giveUp tells the tier the caller's context carries, if any (see package
// hop), that a call to the tier below gave up: after retrying, on a
// pushback that asked for no retry, or on a guard's refusal. be is what
// the interceptor's policy returned, why the marks of its Cause; a call
// whose own context ended says nothing.
func giveUp(ctx context.Context, be *backoff.Error, why backoff.Marks) {
	switch {
	case ctx.Err() != nil:
	case why.CancelAll:
		hop.GiveUp(ctx, hop.ReasonExhausted)
	case why.Refused:
		hop.GiveUp(ctx, hop.ReasonOverloaded)
	case be.Attempts > 1 && !why.Permanent:
		hop.GiveUp(ctx, hop.ReasonExhausted)
	}
}
