package backoff

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// asPermanent and asRetryAfter carry the driver's marks behind an As
// method, as a foreign error type may.
type asPermanent struct{}

func (asPermanent) Error() string { return "as permanent" }
func (asPermanent) As(target any) bool {
	if p, ok := target.(**permanentError); ok {
		*p = &permanentError{err: io.ErrUnexpectedEOF}
		return true
	}
	return false
}

type asRetryAfter struct{}

func (asRetryAfter) Error() string { return "as retry after" }
func (asRetryAfter) As(target any) bool {
	if p, ok := target.(**RetryAfterError); ok {
		*p = &RetryAfterError{Duration: 3 * time.Second, err: io.EOF}
		return true
	}
	return false
}

// The marks and the classifiers see through an error's As method and
// through errors.Join.
func TestMarksThroughAsAndJoin(t *testing.T) {
	if m := findMarks(asPermanent{}); !m.permanent {
		t.Error("a Permanent mark behind an As method was missed")
	}
	if m := findMarks(fmt.Errorf("x: %w", asRetryAfter{})); !m.hasAfter || m.after != 3*time.Second {
		t.Errorf("a RetryAfterError behind an As method was missed: %+v", m)
	}
	joined := errors.Join(io.EOF, fmt.Errorf("y: %w", &PanicError{Value: "boom"}))
	calls := 0
	_, err := Retry(func() (int, error) {
		if calls++; calls < 3 {
			return 0, joined
		}
		return 0, io.EOF
	}, RetryIfType[*PanicError](), WithBackOff(&ZeroBackOff{}))
	if !errors.Is(err, ErrPermanent) || calls != 3 {
		t.Errorf("RetryIfType through errors.Join: %v after %d calls, want ErrPermanent after 3", err, calls)
	}
}
