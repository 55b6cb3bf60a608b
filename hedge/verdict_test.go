package hedge

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/herdsafe/backoff"
)

// cancelAll is a Pushback that asks for no further attempt.
type cancelAll struct{}

func (cancelAll) Error() string             { return "quota exhausted" }
func (cancelAll) RetryAfter() time.Duration { return 0 }
func (cancelAll) CancelAllRetries() bool    { return true }

// refuser is a Guard that refuses every call with err.
type refuser struct{ err error }

func (g refuser) Allow(context.Context, backoff.Call) (backoff.Permit, error) {
	return backoff.Permit{}, g.err
}

func (refuser) Record(backoff.Permit, backoff.Outcome) {}

// Some errors end the call at once without any classifier, as they stop a
// retry stage at once; the others leave the attempts in flight going.
func TestFatalWithoutClassifier(t *testing.T) {
	base := errors.New("bad request")
	errOpen := errors.New("circuit open")
	retry2 := backoff.WithRetry(backoff.WithMaxTries(2), backoff.WithBackOff(&backoff.ZeroBackOff{}))
	cases := []struct {
		name  string
		inner *backoff.Policy
		err   error
		cause error // nil: not fatal
	}{
		{"plain", nil, errTransient, nil},
		{"permanent", nil, backoff.Permanent(base), backoff.ErrPermanent},
		{"wrapped_permanent", nil, errors.Join(errTransient, backoff.Permanent(base)), backoff.ErrPermanent},
		{"pushback_cancels", nil, cancelAll{}, backoff.ErrRetriesCanceled},
		{"retry_after", nil, backoff.RetryAfter(time.Second, base), nil},
		{"inner_exhausted", backoff.NewPolicy(retry2), errTransient, nil},
		{"inner_permanent", backoff.NewPolicy(retry2), backoff.Permanent(base), backoff.ErrPermanent},
		{"inner_canceled", backoff.NewPolicy(retry2), cancelAll{}, backoff.ErrRetriesCanceled},
		{"inner_refusal", backoff.NewPolicy(retry2, backoff.WithGuard(refuser{errOpen})), errTransient, errOpen},
		{"inner_invalid", backoff.NewPolicy(backoff.WithTimeout(-1)), errTransient, backoff.ErrInvalidConfiguration},
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
				done := goExecute(ctx, New(WithDelay(delay), WithMaxAttempts(3), WithClock(clk)), c.inner, op)
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
		if backoff.IsPermanent(c.err) && len(asked) != 0 {
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
		done := goExecute(context.Background(), h, nil, s.op())
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
