package backoff

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

var (
	errSpecTransient = errors.New("connection reset")
	errSpecOther     = errors.New("malformed request")
	errSpecThird     = errors.New("service unavailable")
)

// specTempError is an error type a classifier looks for with errors.As.
type specTempError struct{ op string }

func (e *specTempError) Error() string { return e.op + ": temporary failure" }

// The classifier matrix, each cell run with a finite attempt budget and
// with none (MaxTries 0, MaxElapsedTime 0): the two modes classify alike.
// An operation fails twice with the error under test, then succeeds; a
// retried error therefore ends in success after three attempts, a rejected
// one in ErrPermanent after one.
func TestClassifierMatrix(t *testing.T) {
	classifiers := []struct {
		name string
		opt  RetryOption // nil: no classifier
	}{
		{"none", nil},
		{"WithRetryable", WithRetryable(func(err error) bool {
			return errors.Is(err, errSpecTransient) || errors.As(err, new(*specTempError))
		})},
		{"Is", WithRetryable(func(err error) bool {
			return errors.Is(err, errSpecTransient) || errors.Is(err, errSpecThird)
		})},
		{"As", WithRetryable(func(err error) bool { return errors.As(err, new(*specTempError)) })},
	}
	errs := []struct {
		name string
		err  error
		// retried says, per classifier name, whether the error is retried.
		retried map[string]bool
	}{
		{"transient", errSpecTransient, map[string]bool{"none": true, "WithRetryable": true, "Is": true, "As": false}},
		{"wrapped transient", fmt.Errorf("dial: %w", errSpecTransient), map[string]bool{"none": true, "WithRetryable": true, "Is": true, "As": false}},
		{"second errors.Is target", errSpecThird, map[string]bool{"none": true, "WithRetryable": false, "Is": true, "As": false}},
		{"typed", &specTempError{"read"}, map[string]bool{"none": true, "WithRetryable": true, "Is": false, "As": true}},
		{"wrapped typed", fmt.Errorf("query: %w", &specTempError{"read"}), map[string]bool{"none": true, "WithRetryable": true, "Is": false, "As": true}},
		{"other", errSpecOther, map[string]bool{"none": true, "WithRetryable": false, "Is": false, "As": false}},
		{"joined", errors.Join(errSpecOther, errSpecTransient), map[string]bool{"none": true, "WithRetryable": true, "Is": true, "As": false}},
		{"foreign context.Canceled", context.Canceled, map[string]bool{"none": true, "WithRetryable": false, "Is": false, "As": false}},
		{"Permanent transient", Permanent(errSpecTransient), map[string]bool{}},
		{"wrapped Permanent typed", fmt.Errorf("x: %w", Permanent(&specTempError{"read"})), map[string]bool{}},
	}
	budgets := []struct {
		name string
		opts []RetryOption
	}{
		{"finite", []RetryOption{WithMaxTries(5)}},
		{"unlimited", []RetryOption{WithMaxTries(0), WithMaxElapsedTime(0)}},
	}
	for _, c := range classifiers {
		for _, e := range errs {
			for _, b := range budgets {
				t.Run(c.name+"/"+e.name+"/"+b.name, func(t *testing.T) {
					op := specScript(func(n int) (int, error) {
						if n <= 2 {
							return n, e.err
						}
						return 100, nil
					})
					opts := append([]RetryOption{WithBackOff(&ZeroBackOff{})}, b.opts...)
					if c.opt != nil {
						opts = append(opts, c.opt)
					}
					var n specNotify
					opts = append(opts, WithNotify(n.Notify))
					v, err := Retry(op.Run, opts...)
					if e.retried[c.name] {
						if err != nil || v != 100 || op.Count() != 3 {
							t.Fatalf("got (%d, %v) after %d attempts, want the error retried to success after 3", v, err, op.Count())
						}
						return
					}
					re := specAsError(t, err)
					if re.Cause != ErrPermanent {
						t.Errorf("Cause = %v, want ErrPermanent", re.Cause)
					}
					if !errors.Is(re.LastErr, e.err) && re.LastErr.Error() != e.err.Error() {
						t.Errorf("LastErr = %v, want %v", re.LastErr, e.err)
					}
					if op.Count() != 1 || re.Attempts != 1 || v != 1 {
						t.Errorf("result %d, ran %d times, Attempts %d; want stop after 1", v, op.Count(), re.Attempts)
					}
					if len(n.Errs) != 0 {
						t.Errorf("Notify called for a rejected error: %v", n.Errs)
					}
				})
			}
		}
	}
}

