package hop

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/herdsafe/backoff"
)

// The HTTP headers of a hop (see the package documentation).
const (
	// AttemptHeader carries the attempt's number, from 1: a request with
	// a number above 1 is a retry.
	AttemptHeader = "X-Attempt-Count"
	// TimeoutHeader carries the time the caller will still wait for the
	// attempt when it is sent, in whole milliseconds, rounded down.
	TimeoutHeader = "X-Request-Timeout-Ms"
	// StopHeader, on a response, asks the client not to retry the call.
	StopHeader = "X-Do-Not-Retry"
	// EnvoyOverloadedHeader is the header an Envoy proxy sets on the
	// responses it sheds; Envoy does not retry a response that carries it,
	// and neither does httpretry.
	EnvoyOverloadedHeader = "X-Envoy-Overloaded"
)

// The reasons a tier gives for "do not retry", the value of StopHeader.
const (
	// ReasonExhausted: the tier's own retries of the tier below are spent,
	// or the tier below said not to retry.
	ReasonExhausted = "exhausted"
	// ReasonOverloaded: the tier sheds retries, or a guard of its own (a
	// breaker, a retry budget) refused its call to the tier below.
	ReasonOverloaded = "overloaded"
	// ReasonDeadline: the tier's queue is longer than the caller will
	// wait, so it refused the request without working on it.
	ReasonDeadline = "deadline"
)

// ErrDoNotRetry is matched (with errors.Is) by the error of an attempt
// whose response said not to retry: a client stops at once. It matches
// backoff.ErrRetriesCanceled too, so the retry driver's Cause says that
// the other end asked for no further attempt.
var ErrDoNotRetry error = &stopError{}

type stopError struct{}

func (*stopError) Error() string { return "backoff: the server said not to retry" }

// Is reports that ErrDoNotRetry matches backoff.ErrRetriesCanceled.
func (*stopError) Is(target error) bool { return target == backoff.ErrRetriesCanceled }

// Caller is what a request tells of its caller.
type Caller struct {
	// Attempt is the request's attempt number, from 1; 1 when the request
	// does not say.
	Attempt int
	// Timeout is the time the caller still waited for the request when
	// it sent it, if HasTimeout.
	Timeout    time.Duration
	HasTimeout bool
}

// Retry reports whether the request is a retry of the caller's call.
func (c Caller) Retry() bool { return c.Attempt > 1 }

// maxTimeout bounds the TimeoutHeader read: a value past it (about 24.8
// days, the limit gRPC's timeouts also keep within) is taken as no
// deadline, so that a hostile value cannot overflow a Duration.
const maxTimeout = 1<<31 - 1

// ReadHeader reads what the headers h of a request tell of its caller. A
// missing, malformed, negative or absurdly large value tells nothing: the
// request is then a first attempt, with no deadline. It allocates
// nothing.
func ReadHeader(h http.Header) Caller {
	c := Caller{Attempt: 1}
	if n, ok := number(h[AttemptHeader]); ok && n >= 1 {
		c.Attempt = int(n)
	}
	if n, ok := number(h[TimeoutHeader]); ok {
		c.Timeout, c.HasTimeout = time.Duration(n)*time.Millisecond, true
	}
	return c
}

// number parses the single value of a header as a non-negative integer of
// at most 31 bits.
func number(vals []string) (int64, bool) {
	if len(vals) != 1 {
		return 0, false
	}
	n, err := strconv.ParseInt(vals[0], 10, 32)
	if err != nil || n < 0 || n > maxTimeout {
		return 0, false
	}
	return n, true
}

// WriteHeader sets the headers of a request about to be sent, h, for
// what c says: AttemptHeader, and, if c.HasTimeout, TimeoutHeader, in
// whole milliseconds, rounded down, 0 for a timeout that has passed, at
// most about 24.8 days. Values already in h are replaced, or removed.
func WriteHeader(h http.Header, c Caller) {
	h[AttemptHeader] = []string{strconv.Itoa(max(c.Attempt, 1))}
	if !c.HasTimeout {
		delete(h, TimeoutHeader)
		return
	}
	ms := min(max(c.Timeout.Milliseconds(), 0), maxTimeout)
	h[TimeoutHeader] = []string{strconv.FormatInt(ms, 10)}
}

// Stopped returns the reason a response's headers h ask for no retry, and
// whether they do: StopHeader's value ("" if it has none) or, for Envoy's
// header, ReasonOverloaded.
func Stopped(h http.Header) (string, bool) {
	if v, ok := h[StopHeader]; ok {
		if len(v) == 0 {
			return "", true
		}
		return v[0], true
	}
	if _, ok := h[EnvoyOverloadedHeader]; ok {
		return ReasonOverloaded, true
	}
	return "", false
}

// Tier is the state of one request a tier serves: whether its calls to
// the tier below gave up, and why. The server's middleware makes it
// (Track) and reads it (Reason) once the handler answers; clients mark it
// (GiveUp). It is safe for concurrent use: a handler may call the tier
// below from several goroutines.
type Tier struct {
	reason atomic.Pointer[string]
}

type tierKey struct{}

// Track returns a context derived from ctx that carries t, so that the
// clients a handler calls the tier below with, given that context or one
// derived from it, can mark it. A nil t returns ctx.
func Track(ctx context.Context, t *Tier) context.Context {
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, tierKey{}, t)
}

// GiveUp marks the Tier that ctx carries, if any, with reason: the
// request it serves will be answered "do not retry" if it fails. The
// first reason given is kept. It allocates nothing when ctx carries no
// Tier.
func GiveUp(ctx context.Context, reason string) {
	if ctx == nil {
		return
	}
	if t, _ := ctx.Value(tierKey{}).(*Tier); t != nil {
		t.giveUp(reason)
	}
}

// giveUp keeps reason, unless the Tier has one.
func (t *Tier) giveUp(reason string) { t.reason.CompareAndSwap(nil, &reason) }

// Reason returns the reason the Tier was given up with, and whether it
// was. A nil Tier was not.
func (t *Tier) Reason() (string, bool) {
	if t == nil {
		return "", false
	}
	if r := t.reason.Load(); r != nil {
		return *r, true
	}
	return "", false
}

// Reset forgets the reason, for a Tier that is reused.
func (t *Tier) Reset() { t.reason.Store(nil) }
