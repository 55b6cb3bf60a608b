package hedge

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
	"github.com/herdsafe/backoff/guard"
	"github.com/herdsafe/backoff/policy"
)

// errCancelAll asks for no further attempt, as the other end's "quota
// exhausted" would.
var errCancelAll = fmt.Errorf("%w: quota exhausted", backoff.ErrRetriesCanceled)

// okErrFn is a function that succeeds.
func okErrFn(context.Context) error { return nil }

// refuser is a Guard that refuses every call with err.
type refuser struct{ err error }

func (g refuser) Allow(context.Context, guard.Call) (guard.Permit, error) {
	return guard.Permit{}, g.err
}

func (refuser) Record(guard.Permit, guard.Outcome) {}

// Some errors end the call at once without any classifier, as they stop a
// retry stage at once; the others leave the attempts in flight going.
func TestFatalWithoutClassifier(t *testing.T) {
	base := errors.New("bad request")
	errOpen := errors.New("circuit open")
	retry2 := policy.Retry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	cases := []struct {
		name  string
		inner *policy.Policy
		err   error
		cause error // nil: not fatal
	}{
		{"plain", nil, errTransient, nil},
		{"permanent", nil, backoff.Permanent(base), backoff.ErrPermanent},
		{"wrapped_permanent", nil, errors.Join(errTransient, backoff.Permanent(base)), backoff.ErrPermanent},
		{"retries_canceled", nil, errCancelAll, backoff.ErrRetriesCanceled},
		{"refusal", nil, guard.Run(context.Background(), refuser{errOpen}, guard.Call{Attempt: 1}, okErrFn), errOpen},
		{"retry_after", nil, backoff.RetryAfter(time.Second, base), nil},
		{"inner_exhausted", policy.New(retry2), errTransient, nil},
		{"inner_permanent", policy.New(retry2), backoff.Permanent(base), backoff.ErrPermanent},
		{"inner_canceled", policy.New(retry2), errCancelAll, backoff.ErrRetriesCanceled},
		{"inner_refusal", policy.New(retry2, policy.Guard(refuser{errOpen})), errTransient, errOpen},
		{"inner_invalid", policy.New(policy.Timeout(-1)), errTransient, backoff.ErrInvalidConfiguration},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := clock.NewMock()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var calls atomic.Int32
				op := Idempotent(func(ctx context.Context) (string, error) {
					if calls.Add(1) <= 2 { // the first attempt, and its inner retry
						return "", c.err
					}
					<-ctx.Done()
					return "", ctx.Err()
				})
				done := goDo(ctx, New(WithDelay(delay), WithMaxAttempts(3), WithClock(clk)), c.inner, op)
				synctest.Wait()
				if c.cause == nil {
					pending(t, done)
					cancel()
					<-done
					return
				}
				select {
				case o := <-done:
					if e := asError(t, o.err); !errors.Is(e.Cause, c.cause) || e.Attempts != 1 || e.LastErr == nil {
						t.Errorf("err = %+v, want Cause %v after 1 attempt, with its error", e, c.cause)
					}
				default:
					t.Fatal("the call goes on after a fatal error")
				}
			})
		})
	}
}

// A classifier is asked only about errors that are not fatal anyway, and
// several add up.
func TestClassifiers(t *testing.T) {
	var asked []error
	h := New(WithDelay(delay),
		WithRetryable(func(err error) bool { asked = append(asked, err); return errors.Is(err, errTransient) }),
		WithRetryable(func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }))
	cases := []struct {
		err   error
		cause error
		now   bool
	}{
		{errTransient, nil, true},
		{context.DeadlineExceeded, nil, true},
		{errFatal, backoff.ErrPermanent, false},
		{backoff.Permanent(errTransient), backoff.ErrPermanent, false},
	}
	for _, c := range cases {
		asked = nil
		cause, now := h.verdict(c.err)
		if cause != c.cause || now != c.now {
			t.Errorf("verdict(%v) = (%v, %v), want (%v, %v)", c.err, cause, now, c.cause, c.now)
		}
		if errors.Is(c.err, backoff.ErrPermanent) && len(asked) != 0 {
			t.Errorf("the classifier was asked about a permanent error")
		}
	}
}

// A classifier that panics: the panic goes on to the caller, the attempts
// in flight are cancelled, and one that succeeds after has its result
// discarded rather than stranded.
func TestClassifierPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newScript()
		s.ignoreCtx = true
		var discarded []string
		h := New(WithDelay(0), WithMaxAttempts(2),
			WithRetryable(func(error) bool { panic("classifier") }),
			WithDiscard(func(v string) { discarded = append(discarded, v) }))
		done := goDo(context.Background(), h, nil, s.op())
		synctest.Wait()
		s.answer(1, "", errTransient)
		if o := <-done; o.panic != "classifier" {
			t.Fatalf("outcome %+v, want the classifier's panic", o)
		}
		if cause := context.Cause(s.ctx(2)); cause != ErrCanceled {
			t.Errorf("the attempt in flight: cause %v, want ErrCanceled", cause)
		}
		s.answer(2, "late", nil)
		synctest.Wait()
		if len(discarded) != 1 || discarded[0] != "late" {
			t.Errorf("discarded %q, want [late]", discarded)
		}
	})
}