// "An error it rejects stops the driver at once with Cause ErrPermanent and
// LastErr the error": LastErr is the operation's error itself.
func TestClassifierRejectionKeepsTheError(t *testing.T) {
	rejected := fmt.Errorf("status 400: %w", errSpecOther)
	for _, e := range specEntries {
		t.Run(e.name, func(t *testing.T) {
			op := specScript(func(n int) (int, error) { return n, rejected })
			_, err := e.run(context.Background(), op.Run, WithRetryable(func(err error) bool { return errors.Is(err, errSpecTransient) }))
			re := specCheckStop(t, err, ErrPermanent, rejected)
			if re.LastErr != rejected {
				t.Errorf("LastErr = %#v, want the operation's own error", re.LastErr)
			}
		})
	}
}

// "Permanent is checked before the classifier": a classifier that accepts
// everything does not revive a Permanent error, wrapped or not.
func TestClassifierDoesNotOverridePermanent(t *testing.T) {
	root := errors.New("invalid token")
	for _, err := range []error{
		Permanent(root),
		fmt.Errorf("building the request: %w", Permanent(root)),
		fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", Permanent(root))),
	} {
		t.Run(err.Error(), func(t *testing.T) {
			op := specScript(func(n int) (int, error) { return n, err })
			_, got := Retry(op.Run, WithRetryable(func(error) bool { return true }), WithBackOff(&ZeroBackOff{}), WithMaxTries(5))
			re := specAsError(t, got)
			if re.Cause != ErrPermanent || op.Count() != 1 {
				t.Errorf("Cause %v after %d attempts, want ErrPermanent after 1", re.Cause, op.Count())
			}
			if !errors.Is(got, root) || got.Error() != err.Error() {
				t.Errorf("got %q, want %q, still matching the root error", got, err)
			}
		})
	}
}

// Several classifiers add up: an error is retried if any of them accepts
// it, and rejected only if every one rejects it.
func TestClassifiersAddUp(t *testing.T) {
	isTransient := WithRetryable(func(err error) bool { return errors.Is(err, errSpecTransient) })
	isThird := WithRetryable(func(err error) bool { return errors.Is(err, errSpecThird) })
	for _, c := range []struct {
		err     error
		retried bool
	}{{errSpecTransient, true}, {errSpecThird, true}, {errSpecOther, false}} {
		op := specScript(func(n int) (int, error) {
			if n == 1 {
				return n, c.err
			}
			return 100, nil
		})
		_, err := Retry(op.Run, isTransient, isThird, WithBackOff(&ZeroBackOff{}))
		if got := err == nil; got != c.retried || op.Count() != map[bool]int{true: 2, false: 1}[c.retried] {
			t.Errorf("%v: retried %v after %d attempts (%v), want %v", c.err, got, op.Count(), err, c.retried)
		}
	}
}

// The classifier is asked about the operation's error, and only about
// failures.
func TestClassifierSeesTheOperationsError(t *testing.T) {
	var seen []error
	classify := func(err error) bool {
		seen = append(seen, err)
		return true
	}
	op := specFailThenSucceed(2)
	if _, err := Retry(op.Run, WithRetryable(classify), WithBackOff(&ZeroBackOff{})); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || !errors.Is(seen[0], attemptErr(1)) || !errors.Is(seen[1], attemptErr(2)) {
		t.Errorf("the classifier saw %v, want the two failures", seen)
	}
}

// "Cancellation is decided by ctx.Err()": a cancelled context is reported
// as such, with the last error, whatever the classifier says of that error.
func TestClassifierDoesNotHideCancellation(t *testing.T) {
	for _, accept := range []bool{true, false} {
		t.Run(fmt.Sprintf("classifier says %v", accept), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			op := specScript(func(n int) (int, error) {
				cancel()
				return n, attemptErr(n)
			})
			_, err := RetryCtx(ctx, op.Run, WithRetryable(func(error) bool { return accept }), WithBackOff(&ZeroBackOff{}), WithMaxTries(3))
			specCheckStop(t, err, context.Canceled, attemptErr(1))
		})
	}
}
