package httpretry

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/herdsafe/backoff"
)

// LogKeyStatus is the attribute WithLogger adds to a record about an
// attempt that got a response: the response's status code.
const LogKeyStatus = "http.status"

// AttemptStatus returns the status code of the response an attempt got,
// and true; or 0 and false if the attempt got no response (it failed with a
// transport error, or has not ended yet), or if ctx is not an attempt's
// context.
//
// An Instrumenter given to WithInstrumenter calls it in AfterAttempt, with
// the context it receives there, to learn the status of every attempt,
// including the last one of a request, whose State.Err is nil when its
// response was not retryable (a 200 or a 404, say). It works with the
// context BeforeAttempt was given too, or any context derived from either,
// once the attempt has ended. Each attempt has a context of its own, so a
// context kept from one attempt keeps that attempt's status.
//
// It is safe to call from any goroutine.
func AttemptStatus(ctx context.Context) (int, bool) {
	if ctx == nil {
		return 0, false
	}
	a, _ := ctx.Value(statusKey{}).(*attemptContext)
	if a == nil {
		return 0, false
	}
	v := a.status.Load()
	return int(int32(uint32(v))), v != 0
}

// statusKey is the context key of an attempt's *attemptContext.
type statusKey struct{}

// attemptContext is the context of one attempt: its parent, and the status
// of the response the attempt got. It is one allocation an attempt; its
// Done, Err and Deadline are its parent's, so contexts derived from it
// are cancelled with its parent without a goroutine of their own.
type attemptContext struct {
	context.Context
	status atomic.Uint64 // 0: none; else haveStatus | the code
}

// haveStatus marks a recorded status, so that any code, even 0, can be told
// from none.
const haveStatus = 1 << 63

func (a *attemptContext) Value(key any) any {
	if _, ok := key.(statusKey); ok {
		return a
	}
	return a.Context.Value(key)
}

// recordStatus records code as the status of the attempt whose context is
// ctx, or of which ctx is derived.
func recordStatus(ctx context.Context, code int) {
	if a, _ := ctx.Value(statusKey{}).(*attemptContext); a != nil {
		a.status.Store(haveStatus | uint64(uint32(int32(code))))
	}
}

// statusSlot is the first Instrumenter of a Transport's retry stage when
// an Instrumenter or the logger reads AttemptStatus: it gives each attempt
// its attemptContext, which the attempt records its status in, and which
// every later Instrumenter, and the logger, receives or derives from.
type statusSlot struct{}

func (statusSlot) BeforeAttempt(ctx context.Context, _ backoff.State) context.Context {
	return &attemptContext{Context: ctx}
}

func (statusSlot) AfterAttempt(context.Context, backoff.State) {}

// statusHandler adds the attempt's status, from the record's context, to
// the records of a logger given to WithLogger.
type statusHandler struct{ h slog.Handler }

func (s *statusHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return s.h.Enabled(ctx, l)
}

func (s *statusHandler) Handle(ctx context.Context, r slog.Record) error {
	if code, ok := AttemptStatus(ctx); ok {
		r = r.Clone()
		r.AddAttrs(slog.Int(LogKeyStatus, code))
	}
	return s.h.Handle(ctx, r)
}

func (s *statusHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &statusHandler{h: s.h.WithAttrs(attrs)}
}

func (s *statusHandler) WithGroup(name string) slog.Handler {
	return &statusHandler{h: s.h.WithGroup(name)}
}
