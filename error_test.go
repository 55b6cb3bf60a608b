package backoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

func TestErrorPrintsTheLastErrorUndecorated(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{LastErr: io.ErrUnexpectedEOF, Cause: ErrExhausted}, io.ErrUnexpectedEOF.Error()},
		{&Error{LastErr: io.EOF, Cause: context.Canceled}, "EOF"},
		{&Error{Cause: context.DeadlineExceeded}, context.DeadlineExceeded.Error()},
		{&Error{}, "backoff: retrying failed"},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v.Error() = %q, want %q", c.err, got, c.want)
		}
		if got := fmt.Sprintf("%v|%s", c.err, c.err); got != c.want+"|"+c.want {
			t.Errorf("%%v|%%s = %q, want %q twice", got, c.want)
		}
	}
}

func TestErrorMatchesBothCauseAndLastErr(t *testing.T) {
	var err error = &Error{LastErr: fmt.Errorf("dial: %w", io.ErrClosedPipe), Cause: ErrMaxElapsedTime}
	if !errors.Is(err, ErrMaxElapsedTime) || !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("errors.Is does not see both the cause and the last error of %v", err)
	}
	if errors.Is(err, ErrExhausted) {
		t.Fatal("matches a cause it does not carry")
	}
	if errors.Unwrap(err) != nil {
		t.Fatal("errors.Unwrap of a multi-error should be nil")
	}
	var re *Error
	if !errors.As(fmt.Errorf("outer: %w", err), &re) || re.Cause != ErrMaxElapsedTime {
		t.Fatal("errors.As does not reach the *Error")
	}
	if got := (&Error{}).Unwrap(); len(got) != 0 {
		t.Fatalf("Unwrap of an empty Error = %v, want nothing", got)
	}
}

func TestErrorVerboseFormat(t *testing.T) {
	err := &Error{LastErr: errors.New("connection refused"), Cause: ErrExhausted, Attempts: 4, Elapsed: 7300 * time.Millisecond}
	want := "gave up after 4 attempts in 7.3s (backoff: retries exhausted): connection refused"
	if got := fmt.Sprintf("%+v", err); got != want {
		t.Fatalf("%%+v = %q, want %q", got, want)
	}
	if got := fmt.Sprintf("%q", err); got != `"connection refused"` {
		t.Fatalf("%%q = %s", got)
	}
}

func TestPermanent(t *testing.T) {
	if Permanent(nil) != nil {
		t.Fatal("Permanent(nil) != nil")
	}
	inner := errors.New("bad request")
	p := Permanent(inner)
	if p.Error() != "bad request" || !errors.Is(p, inner) {
		t.Fatalf("Permanent(%v) = %v; it must print and match the error it wraps", inner, p)
	}
	for _, c := range []struct {
		err      error
		wantLast error
	}{
		{p, inner},
		{fmt.Errorf("building the request: %w", p), nil}, // the whole chain
		{errors.Join(io.EOF, p), nil},
	} {
		m := findMarks(c.err)
		last, ok := m.lastErr(c.err), m.permanent
		if !ok {
			t.Fatalf("%v: Permanent mark not found", c.err)
		}
		want := c.wantLast
		if want == nil {
			want = c.err
		}
		if last != want {
			t.Errorf("%v: LastErr %v, want %v", c.err, last, want)
		}
	}
	if findMarks(io.EOF).permanent {
		t.Fatal("a plain error taken for a Permanent one")
	}
}

func TestRetryAfterError(t *testing.T) {
	cause := errors.New("rate limited")
	err := RetryAfter(3*time.Second, cause)
	if got := err.Error(); got != "retry after 3s: rate limited" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(err, cause) {
		t.Error("RetryAfterError does not unwrap to its cause")
	}
	if got := RetryAfter(time.Second, nil).Error(); got != "retry after 1s" {
		t.Errorf("without a cause, Error() = %q", got)
	}
	wrapped := fmt.Errorf("call: %w", err)
	m := findMarks(wrapped)
	if !m.hasAfter || m.after != 3*time.Second || m.lastErr(wrapped) != cause {
		t.Errorf("wrapped: marks %+v, LastErr %v; want the 3s RetryAfterError and its cause", m, m.lastErr(wrapped))
	}
	bare := RetryAfter(-time.Second, nil)
	if m := findMarks(bare); !m.hasAfter || m.lastErr(bare) != bare {
		t.Errorf("causeless: marks %+v, want the RetryAfterError, reported itself", m)
	}
	joined := errors.Join(io.EOF, fmt.Errorf("x: %w", RetryAfter(time.Second, io.ErrClosedPipe)), Permanent(io.ErrNoProgress))
	if m := findMarks(joined); !m.permanent || !m.hasAfter {
		t.Errorf("joined: marks %+v, want both found in one walk", m)
	}
}
