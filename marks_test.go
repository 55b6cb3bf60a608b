package backoff

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// isPermanent says it is permanent with an Is method, and asRetryAfter
// carries a RetryAfterError behind an As method, as a foreign error type
// may.
type isPermanent struct{}

func (isPermanent) Error() string        { return "is permanent" }
func (isPermanent) Is(target error) bool { return target == ErrPermanent }
func (isPermanent) Unwrap() error        { return io.ErrUnexpectedEOF }

type asRetryAfter struct{}

func (asRetryAfter) Error() string { return "as retry after" }
func (asRetryAfter) As(target any) bool {
	if p, ok := target.(**RetryAfterError); ok {
		*p = &RetryAfterError{Duration: 3 * time.Second, err: io.EOF}
		return true
	}
	return false
}

// The marks and the classifiers see through an error's Is and As methods
// and through errors.Join: the driver reads what errors.Is and errors.As
// would find.
func TestMarksThroughAsAndJoin(t *testing.T) {
	if m := MarksOf(isPermanent{}); !m.Permanent || m.Last != io.ErrUnexpectedEOF {
		t.Errorf("an error whose Is method matches ErrPermanent: %+v, want a Permanent mark whose LastErr is what it wraps", m)
	}
	if e := fmt.Errorf("x: %w", isPermanent{}); !MarksOf(e).Permanent || MarksOf(e).Last != e {
		t.Errorf("a wrapped Permanent mark: %+v, want permanent, LastErr the whole error", MarksOf(e))
	}
	if m := MarksOf(fmt.Errorf("x: %w", asRetryAfter{})); !m.Named || m.Wait != 3*time.Second {
		t.Errorf("a RetryAfterError behind an As method was missed: %+v", m)
	}
	for _, err := range []error{ErrRefused, fmt.Errorf("a: %w", ErrRefused), errors.Join(io.EOF, ErrRefused)} {
		if m := MarksOf(err); !m.Refused {
			t.Errorf("%v: a refusal was missed", err)
		}
	}
	for _, err := range []error{ErrRetriesCanceled, fmt.Errorf("%w: %w", ErrRetriesCanceled, io.EOF)} {
		if m := MarksOf(err); !m.CancelAll {
			t.Errorf("%v: a cancellation was missed", err)
		}
	}
	joined := errors.Join(io.EOF, fmt.Errorf("y: %w", &specTempError{op: "boom"}))
	calls := 0
	_, err := Retry(func() (int, error) {
		if calls++; calls < 3 {
			return 0, joined
		}
		return 0, io.EOF
	}, WithRetryable(func(err error) bool { return errors.As(err, new(*specTempError)) }), WithBackOff(&ZeroBackOff{}))
	if !errors.Is(err, ErrPermanent) || calls != 3 {
		t.Errorf("a classifier through errors.Join: %v after %d calls, want ErrPermanent after 3", err, calls)
	}
}

// MarksOf reads a run's result inside a chain: the first *Error, what its
// Cause and LastErr mark, and allocates nothing doing so.
func TestMarksOfARunsResult(t *testing.T) {
	inner := &Error{Cause: fmt.Errorf("%w: busy", ErrRefused), LastErr: io.EOF, Attempts: 2}
	outer := fmt.Errorf("call: %w", inner)
	m := MarksOf(outer)
	if m.Run != inner || !m.Refused || m.Permanent || m.Named {
		t.Errorf("MarksOf(a wrapped *Error refused after 2 attempts) = %+v, want Run the *Error and Refused only", m)
	}
	if m := MarksOf(errors.Join(io.EOF, &Error{Cause: ErrPermanent}, inner)); m.Run == inner || m.Run == nil || !m.Permanent {
		t.Errorf("two *Errors joined: Run = %v, want the first, Permanent", m.Run)
	}
	if m := MarksOf(nil); m != (Marks{}) {
		t.Errorf("MarksOf(nil) = %+v, want the zero Marks", m)
	}
	if n := testing.AllocsPerRun(100, func() { _ = MarksOf(outer) }); n != 0 {
		t.Errorf("MarksOf allocates %v times, want 0", n)
	}
}
